package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

func TestSlug(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"Fix the login bug", "fix-the-login-bug"},
		{"", "agent"},
		{"---", "agent"},
		{"日本語", "agent"},
		{"  Café au lait!  ", "caf-au-lait"},
		{"UPPER_case__and--dashes", "upper-case-and-dashes"},
		{"a/b..c@{d}~e^f:g", "a-b-c-d-e-f-g"},
		{"v1.2.3 release", "v1-2-3-release"},
		{strings.Repeat("abc ", 20), "abc-abc-abc-abc-abc-abc-abc-abc"},
		{strings.Repeat("x", 40), strings.Repeat("x", 32)},
		{strings.Repeat("y", 31) + " z", strings.Repeat("y", 31)},
	} {
		got := Slug(tt.in)
		if got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if len(got) > 32 {
			t.Errorf("Slug(%q) is %d long", tt.in, len(got))
		}
	}
}

// Every name BranchName makes is one git accepts as a branch.
func TestBranchName(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, "")
	for _, tt := range []struct {
		id, text, want string
	}{
		{sessionID, "Fix the login bug", "switchboard/3f2a9c1e/fix-the-login-bug"},
		{"ses_ab", "", "switchboard/ab/agent"},
		{"ses_AB_cd-ef99", "x", "switchboard/AB_cd-ef/x"},
		{"ses_3f2a9c1e", strings.Repeat("long ", 20), "switchboard/3f2a9c1e/long-long-long-long-long-long-lo"},
		{"abc", "x", ""},
		{"ses_", "x", ""},
		{"ses_a/b", "x", ""},
		{"ses_a.b", "x", ""},
		{"ses_a b", "x", ""},
		{"-ses_a", "x", ""},
		{"ses_" + strings.Repeat("a", 200), "x", ""},
	} {
		got, err := BranchName(tt.id, tt.text)
		if tt.want == "" {
			if err == nil {
				t.Errorf("BranchName(%q) = %q, want an error", tt.id, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("BranchName(%q, %q) = %q, %v; want %q", tt.id, tt.text, got, err, tt.want)
			continue
		}
		if err := checkBranchName(context.Background(), repo, got); err != nil {
			t.Errorf("git refuses %q: %v", got, err)
		}
	}
	for _, bad := range []string{"", "-x", "a..b", "a b", "@{-1}", "x.lock", "a/", "HEAD~1"} {
		if err := checkBranchName(context.Background(), repo, bad); err == nil {
			t.Errorf("checkBranchName(%q) accepted it", bad)
		}
	}
}

func TestIsRepository(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, "")
	plain := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(plain, "f")
	gittest.WriteFile(t, file, "x")
	for _, tt := range []struct {
		name    string
		path    string
		want    bool
		wantErr bool
	}{
		{"top level", repo, true, false},
		{"folder inside", filepath.Join(repo, "src"), true, false},
		{"through a symlink", link, true, false},
		{"plain folder", plain, false, false},
		{"the .git folder", filepath.Join(repo, ".git"), false, false},
		{"missing", filepath.Join(plain, "nope"), false, true},
		{"a file", file, false, true},
	} {
		got, err := IsRepository(context.Background(), tt.path)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: IsRepository = %v, %v; want %v, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestCurrentBranch(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, "")
	ctx := context.Background()
	if b, err := CurrentBranch(ctx, repo); err != nil || b != "main" {
		t.Errorf("CurrentBranch = %q, %v; want main", b, err)
	}
	git(t, repo, "switch", "-q", "-c", "feature/x")
	if b, err := CurrentBranch(ctx, repo); err != nil || b != "feature/x" {
		t.Errorf("CurrentBranch = %q, %v; want feature/x", b, err)
	}
	git(t, repo, "switch", "-q", "--detach", "main")
	short := gitLine(t, repo, "rev-parse", "--short", "HEAD")
	_, err := CurrentBranch(ctx, repo)
	if !errors.Is(err, ErrDetachedHead) || !strings.Contains(err.Error(), short) {
		t.Errorf("detached: err = %v, want ErrDetachedHead naming %s", err, short)
	}
	unborn := t.TempDir()
	git(t, unborn, "init", "-q", "-b", "trunk")
	if b, err := CurrentBranch(ctx, unborn); err != nil || b != "trunk" {
		t.Errorf("unborn: CurrentBranch = %q, %v; want trunk", b, err)
	}
}

func TestCreate(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, "")
	personWorks(t, repo)
	before := checkout(t, repo)
	root := filepath.Join(t.TempDir(), "data", "worktrees")

	ws := create(t, spec(repo, root))

	want := Workspace{
		Path:       filepath.Join(root, "repo_0123456789abcdef", sessionID),
		Branch:     "switchboard/3f2a9c1e/fix-the-login-bug",
		BaseBranch: "main",
		BaseCommit: gitLine(t, repo, "rev-parse", "main"),
		RepoPath:   repo,
	}
	if ws != want {
		t.Errorf("Create = %+v\nwant %+v", ws, want)
	}
	for _, dir := range []string{root, filepath.Dir(ws.Path), ws.Path} {
		info, err := os.Stat(dir)
		if err != nil || info.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, %v; want 0700", dir, info.Mode().Perm(), err)
		}
	}
	if got := gittest.ReadFile(t, filepath.Join(ws.Path, "a.txt")); got != "one\ntwo\nthree\n" {
		t.Errorf("worktree a.txt = %q: want the base commit's, not the person's edits", got)
	}
	if exists(filepath.Join(ws.Path, "notes.txt")) {
		t.Error("the person's untracked file is in the worktree")
	}
	if b := gitLine(t, ws.Path, "symbolic-ref", "--short", "HEAD"); b != ws.Branch {
		t.Errorf("worktree is on %q, want %q", b, ws.Branch)
	}
	if after := checkout(t, repo); after != before {
		t.Fatalf("Create changed the person's checkout:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func TestCreateFromBase(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, "")
	git(t, repo, "branch", "develop")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "main moves on")
	s := spec(repo, t.TempDir())
	s.Base = "develop"
	ws := create(t, s)
	if ws.BaseBranch != "develop" || ws.BaseCommit != gitLine(t, repo, "rev-parse", "develop") {
		t.Errorf("Create from develop = %+v", ws)
	}
	if gitLine(t, ws.Path, "rev-parse", "HEAD") != ws.BaseCommit {
		t.Error("worktree HEAD is not the base commit")
	}
}

