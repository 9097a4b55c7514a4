package supervisor

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// trustCodex is the -c override that trusts dir, and only dir, for this
// run of Codex: projects = { "<dir>" = { trust_level = "trusted" } }, so
// it starts without its "Folder access … Trust this folder?" screen.
// Nothing is written to the person's ~/.codex/config.toml; Codex lays
// the override over its own config for this process alone.
//
// The path goes in as a quoted key of an inline table, not as the
// dotted -c key projects."<dir>".trust_level: Codex splits the key of a
// -c override at every dot without reading TOML quotes, so that form
// names a project called "\"<dir>\"" (quotes included) and, for a path
// with a dot in it, a different table altogether. The value after "=" is
// parsed as TOML, quotes and escapes and all.
//
// Codex looks the project up by its working directory as the system
// reports it, symbolic links resolved (a worktree under a linked folder,
// such as macOS's /var → /private/var, is found under the real path), so
// the override names dir with its links resolved.
func trustCodex(dir string) []string {
	if dir == "" {
		return nil
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return codexTrustArgs(dir)
}

// codexTrustArgs is the override for the path dir as it is. A path that
// is not valid UTF-8 cannot be written as a TOML string and is not
// trusted: Codex then asks, as it would anyway.
func codexTrustArgs(dir string) []string {
	if dir == "" || !utf8.ValidString(dir) {
		return nil
	}
	return []string{"-c", fmt.Sprintf(`projects={%s={trust_level="trusted"}}`, tomlString(dir))}
}

// tomlString quotes s as a TOML basic string: backslash and double quote
// escaped, control characters as \uXXXX (TOML allows none raw, not even
// a tab in a key).
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
