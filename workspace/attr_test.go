package workspace

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// Generated reads linguist-generated from the checkout's .gitattributes:
// set and =true count, unset, =false and unspecified do not, and a path
// that looks like an option or holds a space is only a path.
func TestGenerated(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t, "")
	gittest.WriteFile(t, filepath.Join(repo, ".gitattributes"),
		"*.pb.go linguist-generated\n"+
			"gen/** linguist-generated=true\n"+
			"gen/keep.go -linguist-generated\n"+
			"vendor.js linguist-generated=false\n"+
			"with*space.txt linguist-generated\n")
	paths := []string{"a.go", "api/x.pb.go", "gen/y.go", "gen/keep.go", "vendor.js", "--all", "with space.txt", "gen/sub/z.ts"}
	got, err := Generated(ctx, repo, paths)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"api/x.pb.go", "gen/y.go", "with space.txt", "gen/sub/z.ts"}
	if !slices.Equal(got, want) {
		t.Errorf("Generated = %q, want %q", got, want)
	}
	if got, err := Generated(ctx, repo, nil); err != nil || got != nil {
		t.Errorf("no paths: %q, %v", got, err)
	}
	if _, err := Generated(ctx, filepath.Join(t.TempDir(), "none"), paths); err == nil {
		t.Error("a folder that is no repository: no error")
	}
}