func TestCreateRefuses(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, "")
	root := t.TempDir()
	taken := spec(repo, root)
	taken.SessionID = "ses_taken000"
	create(t, taken)
	full := spec(repo, root)
	full.SessionID = "ses_full0000"
	gittest.WriteFile(t, filepath.Join(root, full.RepositoryID, full.SessionID, "keep.txt"), "mine\n")
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(root, full.RepositoryID, "ses_link0000")); err != nil {
		t.Fatal(err)
	}
	existing := map[string]bool{full.SessionID: true, "ses_taken000": true, "ses_link0000": true}

	for _, tt := range []struct {
		name   string
		change func(*Spec)
		is     error
	}{
		{"folder not empty", func(s *Spec) { s.SessionID = full.SessionID }, ErrPathInUse},
		{"folder is a symbolic link to an empty one", func(s *Spec) { s.SessionID = "ses_link0000" }, ErrPathInUse},
		{"branch taken", func(s *Spec) { s.SessionID = "ses_taken000"; s.RepositoryID = "repo_other" }, nil},
		{"no such base", func(s *Spec) { s.Base = "no-such-branch" }, nil},
		{"base that expands", func(s *Spec) { s.Base = "@{-1}" }, nil},
		{"base that is an option", func(s *Spec) { s.Base = "--orphan" }, nil},
		{"relative root", func(s *Spec) { s.Root = "worktrees" }, nil},
		{"repository id with a slash", func(s *Spec) { s.RepositoryID = "../escape" }, nil},
		{"session id without ses_", func(s *Spec) { s.SessionID = "3f2a9c1e" }, nil},
		{"not a repository", func(s *Spec) { s.RepoPath = t.TempDir() }, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := spec(repo, root)
			s.SessionID = "ses_refused0"
			tt.change(&s)
			ws, err := Create(context.Background(), s)
			if err == nil {
				t.Fatalf("Create = %+v, want an error", ws)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want %v", err, tt.is)
			}
			if !existing[s.SessionID] && exists(filepath.Join(root, s.RepositoryID, s.SessionID)) {
				t.Error("a failed Create left its folder behind")
			}
		})
	}
	if got := gittest.ReadFile(t, filepath.Join(root, full.RepositoryID, full.SessionID, "keep.txt")); got != "mine\n" {
		t.Errorf("the occupied folder's file = %q", got)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("a worktree went through the symbolic link: %v", entries)
	}
	if n := len(mustList(t, repo, root)); n != 1 {
		t.Errorf("%d worktrees under root, want 1 (the taken one)", n)
	}
}

