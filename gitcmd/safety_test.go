package gitcmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// plainGit runs git as a person would, outside gitcmd, in dir.
func plainGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = environ(os.Environ())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// No call through Run starts a hook or the fsmonitor, wherever the
// repository's configuration puts them; the same calls outside gitcmd do,
// which shows the trap is real.
func TestRunStartsNoHookNorFSMonitor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t)
	markers := gittest.PlantTraps(t, repo)
	remote := t.TempDir()
	git(t, remote, "init", "-q", "--bare")
	git(t, repo, "remote", "add", "origin", remote)
	wt := filepath.Join(t.TempDir(), "wt")

	calls := []struct {
		name string
		args []string
	}{
		{"status", []string{"status", "--porcelain=v2"}},
		{"diff", []string{"diff", "HEAD"}},
		{"add", []string{"add", "--all"}},
		{"commit", []string{"commit", "-q", "--allow-empty", "-m", "work"}},
		{"worktree add", []string{"worktree", "add", "-q", "-b", "side", wt}},
		{"checkout", []string{"checkout", "-q", "-b", "other"}},
		{"switch back", []string{"checkout", "-q", "main"}},
		{"update-ref", []string{"update-ref", "refs/heads/side", "HEAD"}},
		{"merge", []string{"merge", "-q", "--ff-only", "other"}},
		{"push", []string{"push", "-q", "origin", "main"}},
		{"worktree list", []string{"worktree", "list", "--porcelain"}},
	}
	for _, c := range calls {
		gittest.WriteFile(t, filepath.Join(repo, "a.txt"), "changed by "+c.name+"\n")
		if _, err := Run(ctx, repo, c.args...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := gittest.Fired(t, markers); len(got) > 0 {
			t.Fatalf("after %s, these ran: %v", c.name, got)
		}
	}
	if _, err := Run(ctx, wt, "commit", "-q", "--allow-empty", "-m", "in the worktree"); err != nil {
		t.Fatal(err)
	}
	if got := gittest.Fired(t, markers); len(got) > 0 {
		t.Fatalf("a commit in a linked worktree ran %v", got)
	}

	plainGit(t, repo, "commit", "-q", "--allow-empty", "-m", "as the person")
	got := strings.Join(gittest.Fired(t, markers), " ")
	for _, want := range []string{"pre-commit", "commit-msg", "post-commit", "reference-transaction", "fsmonitor"} {
		if !strings.Contains(got, want) {
			t.Errorf("plain git ran %q, not %s: the trap is not set", got, want)
		}
	}
}

