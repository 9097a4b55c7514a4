package workspace

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// BeforeMove sees the base's tip and the commit it moves to, before the
// move: an error there lands nothing, and the next call moves to what the
// hook was told.
func TestLandBeforeMove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
	commitWS(t, ws, "agent", map[string]string{"a.txt": "one\ntwo, said the agent\nthree\n"})
	old := gitLine(t, repo, "rev-parse", "main")

	refuse := errors.New("no journal")
	var told [2]string
	_, err := Land(ctx, repo, ws, LandRequest{Message: "Land", BeforeMove: func(o, n string) error {
		told = [2]string{o, n}
		if now := gitLine(t, repo, "rev-parse", "main"); now != old {
			t.Errorf("main moved to %s before BeforeMove", now)
		}
		return refuse
	}})
	if !errors.Is(err, refuse) {
		t.Fatalf("Land with a failing BeforeMove = %v", err)
	}
	if now := gitLine(t, repo, "rev-parse", "main"); now != old || told[0] != old {
		t.Fatalf("main at %s after a refused BeforeMove (told old %s), want %s", now, told[0], old)
	}
	l, err := Land(ctx, repo, ws, LandRequest{Message: "Land", BeforeMove: func(o, n string) error {
		told = [2]string{o, n}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if told != [2]string{old, l.Commit} || gitLine(t, repo, "rev-parse", "main") != l.Commit {
		t.Errorf("BeforeMove told %v; landed %s", told, l.Commit)
	}
}
