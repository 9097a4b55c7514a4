package gitcmd

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

func TestMain(m *testing.M) { gittest.Main(m) }

// newRepo makes a repository on branch main with an identity and one
// commit of a.txt, and returns its folder.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "config", "user.name", "Test Person")
	git(t, dir, "config", "user.email", "person@example.test")
	gittest.WriteFile(t, filepath.Join(dir, "a.txt"), "one\n")
	git(t, dir, "add", "a.txt")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// git runs a setup command through Run and fails the test on error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := Run(context.Background(), dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}