// A detached HEAD gives no base of its own; a base branch set for the
// repository still works.
func TestCreateWithDetachedHead(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, "")
	git(t, repo, "switch", "-q", "--detach", "main")
	s := spec(repo, t.TempDir())
	_, err := Create(context.Background(), s)
	if !errors.Is(err, ErrDetachedHead) {
		t.Fatalf("Create on a detached HEAD without a base: err = %v, want ErrDetachedHead", err)
	}
	s.Base = "main"
	ws := create(t, s)
	if ws.BaseBranch != "main" {
		t.Errorf("BaseBranch = %q", ws.BaseBranch)
	}
	if _, err := CurrentBranch(context.Background(), repo); !errors.Is(err, ErrDetachedHead) {
		t.Error("Create moved the person's detached HEAD")
	}
}

// Folders with spaces, a repository reached through a symbolic link and a
// root reached through another: the whole life of a workspace works.
func TestPathsWithSpacesAndSymlinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	repo := newRepo(t, filepath.Join(base, "my projects", "the repo"))
	repoLink := filepath.Join(base, "repo link")
	if err := os.Symlink(repo, repoLink); err != nil {
		t.Fatal(err)
	}
	realData := filepath.Join(base, "real data dir")
	if err := os.MkdirAll(realData, 0o700); err != nil {
		t.Fatal(err)
	}
	dataLink := filepath.Join(base, "data link")
	if err := os.Symlink(realData, dataLink); err != nil {
		t.Fatal(err)
	}
	// The base is a branch the person does not have checked out, so
	// that landing on it (a fast-forward of the ref) leaves their checkout
	// as it is.
	git(t, repo, "branch", "develop")
	personWorks(t, repo)
	before := checkout(t, repo)
	root := filepath.Join(dataLink, "work trees")
	ctx := context.Background()

	s := spec(repoLink, root)
	s.Base = "develop"
	ws := create(t, s)
	if !strings.HasPrefix(ws.Path, realData+string(filepath.Separator)) {
		t.Errorf("Path %q is not under the resolved root %q", ws.Path, realData)
	}
	for _, r := range []string{root, filepath.Join(realData, "work trees")} {
		if l := mustList(t, repoLink, r); len(l) != 1 || l[0].Path != ws.Path {
			t.Errorf("List under %s = %+v", r, l)
		}
	}
	gittest.WriteFile(t, filepath.Join(ws.Path, "new dir", "file with spaces.txt"), "x\n")
	created, head, err := CommitAll(ctx, ws, Commit{Message: "spaces"})
	if err != nil || !created {
		t.Fatalf("CommitAll = %v, %v", created, err)
	}
	if files, err := ChangedFiles(ctx, ws); err != nil || strings.Join(files, "|") != "new dir/file with spaces.txt" {
		t.Errorf("ChangedFiles = %q, %v", files, err)
	}
	if err := Remove(ctx, ws, false); !errors.Is(err, ErrUnlanded) {
		t.Fatalf("Remove before landing: %v, want ErrUnlanded", err)
	}
	git(t, repo, "update-ref", "refs/heads/develop", head, ws.BaseCommit)
	if err := Remove(ctx, ws, false); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if exists(ws.Path) || branchExists(t, repo, ws.Branch) {
		t.Error("worktree or branch still there")
	}
	if after := checkout(t, repo); after != before {
		t.Fatalf("the person's checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// Two agents of one repository at once: each sees only its own changes and
// commits only them, on its own branch.
func TestTwoWorkspacesAreIsolated(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, "")
	personWorks(t, repo)
	before := checkout(t, repo)
	root := t.TempDir()
	ctx := context.Background()

	ids := []string{"ses_aaaa1111", "ses_bbbb2222"}
	wss := make([]Workspace, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := spec(repo, root)
			s.SessionID, s.Slug = id, "agent "+id
			wss[i], errs[i] = Create(ctx, s)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	a, b := wss[0], wss[1]
	if a.Path == b.Path || a.Branch == b.Branch {
		t.Fatalf("shared path or branch: %+v %+v", a, b)
	}
	gittest.WriteFile(t, filepath.Join(a.Path, "a.txt"), "changed by A\n")
	gittest.WriteFile(t, filepath.Join(a.Path, "only-a.txt"), "A\n")
	gittest.WriteFile(t, filepath.Join(b.Path, "src", "b.txt"), "changed by B\n")

	for _, tt := range []struct {
		ws   Workspace
		want string
	}{{a, "a.txt only-a.txt"}, {b, "src/b.txt"}} {
		st, err := Status(ctx, tt.ws)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, c := range st.Changed {
			paths = append(paths, c.Path)
		}
		if strings.Join(paths, " ") != tt.want {
			t.Errorf("%s sees %v, want %s", tt.ws.Branch, paths, tt.want)
		}
		if _, _, err := CommitAll(ctx, tt.ws, Commit{Message: "work of " + tt.ws.Branch}); err != nil {
			t.Fatal(err)
		}
		files, err := ChangedFiles(ctx, tt.ws)
		if err != nil || strings.Join(files, " ") != tt.want {
			t.Errorf("ChangedFiles(%s) = %v, %v; want %s", tt.ws.Branch, files, err, tt.want)
		}
	}
	if got := gittest.ReadFile(t, filepath.Join(b.Path, "a.txt")); got != "one\ntwo\nthree\n" {
		t.Errorf("B's a.txt = %q: A's commit reached it", got)
	}
	if exists(filepath.Join(b.Path, "only-a.txt")) {
		t.Error("A's new file is in B's worktree")
	}
	if after := checkout(t, repo); after != before {
		t.Fatalf("the person's checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, "")
	root := t.TempDir()
	ws := create(t, spec(repo, root))
	other := filepath.Join(t.TempDir(), "mine")
	git(t, repo, "worktree", "add", "-q", "--detach", other)
	git(t, repo, "worktree", "lock", "--reason", "on a USB disk", other)

	all := mustList(t, repo, "")
	if len(all) != 3 {
		t.Fatalf("List all = %+v, want 3", all)
	}
	if real, _ := filepath.EvalSymlinks(repo); all[0].Path != real || all[0].Branch != "main" {
		t.Errorf("main work tree listed as %+v", all[0])
	}
	if all[2].Path != other || !all[2].Detached || !all[2].Locked || all[2].LockReason != "on a USB disk" {
		t.Errorf("the person's worktree listed as %+v", all[2])
	}
	under := mustList(t, repo, root)
	if len(under) != 1 || under[0].Path != ws.Path || under[0].Branch != ws.Branch || under[0].Head != ws.BaseCommit {
		t.Errorf("List under root = %+v", under)
	}
	if l := mustList(t, repo, root+"2"); len(l) != 0 {
		t.Errorf("a sibling folder with root's name as prefix lists %+v", l)
	}
}

func TestParseWorktreeList(t *testing.T) {
	t.Parallel()
	in := "worktree /r\x00HEAD abc\x00branch refs/heads/main\x00\x00" +
		"worktree /w/with space\x00HEAD def\x00detached\x00locked\x00prunable gitdir file points to non-existent location\x00\x00" +
		"worktree /b\x00bare\x00future-attribute x\x00\x00"
	got, err := parseWorktreeList([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Listed{
		{Path: "/r", Head: "abc", Branch: "main"},
		{Path: "/w/with space", Head: "def", Detached: true, Locked: true, Prunable: true, PrunableReason: "gitdir file points to non-existent location"},
		{Path: "/b", Bare: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := parseWorktreeList([]byte("HEAD abc\x00")); err == nil {
		t.Error("an attribute before any worktree parsed")
	}
}

func mustList(t *testing.T, repo, root string) []Listed {
	t.Helper()
	l, err := List(context.Background(), repo, root)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A repository with no commit yet has nothing to branch a worktree from:
// Create says so, as ErrNoCommit, and makes nothing.
func TestCreateInAnEmptyRepository(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	root := filepath.Join(t.TempDir(), "worktrees")
	_, err := Create(context.Background(), spec(repo, root))
	if !errors.Is(err, ErrNoCommit) {
		t.Fatalf("Create in an empty repository: %v, want ErrNoCommit", err)
	}
	if _, err := os.Stat(root); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Create made %s anyway: %v", root, err)
	}
}
