package workspace

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// agentCommit is a commit an agent makes in its worktree, as someone of
// its own at a date of its own.
type agentCommit struct {
	subject, author, date string
	files                 map[string]string
}

func (c agentCommit) make(t *testing.T, ws Workspace) string {
	t.Helper()
	for p, content := range c.files {
		gittest.WriteFile(t, filepath.Join(ws.Path, filepath.FromSlash(p)), content)
	}
	git(t, ws.Path, "add", "-A")
	git(t, ws.Path, "commit", "-q", "--author="+c.author, "--date="+c.date, "-m", c.subject, "-m", "Why: "+c.subject+".")
	return gitLine(t, ws.Path, "rev-parse", "HEAD")
}

var (
	addC = agentCommit{subject: "add c", author: "Agent One <one@agent.test>", date: "2020-01-02T03:04:05+00:00",
		files: map[string]string{"c.txt": "sea\n"}}
	addE = agentCommit{subject: "add e", author: "Agent Two <two@agent.test>", date: "2021-06-07T08:09:10+02:00",
		files: map[string]string{"e.txt": "ee\n"}}
	editA = agentCommit{subject: "edit a", author: "Agent One <one@agent.test>", date: "2022-01-01T00:00:00+00:00",
		files: map[string]string{"a.txt": "one\ntwo, said the agent\nthree\n"}}
)

