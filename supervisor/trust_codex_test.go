package supervisor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// trustCodex trusts exactly the worktree's path: the argument is the one
// Codex reads, and parsed as TOML (Codex parses the value after "=" as
// TOML) it names that path and nothing else, whatever quotes, spaces,
// dots or backslashes the path holds.
func TestTrustCodex(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		want string // the -c value
	}{
		{"/home/dev/.local/share/switchboard/worktrees/repo_1/ses_2",
			`projects={"/home/dev/.local/share/switchboard/worktrees/repo_1/ses_2"={trust_level="trusted"}}`},
		{"/tmp/my project", `projects={"/tmp/my project"={trust_level="trusted"}}`},
		{`/tmp/say "hi"`, `projects={"/tmp/say \"hi\""={trust_level="trusted"}}`},
		{`C:\Users\dev\wt`, `projects={"C:\\Users\\dev\\wt"={trust_level="trusted"}}`},
		{"/tmp/a.b/c=d/{e}/[f]/'g'/#h", `projects={"/tmp/a.b/c=d/{e}/[f]/'g'/#h"={trust_level="trusted"}}`},
		{"/tmp/tab\there\nnewline\x7f", `projects={"/tmp/tab\u0009here\u000Anewline\u007F"={trust_level="trusted"}}`},
		{"/tmp/ünïcødé/日本", `projects={"/tmp/ünïcødé/日本"={trust_level="trusted"}}`},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			got := codexTrustArgs(tc.dir)
			if want := []string{"-c", tc.want}; !slices.Equal(got, want) {
				t.Fatalf("codexTrustArgs(%q) = %q, want %q", tc.dir, got, want)
			}
			key, value, _ := strings.Cut(got[1], "=")
			var doc map[string]map[string]map[string]string
			if _, err := toml.Decode("v = "+value, &doc); err != nil {
				t.Fatalf("%s is not TOML: %v", value, err)
			}
			want := map[string]map[string]string{tc.dir: {"trust_level": "trusted"}}
			if key != "projects" || len(doc["v"]) != 1 || doc["v"][tc.dir]["trust_level"] != "trusted" || len(doc["v"][tc.dir]) != 1 {
				t.Fatalf("%s parses as %s = %v, want projects = %v", got[1], key, doc["v"], want)
			}
		})
	}
	for _, dir := range []string{"", "/tmp/bad\xffutf8"} {
		if got := codexTrustArgs(dir); got != nil {
			t.Errorf("codexTrustArgs(%q) = %q, want nothing (Codex asks)", dir, got)
		}
	}
}

// Codex looks a project up by its working directory with links resolved:
// a worktree reached through a symbolic link is trusted under its real
// path, the one Codex asks about.
func TestTrustCodexResolvesLinks(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real", "wt")
	if err := os.MkdirAll(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(filepath.Join(base, "real"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	want, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	if got := trustCodex(filepath.Join(link, "wt")); !slices.Equal(got, codexTrustArgs(want)) {
		t.Fatalf("trustCodex(link/wt) = %q, want %q", got, codexTrustArgs(want))
	}
}
