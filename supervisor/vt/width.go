package vt

import "github.com/mattn/go-runewidth"

// narrow measures characters the way a terminal in a non-CJK locale does:
// East Asian "ambiguous" characters are one cell. It is fixed here rather
// than taken from runewidth.DefaultCondition, which follows the LANG of the
// process: the program on the PTY decides widths with its own locale, and a
// supervisor started under a CJK locale must not shift every box-drawing
// character by a column. It is never modified after initialisation.
var narrow = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// runeWidth returns how many cells r occupies: 0 for combining and other
// zero-width characters, 2 for wide ones, 1 otherwise.
func runeWidth(r rune) int {
	if r < 0x300 {
		// Latin, Greek punctuation and the C1 block: everything printable
		// here is narrow. C1 controls are not printable and are dropped by
		// the caller before it asks.
		return 1
	}
	return narrow.RuneWidth(r)
}
