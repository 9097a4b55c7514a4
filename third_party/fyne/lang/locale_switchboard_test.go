package lang

import "testing"

// Switchboard patch: the POSIX locales, with or without a codeset, read as
// English without an error; real names keep their language and region.
func TestUserTag(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "en"},
		{"C", "en"},
		{"C.UTF-8", "en"},
		{"C.utf8", "en"},
		{"POSIX", "en"},
		{"en_US.UTF-8", "en-US"},
		{"de_DE@euro", "de-DE"},
		{"pt_BR", "pt-BR"},
		{"fr", "fr"},
	} {
		tag, err := userTag(tc.in)
		if err != nil {
			t.Errorf("userTag(%q): %v", tc.in, err)
			continue
		}
		if got := string(localeFromTag(tag)); got != tc.want {
			t.Errorf("userTag(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
