package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

func TestDiffAndUntracked(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, t.TempDir()))
	gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "changed\n")
	_, head, err := CommitAll(ctx, ws, Commit{Message: "edit"})
	if err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "changed again\n")
	gittest.WriteFile(t, filepath.Join(ws.Path, "new.txt"), "new\n")

	committed, err := Diff(ctx, repo, ws.BaseCommit, head)
	if err != nil || !strings.Contains(string(committed), "+changed\n") || strings.Contains(string(committed), "again") {
		t.Errorf("committed diff %q, %v", committed, err)
	}
	working, err := WorkTreeDiff(ctx, ws)
	if err != nil || !strings.Contains(string(working), "+changed again\n") || strings.Contains(string(working), "new.txt") {
		t.Errorf("work tree diff %q, %v", working, err)
	}
	if u, err := Untracked(ctx, ws); err != nil || !slices.Equal(u, []string{"new.txt"}) {
		t.Errorf("Untracked = %v, %v", u, err)
	}
	out := filepath.Join(t.TempDir(), "x")
	for _, bad := range [][2]string{{"", head}, {head, ""}, {"--output=" + out, head}, {ws.BaseCommit, "--output=" + out}} {
		if _, err := Diff(ctx, repo, bad[0], bad[1]); err == nil {
			t.Errorf("Diff(%q, %q): no error", bad[0], bad[1])
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an option passed as a commit wrote a file")
	}
}
