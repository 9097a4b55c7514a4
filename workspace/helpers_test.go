package workspace

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

func TestMain(m *testing.M) { gittest.Main(m) }

const sessionID = "ses_3f2a9c1e7b0d4e5f6a7b"

// newRepo makes a repository in dir (made if missing; "" for a
// temporary one) on branch main, with an identity and one commit of a.txt
// and src/b.txt.
func newRepo(t *testing.T, dir string) string {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "config", "user.name", "Test Person")
	git(t, dir, "config", "user.email", "person@example.test")
	gittest.WriteFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	gittest.WriteFile(t, filepath.Join(dir, "src", "b.txt"), "bee\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// personWorks leaves the kinds of work a person has in their checkout: a
// staged change, a further unstaged change to the same file, a change to
// another file and an untracked file.
func personWorks(t *testing.T, repo string) {
	t.Helper()
	gittest.WriteFile(t, filepath.Join(repo, "a.txt"), "one\ntwo (staged)\nthree\n")
	git(t, repo, "add", "a.txt")
	gittest.WriteFile(t, filepath.Join(repo, "a.txt"), "one\ntwo (staged)\nthree (not staged)\n")
	gittest.WriteFile(t, filepath.Join(repo, "src", "b.txt"), "bee, edited\n")
	gittest.WriteFile(t, filepath.Join(repo, "notes.txt"), "the person's untracked notes\n")
}

// checkout describes the person's checkout: status, HEAD, what is staged,
// and every file's content outside .git.
func checkout(t *testing.T, repo string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(git(t, repo, "status", "--porcelain=v1", "--untracked-files=all"))
	b.WriteString(git(t, repo, "rev-parse", "--symbolic-full-name", "HEAD"))
	b.WriteString(git(t, repo, "rev-parse", "HEAD"))
	b.WriteString(git(t, repo, "diff", "--cached"))
	b.WriteString(git(t, repo, "stash", "list"))
	var files []string
	err := filepath.Walk(repo, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && info.Name() == ".git" {
			return filepath.SkipDir
		}
		if info.Mode().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, f := range files {
		b.WriteString("== " + f + "\n" + gittest.ReadFile(t, f))
	}
	return b.String()
}

func spec(repo, root string) Spec {
	return Spec{RepoPath: repo, Root: root, RepositoryID: "repo_0123456789abcdef", SessionID: sessionID, Slug: "Fix the login bug"}
}

func create(t *testing.T, s Spec) Workspace {
	t.Helper()
	ws, err := Create(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// git runs a setup command and fails the test on error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitcmd.Run(context.Background(), dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// conflict leaves ws in a merge stopped on a conflict in a.txt: the base
// branch and the workspace's branch both changed its line.
func conflict(t *testing.T, repo string, ws Workspace) {
	t.Helper()
	gittest.WriteFile(t, filepath.Join(repo, "a.txt"), "main's line\n")
	git(t, repo, "commit", "-q", "-am", "main")
	gittest.WriteFile(t, filepath.Join(ws.Path, "a.txt"), "agent's line\n")
	git(t, ws.Path, "commit", "-q", "-am", "agent")
	if _, err := gitcmd.Run(context.Background(), ws.Path, "merge", "-q", ws.BaseBranch); err == nil {
		t.Fatal("merge succeeded; the test wants a conflict")
	}
}

func gitLine(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(git(t, dir, args...))
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func branchExists(t *testing.T, repo, branch string) bool {
	t.Helper()
	_, err := gitcmd.Run(context.Background(), repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	if code, ok := gitcmd.ExitCode(err); ok && code == 1 {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}