// A rebase lands the packet's commits one by one on the base's tip, each
// with its author, date and message; a conflict anywhere moves nothing.
func TestLandRebase(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		agent  []agentCommit
		person map[string]string // committed on main before landing; nil: main stays
		// fromSecond rebases from the first commit: the second alone.
		fromSecond bool
		// mergeMain: the person commits after the agent's first commit,
		// and the agent merges main before its second.
		mergeMain bool
		// want are the subjects of main's new commits, oldest first.
		want []string
		// ff: main ends at the branch's own tip (nothing to rewrite).
		ff       bool
		conflict []string
		err      error
	}{
		{name: "base moved", agent: []agentCommit{addC, addE}, person: map[string]string{"d.txt": "dee\n"}, want: []string{"add c", "add e"}},
		{name: "base unmoved: a fast-forward", agent: []agentCommit{addC, addE}, want: []string{"add c", "add e"}, ff: true},
		{name: "from a commit", agent: []agentCommit{addC, addE}, person: map[string]string{"d.txt": "dee\n"}, fromSecond: true, want: []string{"add e"}},
		{
			name: "a change the base has already is left out", agent: []agentCommit{addC, addE},
			person: map[string]string{"c.txt": "sea\n"}, want: []string{"add e"},
		},
		{
			name: "conflict in the second commit", agent: []agentCommit{addC, editA},
			person:   map[string]string{"a.txt": "one\ntwo, said the person\nthree\n"},
			conflict: []string{"a.txt"}, err: ErrConflict,
		},
		{
			name: "the agent merged main in", agent: []agentCommit{addC, addE}, mergeMain: true,
			person: map[string]string{"d.txt": "dee\n"}, want: []string{"add c", "add e"},
		},
		{name: "nothing to land", err: ErrNothingToLand},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			repo := newRepo(t, "")
			ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
			byID := map[string]agentCommit{}
			var ids []string
			personCommits := func() {
				for p, content := range tt.person {
					gittest.WriteFile(t, filepath.Join(repo, p), content)
				}
				git(t, repo, "add", "-A")
				git(t, repo, "commit", "-q", "-m", "the person's commit")
			}
			for i, c := range tt.agent {
				if tt.mergeMain && i == 1 {
					personCommits()
					git(t, ws.Path, "merge", "-q", "--no-edit", "main")
				}
				id := c.make(t, ws)
				byID[id] = c
				ids = append(ids, id)
			}
			if tt.person != nil && !tt.mergeMain {
				personCommits()
			}
			// Work of the person's own that the landing must keep.
			gittest.WriteFile(t, filepath.Join(repo, "src", "b.txt"), "bee, edited by the person\n")
			gittest.WriteFile(t, filepath.Join(repo, "notes.txt"), "the person's notes\n")
			old := gitLine(t, repo, "rev-parse", "main")
			before := checkout(t, repo)
			req := LandRequest{Mode: Rebase}
			if tt.fromSecond {
				req.From = ids[0]
			}

			l, err := Land(ctx, repo, ws, req)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Land: %v; want %v", err, tt.err)
				}
				var ce *ConflictError
				if tt.conflict != nil && (!errors.As(err, &ce) || !reflect.DeepEqual(ce.Files, tt.conflict)) {
					t.Errorf("Land: %v; want a conflict in %q", err, tt.conflict)
				}
				if now := gitLine(t, repo, "rev-parse", "main"); now != old {
					t.Errorf("main moved to %s", now)
				}
				if after := checkout(t, repo); after != before {
					t.Errorf("the checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
				}
				if f := anyConflictMarker(t, repo); f != "" {
					t.Errorf("conflict markers in %s", f)
				}
				for _, name := range []string{"MERGE_HEAD", "REBASE_HEAD", "rebase-merge", "CHERRY_PICK_HEAD"} {
					if p := filepath.Join(repo, ".git", name); exists(p) {
						t.Errorf("%s at %s", name, p)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tip := gitLine(t, repo, "rev-parse", "main"); l.Commit != tip || l.Mode != Rebase {
				t.Errorf("Land = %+v; main at %s", l, tip)
			}
			// A line: every new commit has one parent, the one before.
			news := strings.Fields(gitLine(t, repo, "rev-list", "--reverse", old+"..main"))
			var subjects []string
			prev := old
			for _, id := range news {
				if got := parentsOf(t, repo, id); !reflect.DeepEqual(got, []string{prev}) {
					t.Errorf("%s's parents = %q, want %s", id, got, prev)
				}
				prev = id
				subjects = append(subjects, gitLine(t, repo, "log", "-1", "--format=%s", id))
				var orig agentCommit
				for oid, c := range byID {
					if c.subject == subjects[len(subjects)-1] {
						orig = c
						if tt.ff != (oid == id) {
							t.Errorf("%s: the branch's own commit %s; want kept = %v", id, oid, tt.ff)
						}
					}
				}
				author := gitLine(t, repo, "log", "-1", "--format=%an <%ae> %aI", id)
				if want := orig.author + " " + orig.date; author != want {
					t.Errorf("%s's author = %q, want %q", id, author, want)
				}
				if body := gitLine(t, repo, "log", "-1", "--format=%b", id); body != "Why: "+orig.subject+"." {
					t.Errorf("%s's message body = %q", id, body)
				}
				if c := gitLine(t, repo, "log", "-1", "--format=%cn <%ce>", id); c != "Test Person <person@example.test>" {
					t.Errorf("%s's committer = %q", id, c)
				}
			}
			if !reflect.DeepEqual(subjects, tt.want) {
				t.Errorf("main's new commits = %q, want %q", subjects, tt.want)
			}
			for path, want := range map[string]string{"src/b.txt": "bee, edited by the person\n", "notes.txt": "the person's notes\n"} {
				if got := gittest.ReadFile(t, filepath.Join(repo, path)); got != want {
					t.Errorf("%s = %q, want %q", path, got, want)
				}
			}
			if st := git(t, repo, "status", "--porcelain=v1", "--untracked-files=all"); st != " M src/b.txt\n?? notes.txt\n" {
				t.Errorf("status after landing:\n%s", st)
			}
			if st, err := Status(ctx, ws); err != nil || st.Landed != tt.ff {
				t.Errorf("Status = %+v, %v; want Landed = %v", st, err, tt.ff)
			}
		})
	}
}

func TestRewriteCommitKeepsEncodingDropsSignature(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, "")
	ctx := context.Background()
	head := gitLine(t, repo, "rev-parse", "HEAD")
	tree := gitLine(t, repo, "rev-parse", "HEAD^{tree}")
	orig := "tree " + tree + "\nauthor A U Thor <a@example.test> 1600000000 +0100\ncommitter C <c@example.test> 1600000001 +0000\n" +
		"encoding ISO-8859-1\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nsubject\n\nbody\n"
	id, err := rewriteCommit(ctx, repo, []byte(orig), tree, head, "Test Person <person@example.test> 1700000000 +0000")
	if err != nil {
		t.Fatal(err)
	}
	want := "tree " + tree + "\nparent " + head + "\nauthor A U Thor <a@example.test> 1600000000 +0100\n" +
		"committer Test Person <person@example.test> 1700000000 +0000\nencoding ISO-8859-1\n\nsubject\n\nbody\n"
	if got := git(t, repo, "cat-file", "commit", id); got != want {
		t.Errorf("rewritten commit:\n%s\nwant:\n%s", got, want)
	}
}
