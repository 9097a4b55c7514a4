//go:build !darwin

package widget

func isScrollerPageOnTap() bool {
	return false
}