// SafeConfigEnv holds a git that another program starts (gh) to the same
// configuration.
func TestSafeConfigEnv(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	markers := gittest.PlantTraps(t, repo)
	parent := append(os.Environ(), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=.husky")
	var env []string
	for _, kv := range parent {
		if name, _, _ := strings.Cut(kv, "="); !IsConfigVar(name) {
			env = append(env, kv)
		}
	}
	env = append(env, SafeConfigEnv()...)
	for _, args := range [][]string{{"status"}, {"commit", "-q", "--allow-empty", "-m", "gh's"}} {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if got := gittest.Fired(t, markers); len(got) > 0 {
		t.Fatalf("with SafeConfigEnv, these ran: %v", got)
	}
}

// linked makes a linked worktree of repo and returns its Tree.
func linked(t *testing.T, repo, branch string) Tree {
	t.Helper()
	path := filepath.Join(t.TempDir(), branch)
	git(t, repo, "worktree", "add", "-q", "-b", branch, path)
	path, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	common, err := CommonDir(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := LinkedTree(context.Background(), common, path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// A worktree whose .git file was pointed at a git folder of the agent's
// own, with its own config, HEAD and objects: RunTree acts on the
// repository's record of the worktree and reads none of it.
func TestRunTreeIgnoresTheWorktreesGitFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := newRepo(t)
	tr := linked(t, repo, "agent")
	markers := t.TempDir()
	evil := filepath.Join(tr.WorkTree, ".evil")
	// A git folder like any other (not bare), so that git finds a work
	// tree for it: the folder its .git file is in.
	git(t, t.TempDir(), "init", "-q", "-b", "evil", "--separate-git-dir="+evil, t.TempDir())
	git(t, evil, "config", "core.fsmonitor", "touch '"+filepath.Join(markers, "fsmonitor")+"'; false #")
	gittest.WriteFile(t, filepath.Join(tr.WorkTree, ".git"), "gitdir: .evil\n")
	gittest.WriteFile(t, filepath.Join(tr.WorkTree, "a.txt"), "the agent's change\n")

	for _, args := range [][]string{
		{"status", "--porcelain=v2", "--branch"},
		{"diff", "HEAD"},
		{"add", "--all"},
		{"commit", "-q", "-m", "agent"},
		{"worktree", "list", "--porcelain"},
	} {
		if _, err := RunTree(ctx, tr, args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	if got := gittest.Fired(t, markers); len(got) > 0 {
		t.Fatalf("the worktree's own git folder's config ran: %v", got)
	}
	out, err := RunTree(ctx, tr, "rev-parse", "--absolute-git-dir", "--git-common-dir", "--abbrev-ref", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if want := tr.GitDir + "\n" + tr.CommonDir + "\nagent\n"; string(out) != want {
		t.Errorf("git in the worktree sees\n%s\nwant\n%s", out, want)
	}
	if got := strings.TrimSpace(git(t, repo, "log", "-1", "--format=%s", "agent")); got != "agent" {
		t.Errorf("the commit is not on the repository's branch agent: %q", got)
	}
	// The same status as git finds the repository itself runs the trap.
	plainGit(t, tr.WorkTree, "status")
	if got := gittest.Fired(t, markers); len(got) != 1 {
		t.Errorf("plain git in the worktree ran %v, want the fsmonitor: the trap is not set", got)
	}
}

func TestLinkedTreeRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name string
		// change alters the repository and returns the folder to look up.
		change func(t *testing.T, repo string, tr Tree) string
		want   error
	}{
		{"the main work tree", func(t *testing.T, repo string, tr Tree) string { return repo }, ErrNotLinkedTree},
		{"a folder inside", func(t *testing.T, repo string, tr Tree) string {
			return filepath.Join(tr.WorkTree, "sub")
		}, ErrNotLinkedTree},
		{"a second entry naming the folder", func(t *testing.T, repo string, tr Tree) string {
			other := linked(t, repo, "other")
			gittest.WriteFile(t, filepath.Join(other.GitDir, "gitdir"), filepath.Join(tr.WorkTree, ".git")+"\n")
			return tr.WorkTree
		}, ErrUntrustedTree},
		{"commondir naming another repository", func(t *testing.T, repo string, tr Tree) string {
			gittest.WriteFile(t, filepath.Join(tr.GitDir, "commondir"), filepath.Join(tr.WorkTree, ".evil")+"\n")
			return tr.WorkTree
		}, ErrUntrustedTree},
		{"config.worktree git reads", func(t *testing.T, repo string, tr Tree) string {
			git(t, repo, "config", "extensions.worktreeConfig", "true")
			gittest.WriteFile(t, filepath.Join(tr.GitDir, "config.worktree"), "[core]\n\tfsmonitor = touch x\n")
			return tr.WorkTree
		}, ErrUntrustedTree},
		{"config.worktree git ignores", func(t *testing.T, repo string, tr Tree) string {
			gittest.WriteFile(t, filepath.Join(tr.GitDir, "config.worktree"), "[core]\n\tfsmonitor = touch x\n")
			return tr.WorkTree
		}, nil},
		{"the worktree as git made it", func(t *testing.T, repo string, tr Tree) string { return tr.WorkTree }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			tr := linked(t, repo, "agent")
			path := tt.change(t, repo, tr)
			got, err := LinkedTree(ctx, tr.CommonDir, path)
			if !errors.Is(err, tt.want) || tt.want == nil && got != tr {
				t.Errorf("LinkedTree = %+v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// A Tree missing a folder is refused before git starts.
func TestRunTreeWantsEveryFolder(t *testing.T) {
	t.Parallel()
	for _, tr := range []Tree{{}, {WorkTree: "/w", GitDir: "/g"}, {WorkTree: "w", GitDir: "/g", CommonDir: "/c"}} {
		if _, err := RunTree(context.Background(), tr, "status"); err == nil || !strings.Contains(err.Error(), "absolute") {
			t.Errorf("RunTree(%+v) = %v", tr, err)
		}
	}
}
