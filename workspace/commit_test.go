package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

func TestCommitAll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	personWorks(t, repo)
	before := checkout(t, repo)
	ws := create(t, spec(repo, t.TempDir()))

	// Nothing to commit: no commit, HEAD as it was.
	created, head, err := CommitAll(ctx, ws, Commit{Message: "nothing"})
	if err != nil || created || head != ws.BaseCommit {
		t.Fatalf("clean worktree: CommitAll = %v, %q, %v", created, head, err)
	}

	gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "changed\n")
	gittest.WriteFile(t, filepath.Join(ws.Path, "new", "c.txt"), "new\n")
	if err := os.Remove(filepath.Join(ws.Path, "src", "b.txt")); err != nil {
		t.Fatal(err)
	}
	created, head, err = CommitAll(ctx, ws, Commit{
		Message:     "Fix the login bug\n",
		Trailers:    []string{"Switchboard-Packet: pkt_0123456789abcdef0123"},
		AuthorName:  "Ada Person",
		AuthorEmail: "ada@example.test",
		CoAuthors:   []string{"Claude Code <agent@switchboard.invalid>"},
	})
	if err != nil || !created {
		t.Fatalf("CommitAll = %v, %v", created, err)
	}
	if head != gitLine(t, ws.Path, "rev-parse", "HEAD") || head != gitLine(t, repo, "rev-parse", ws.Branch) {
		t.Errorf("head %s is not the branch's tip", head)
	}
	wantMsg := "Fix the login bug\n\nSwitchboard-Packet: pkt_0123456789abcdef0123\nCo-authored-by: Claude Code <agent@switchboard.invalid>"
	if got := gitLine(t, ws.Path, "log", "-1", "--format=%B"); got != wantMsg {
		t.Errorf("message =\n%s\nwant\n%s", got, wantMsg)
	}
	if got := gitLine(t, ws.Path, "log", "-1", "--format=%an <%ae>|%cn <%ce>"); got != "Ada Person <ada@example.test>|Ada Person <ada@example.test>" {
		t.Errorf("author|committer = %q", got)
	}
	if got := gitLine(t, ws.Path, "log", "-1", "--format=%(trailers:key=Switchboard-Packet,valueonly)"); got != "pkt_0123456789abcdef0123" {
		t.Errorf("git reads the packet trailer as %q", got)
	}
	if got := gitLine(t, ws.Path, "diff", "--name-status", ws.BaseCommit, head); got != "M\ta.txt\nA\tnew/c.txt\nD\tsrc/b.txt" {
		t.Errorf("commit holds:\n%s", got)
	}
	if st, _ := Status(ctx, ws); st.Dirty || st.Ahead != 1 {
		t.Errorf("after CommitAll: %+v", st)
	}

	// Without an author, git's configured identity.
	gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "again\n")
	if created, _, err := CommitAll(ctx, ws, Commit{Message: "second"}); err != nil || !created {
		t.Fatalf("CommitAll = %v, %v", created, err)
	}
	if got := gitLine(t, ws.Path, "log", "-1", "--format=%an <%ae>|%B"); got != "Test Person <person@example.test>|second" {
		t.Errorf("configured identity: %q", got)
	}
	if after := checkout(t, repo); after != before {
		t.Fatalf("the person's checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// No hook runs on the commit CommitAll makes for an agent: it is made in
// the app's process, as the person, and an agent can edit the hooks (a
// tracked folder core.hooksPath names) or, unconfined, plant them in
// .git/hooks. Neither a failing pre-commit nor a post-commit that would
// leave a mark has any effect; the commit is made as without them.
func TestCommitAllRunsNoHook(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	marker := filepath.Join(t.TempDir(), "ran")
	for _, dir := range []string{filepath.Join(repo, ".git", "hooks"), filepath.Join(repo, "hooks")} {
		for name, body := range map[string]string{
			"pre-commit":  "echo 'lint: a.txt is wrong' >&2\nexit 1\n",
			"commit-msg":  "exit 1\n",
			"post-commit": "echo \"$0\" >> '" + marker + "'\n",
		} {
			gittest.WriteFile(t, filepath.Join(dir, name), "#!/bin/sh\n"+body)
			if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	git(t, repo, "add", "hooks")
	git(t, repo, "commit", "-q", "-m", "hooks")
	git(t, repo, "config", "core.hooksPath", "hooks") // relative: the worktree's own copy
	ws := create(t, spec(repo, t.TempDir()))
	gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "agent's work\n")
	created, head, err := CommitAll(ctx, ws, Commit{Message: "not blocked"})
	if err != nil || !created {
		t.Fatalf("CommitAll with failing hooks = %v, %v; want a commit, no hook run", created, err)
	}
	if gitLine(t, repo, "rev-parse", "refs/heads/"+ws.Branch) != head || head == ws.BaseCommit {
		t.Errorf("the commit %s is not on %s", head, ws.Branch)
	}
	if exists(marker) {
		t.Errorf("a post-commit hook ran: %s", gittest.ReadFile(t, marker))
	}
}

func TestCommitAllRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, t.TempDir()))
	gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "work\n")
	for _, tt := range []struct {
		name string
		c    Commit
	}{
		{"empty message", Commit{Message: " \n "}},
		{"author without email", Commit{Message: "m", AuthorName: "A"}},
		{"author with brackets", Commit{Message: "m", AuthorName: "A <x>", AuthorEmail: "a@b"}},
		{"trailer without key", Commit{Message: "m", Trailers: []string{"no colon here"}}},
		{"trailer over two lines", Commit{Message: "m", Trailers: []string{"Key: a\nOther: b"}}},
		{"trailer key with space", Commit{Message: "m", Trailers: []string{"Bad Key: v"}}},
		{"co-author without email", Commit{Message: "m", CoAuthors: []string{"Claude"}}},
	} {
		if created, _, err := CommitAll(ctx, ws, tt.c); err == nil || created {
			t.Errorf("%s: CommitAll = %v, %v; want an error", tt.name, created, err)
		}
	}
	// Off its branch, the commit would land nowhere the packet looks.
	git(t, ws.Path, "switch", "-q", "--detach")
	if _, _, err := CommitAll(ctx, ws, Commit{Message: "m"}); !errors.Is(err, ErrNotOnBranch) {
		t.Errorf("detached: err = %v, want ErrNotOnBranch", err)
	}
	git(t, ws.Path, "switch", "-q", ws.Branch)
	if gitLine(t, ws.Path, "rev-parse", "HEAD") != ws.BaseCommit || gittest.ReadFile(t, filepath.Join(ws.Path, "a.txt")) != "work\n" {
		t.Error("a refused CommitAll changed the worktree")
	}
}

func TestCommitAllRefusesConflicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, t.TempDir()))
	conflict(t, repo, ws)
	if _, _, err := CommitAll(ctx, ws, Commit{Message: "m"}); !errors.Is(err, ErrUnmerged) || !strings.Contains(err.Error(), "a.txt") {
		t.Errorf("err = %v, want ErrUnmerged naming a.txt", err)
	}
}

func TestChangedFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	gittest.WriteFile(t, filepath.Join(repo, ".gitignore"), "*.log\n")
	git(t, repo, "add", ".gitignore")
	git(t, repo, "commit", "-q", "-m", "ignore logs")
	ws := create(t, spec(repo, t.TempDir()))

	files, err := ChangedFiles(ctx, ws)
	if err != nil || len(files) != 0 {
		t.Fatalf("fresh worktree: %v, %v", files, err)
	}
	gittest.WriteFile(t, filepath.Join(ws.Path, "committed.txt"), "c\n")
	git(t, ws.Path, "add", "committed.txt")
	git(t, ws.Path, "mv", "src/b.txt", "src/renamed.txt")
	git(t, ws.Path, "commit", "-q", "-m", "agent")
	gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "uncommitted\n")
	gittest.WriteFile(t, filepath.Join(ws.Path, "staged.txt"), "s\n")
	git(t, ws.Path, "add", "staged.txt")
	gittest.WriteFile(t, filepath.Join(ws.Path, "docs", "untracked.md"), "u\n")
	gittest.WriteFile(t, filepath.Join(ws.Path, "build.log"), "ignored\n")

	files, err = ChangedFiles(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.txt", "committed.txt", "docs/untracked.md", "src/b.txt", "src/renamed.txt", "staged.txt"}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("ChangedFiles = %q, want %q", files, want)
	}

	// A change made and then undone is no change.
	gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "one\ntwo\nthree\n")
	files, _ = ChangedFiles(ctx, ws)
	if len(files) != 5 || files[0] == "a.txt" {
		t.Errorf("after undoing a.txt: %q", files)
	}
}

