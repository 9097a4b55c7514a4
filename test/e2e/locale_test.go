package e2e

import (
	"slices"
	"strings"
	"testing"
)

// TestQuietUnderAnyLocale: no command prints the toolkit's complaints
// about the locale (Debian containers default to C.UTF-8; the vendored
// Fyne's locale parsing is patched for it), whatever LANG and LC_ALL say.
func TestQuietUnderAnyLocale(t *testing.T) {
	d := newDirs(t)
	base := slices.DeleteFunc(d.env(false), func(kv string) bool {
		return strings.HasPrefix(kv, "LANG=") || strings.HasPrefix(kv, "LC_")
	})
	for _, loc := range [][]string{
		{"LANG=C"}, {"LANG=C.UTF-8"}, {"LANG=POSIX"}, {}, {"LC_ALL=C.UTF-8"}, {"LANG=de_DE.UTF-8"},
	} {
		t.Run(strings.Join(append([]string{"locale"}, loc...), " "), func(t *testing.T) {
			// No app runs: the command fails, and must say only why.
			_, errOut, _ := cli(t, append(slices.Clone(base), loc...), "endpoint")
			if strings.Contains(errOut, "Fyne") || strings.Contains(errOut, "locale") {
				t.Errorf("stderr has toolkit noise:\n%s", errOut)
			}
		})
	}
}
