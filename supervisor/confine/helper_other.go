//go:build !linux

package confine

import "errors"

func becomeAgent(HelperOptions, string, []string) error {
	return errors.New("the sandbox helper runs on Linux only")
}