func TestDiffstat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	gittest.WriteFile(t, filepath.Join(repo, "long.txt"), strings.Repeat("a line that is long enough to be found again\n", 20))
	git(t, repo, "add", "long.txt")
	git(t, repo, "commit", "-q", "-m", "long")
	from := gitLine(t, repo, "rev-parse", "HEAD")

	gittest.WriteFile(t, filepath.Join(repo, "a.txt"), "one\n2\nthree\nfour\n")           // +2 -1
	gittest.WriteFile(t, filepath.Join(repo, "tab\tand space.bin"), "\x00\x01\x02binary") // binary
	git(t, repo, "mv", "long.txt", "moved.txt")                                           // rename
	if err := os.Remove(filepath.Join(repo, "src", "b.txt")); err != nil {                // -1
		t.Fatal(err)
	}
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "changes")
	to := gitLine(t, repo, "rev-parse", "HEAD")

	st, err := Diffstat(ctx, repo, from, to)
	if err != nil {
		t.Fatal(err)
	}
	want := Stat{
		Files: []FileStat{
			{Path: "a.txt", Added: 2, Deleted: 1},
			{Path: "moved.txt", OldPath: "long.txt", Added: 0, Deleted: 0},
			{Path: "src/b.txt", Added: 0, Deleted: 1},
			{Path: "tab\tand space.bin", Added: -1, Deleted: -1},
		},
		Added:   2,
		Deleted: 2,
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("Diffstat =\n%+v\nwant\n%+v", st, want)
	}
	if st, err := Diffstat(ctx, repo, to, to); err != nil || len(st.Files) != 0 {
		t.Errorf("empty range: %+v, %v", st, err)
	}
	for _, bad := range [][2]string{{"", to}, {from, "--output=/tmp/x"}, {from, "no-such-commit"}} {
		if _, err := Diffstat(ctx, repo, bad[0], bad[1]); err == nil {
			t.Errorf("Diffstat(%q, %q) accepted it", bad[0], bad[1])
		}
	}
}

func TestParseNumstat(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"1\t2\x00", "x\t1\ta\x00", "1\t1\t\x00old\x00", "-5\t1\ta\x00"} {
		if _, err := parseNumstat([]byte(bad)); err == nil {
			t.Errorf("parseNumstat(%q) accepted it", bad)
		}
	}
}

// Check is shown what the commit holds, measured from Since: a file out
// of bounds, uncommitted or committed by the agent itself, stops the
// commit; a file written and staged after Check looked is not in the
// commit made, which is of the tree Check saw.
func TestCommitAllCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t, "")
	ws := create(t, spec(repo, t.TempDir()))
	refuse := errors.New("out of scope")
	onlyA := func(paths []string) error {
		for _, p := range paths {
			if p != "a.txt" {
				return fmt.Errorf("%w: %s", refuse, p)
			}
		}
		return nil
	}

	gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "in scope\n")
	gittest.WriteFile(t, filepath.Join(ws.Path, "evil.md"), "out of scope\n")
	if created, _, err := CommitAll(ctx, ws, Commit{Message: "m", Check: onlyA}); !errors.Is(err, refuse) || created {
		t.Fatalf("CommitAll with a file out of scope = %v, %v; want the check's refusal", created, err)
	}
	if head := gitLine(t, repo, "rev-parse", ws.Branch); head != ws.BaseCommit {
		t.Fatalf("a refused commit moved %s to %s", ws.Branch, head)
	}

	// Slipped in after the check: written and staged while it ran.
	if err := os.Remove(filepath.Join(ws.Path, "evil.md")); err != nil {
		t.Fatal(err)
	}
	var seen []string
	created, head, err := CommitAll(ctx, ws, Commit{Message: "m", Check: func(paths []string) error {
		seen = paths
		gittest.WriteFile(t, filepath.Join(ws.Path, "slipped.md"), "slipped in\n")
		git(t, ws.Path, "add", "slipped.md")
		return onlyA(paths)
	}})
	if err != nil || !created {
		t.Fatalf("CommitAll = %v, %v", created, err)
	}
	if !reflect.DeepEqual(seen, []string{"a.txt"}) {
		t.Errorf("Check saw %q", seen)
	}
	if got := git(t, repo, "diff", "--name-only", ws.BaseCommit, head); got != "a.txt\n" {
		t.Errorf("the commit holds %q, want a.txt only", got)
	}
	if st := git(t, ws.Path, "status", "--porcelain=v1"); st != "A  slipped.md\n" {
		t.Errorf("status after the commit: %q; want slipped.md staged, uncommitted", st)
	}
	if err := os.Remove(filepath.Join(ws.Path, "slipped.md")); err != nil {
		t.Fatal(err)
	}
	git(t, ws.Path, "rm", "-q", "--cached", "slipped.md")

	// Committed by the agent itself, nothing left uncommitted: still
	// checked, from Since.
	gittest.WriteFile(t, filepath.Join(ws.Path, "own.md"), "the agent's own commit\n")
	git(t, ws.Path, "add", "own.md")
	git(t, ws.Path, "commit", "-q", "-m", "agent")
	if _, _, err := CommitAll(ctx, ws, Commit{Message: "m", Since: head, Check: onlyA}); !errors.Is(err, refuse) || !strings.Contains(err.Error(), "own.md") {
		t.Errorf("CommitAll over the agent's own commit out of scope: %v", err)
	}
}
