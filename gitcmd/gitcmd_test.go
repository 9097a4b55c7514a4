package gitcmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

func TestRunReturnsStdout(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	out, err := Run(context.Background(), dir, "rev-parse", "--show-toplevel")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(dir)
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("toplevel = %q, want %q", got, want)
	}
}

// Arguments reach git as they are: nothing in them is read by a shell.
func TestRunPassesArgumentsWithoutShell(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	for _, arg := range []string{"$(touch " + marker + ")", "main; touch " + marker, "`touch " + marker + "`", "main && touch " + marker} {
		_, err := Run(context.Background(), dir, "rev-parse", "--verify", "--quiet", arg)
		if code, ok := ExitCode(err); !ok || code != 1 {
			t.Errorf("rev-parse %q: err = %v, want exit status 1", arg, err)
		}
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("a shell ran: %s exists (%v)", marker, err)
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	// A value in the environment must never reach a message.
	tests := []struct {
		name     string
		args     []string
		code     int
		message  string // the start of Error()
		stderr   string // in Stderr
		notInMsg string
	}{
		{
			name:    "unknown revision",
			args:    []string{"rev-parse", "--verify", "no-such-branch"},
			code:    128,
			message: "git rev-parse: exit status 128: fatal: Needed a single revision",
			stderr:  "Needed a single revision",
		},
		{
			name:     "nothing to commit, message left out",
			args:     []string{"commit", "-m", "a secret commit message"},
			code:     1,
			message:  "git commit: exit status 1",
			notInMsg: "a secret commit message",
		},
		{
			name:    "action named",
			args:    []string{"worktree", "add", filepath.Join(dir, "wt"), "no-such-commit"},
			code:    128,
			message: "git worktree add: exit status 128: fatal: invalid reference: no-such-commit",
			stderr:  "invalid reference",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), dir, tt.args...)
			var ge *Error
			if !errors.As(err, &ge) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if ge.ExitCode != tt.code {
				t.Errorf("ExitCode = %d, want %d", ge.ExitCode, tt.code)
			}
			if strings.Join(ge.Args, " ") != strings.Join(tt.args, " ") {
				t.Errorf("Args = %q, want %q", ge.Args, tt.args)
			}
			if !strings.HasPrefix(ge.Error(), tt.message) {
				t.Errorf("Error() = %q, want it to start with %q", ge.Error(), tt.message)
			}
			if !strings.Contains(ge.Stderr, tt.stderr) {
				t.Errorf("Stderr = %q, want %q in it", ge.Stderr, tt.stderr)
			}
			if tt.notInMsg != "" && strings.Contains(ge.Error(), tt.notInMsg) {
				t.Errorf("Error() = %q carries the argument %q", ge.Error(), tt.notInMsg)
			}
			if code, ok := ExitCode(err); !ok || code != tt.code {
				t.Errorf("ExitCode(err) = %d, %v", code, ok)
			}
		})
	}
}

func TestRunWithoutGit(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Run(context.Background(), t.TempDir(), "status")
	var ge *Error
	if !errors.As(err, &ge) || ge.ExitCode != -1 || !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("err = %v, want *Error with ExitCode -1 wrapping exec.ErrNotFound", err)
	}
	if _, ok := ExitCode(err); ok {
		t.Error("ExitCode reports a status for a git that never ran")
	}
}

func TestRunNeedsFolderAndSubcommand(t *testing.T) {
	t.Parallel()
	if _, err := Run(context.Background(), "", "status"); err == nil {
		t.Error("Run with no folder ran")
	}
	if _, err := Run(context.Background(), t.TempDir()); err == nil {
		t.Error("Run with no arguments ran")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, t.TempDir(), "version"); !errors.Is(err, context.Canceled) {
		t.Errorf("Run on a cancelled context: err = %v", err)
	}
}

func TestRunInput(t *testing.T) {
	t.Parallel()
	out, err := RunInput(context.Background(), t.TempDir(), []byte("hello\n"), "hash-object", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Errorf("hash of hello = %s", got)
	}
	// Without input, git reads an empty standard input and never waits.
	out, err = Run(context.Background(), t.TempDir(), "hash-object", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391" {
		t.Errorf("hash of nothing = %s", got)
	}
}

// The environment git sees is fixed, whatever the tray inherited. A clean
// filter (the repository's configuration, which git still runs: see
// safeConfig) writes out the environment git gave the programs it starts.
func TestRunEnvironment(t *testing.T) {
	dir := newRepo(t)
	other := newRepo(t)
	// Inherited variables that would send git to another repository or
	// change what it records; Run must drop them.
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	t.Setenv("GIT_AUTHOR_DATE", "2001-01-01T00:00:00Z")
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	t.Setenv("LANG", "de_DE.UTF-8")
	t.Setenv("GIT_EDITOR", "vi")
	// The app's own secrets, which nothing git starts may see.
	t.Setenv("SWITCHBOARD_CLIENT_TOKEN", "sbt_secret-client-token")
	t.Setenv("PGPASSWORD", "secret-pg-password")
	t.Setenv("DATABASE_URL", "postgres://u:secret-db-url@h/db")
	t.Setenv("SSH_AUTH_SOCK", "/run/agent.sock")
	envFile := filepath.Join(t.TempDir(), "env")
	writeFilter(t, dir, "env > '"+envFile+"'; cat")
	gittest.WriteFile(t, filepath.Join(dir, "x.probe"), "x\n")
	git(t, dir, "add", "x.probe")
	git(t, dir, "commit", "-q", "-m", "env")

	env := gittest.ReadFile(t, envFile)
	for _, want := range []string{"GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "GIT_CONFIG_NOSYSTEM=1",
		"SSH_AUTH_SOCK=/run/agent.sock", "HOME=" + os.Getenv("HOME")} {
		if !strings.Contains("\n"+env, "\n"+want+"\n") {
			t.Errorf("filter environment lacks %s", want)
		}
	}
	// git puts its own exec path first.
	if !strings.Contains(env, ":"+os.Getenv("PATH")+"\n") {
		t.Errorf("filter environment lacks the PATH git was given:\n%s", env)
	}
	for _, bad := range []string{"de_DE", "2001-01-01", "secret-", "SWITCHBOARD_", "PGPASSWORD", "DATABASE_URL", "LANG="} {
		if strings.Contains(env, bad) {
			t.Errorf("%q reached git:\n%s", bad, env)
		}
	}
	if got := strings.TrimSpace(git(t, dir, "log", "-1", "--format=%s %ad", "--date=format:%Y")); !strings.HasPrefix(got, "env ") || strings.HasSuffix(got, " 2001") {
		t.Errorf("commit in %s: %q", dir, got)
	}
	for v, want := range map[string]string{"GIT_EDITOR": "true", "GIT_PAGER": "cat"} {
		if got := strings.TrimSpace(git(t, dir, "var", v)); got != want {
			t.Errorf("git var %s = %q, want %q", v, got, want)
		}
	}
	if n := strings.TrimSpace(git(t, other, "rev-list", "--count", "HEAD")); n != "1" {
		t.Errorf("the inherited GIT_DIR's repository got the commit: %s commits", n)
	}
}

func TestEnviron(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		parent []string
		want   []string // before fixedEnv
	}{
		{
			name: "git's own variables",
			parent: []string{"PATH=/bin", "HOME=/h", "GIT_DIR=/x/.git", "GIT_INDEX_FILE=/x/i", "GIT_CONFIG_PARAMETERS='a.b'=c",
				"GIT_CONFIG_GLOBAL=/h/cfg", "GIT_SSH_COMMAND=ssh -i k", "LC_ALL=fr_FR", "PAGER=less", "GIT_TERMINAL_PROMPT=1"},
			want: []string{"PATH=/bin", "HOME=/h", "GIT_CONFIG_GLOBAL=/h/cfg", "GIT_SSH_COMMAND=ssh -i k"},
		},
		{
			name: "the app's secrets and settings",
			parent: []string{"SWITCHBOARD_CLIENT_TOKEN=t", "SWITCHBOARD_RUNTIME_DIR=/run/sb", "PGPASSWORD=p", "PGHOST=h",
				"DATABASE_URL=postgres://x", "GH_TOKEN=g", "GITHUB_TOKEN=g", "ANTHROPIC_API_KEY=k", "LANG=de_DE.UTF-8",
				"LC_MESSAGES=de_DE", "EDITOR=vi", "XDG_RUNTIME_DIR=/run/user/1", "TERM=xterm"},
		},
		{
			name: "what git and a push need",
			parent: []string{"USER=p", "LOGNAME=p", "TMPDIR=/t", "XDG_CONFIG_HOME=/h/.config", "SSH_AUTH_SOCK=/s",
				"https_proxy=http://proxy:3128", "NO_PROXY=localhost", "GNUPGHOME=/h/.gnupg", "Path=C:\\bin"},
			want: []string{"USER=p", "LOGNAME=p", "TMPDIR=/t", "XDG_CONFIG_HOME=/h/.config", "SSH_AUTH_SOCK=/s",
				"https_proxy=http://proxy:3128", "NO_PROXY=localhost", "GNUPGHOME=/h/.gnupg", "Path=C:\\bin"},
		},
	}
	for _, tt := range tests {
		got := environ(tt.parent)
		want := append(append([]string(nil), tt.want...), fixedEnv()...)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: environ =\n%s\nwant\n%s", tt.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// A git that outlives its deadline is stopped with its whole process
// group, promptly, and gets to remove its lock files.
func TestRunTimeout(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"context deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 300*time.Millisecond)
		}},
		{"default timeout", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := newRepo(t)
			// The filter's sleep is git's grandchild and holds its stderr.
			writeFilter(t, dir, "sleep 30; cat")
			gittest.WriteFile(t, filepath.Join(dir, "slow.probe"), "slow\n")
			ctx, cancel := tt.ctx()
			defer cancel()
			start := time.Now()
			_, err := run(ctx, folder(dir), nil, limits{stdout: MaxStdout, timeout: 300 * time.Millisecond}, []string{"add", "slow.probe"})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want a deadline", err)
			}
			if d := time.Since(start); d > stopGrace-time.Second {
				t.Errorf("Run returned after %v: the filter's sleep outlived git", d)
			}
			if _, err := os.Stat(filepath.Join(dir, ".git", "index.lock")); !os.IsNotExist(err) {
				t.Errorf("index.lock left behind (%v)", err)
			}
		})
	}
}

func TestRunStdoutLimit(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	gittest.WriteFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("x", 1<<20))
	git(t, dir, "add", "big.txt")
	git(t, dir, "commit", "-q", "-m", "big")
	lim := limits{stdout: 1 << 16, timeout: time.Minute}
	_, err := run(context.Background(), folder(dir), nil, lim, []string{"cat-file", "blob", "HEAD:big.txt"})
	if !errors.Is(err, ErrOutputTooLarge) {
		t.Fatalf("err = %v, want ErrOutputTooLarge", err)
	}
	out, err := run(context.Background(), folder(dir), nil, lim, []string{"cat-file", "blob", "HEAD:a.txt"})
	if err != nil || string(out) != "one\n" {
		t.Fatalf("small output: %q, %v", out, err)
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		writes []string
		want   string
	}{
		{[]string{"abc"}, "abc"},
		{[]string{"abc", "def"}, "cdef"},
		{[]string{"abcdefgh"}, "efgh"},
		{[]string{"ab", "cdefghij", "k"}, "hijk"},
	}
	for _, tt := range tests {
		tl := &tail{max: 4}
		for _, w := range tt.writes {
			if n, err := tl.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", w, n, err)
			}
		}
		if tl.String() != tt.want {
			t.Errorf("%q: tail = %q, want %q", tt.writes, tl.String(), tt.want)
		}
	}
}

func TestErrorMessageKeepsLastLines(t *testing.T) {
	t.Parallel()
	e := &Error{Args: []string{"-c", "a=b", "stash", "push", "-m", "x"}, ExitCode: 1, Stderr: "hint: one\nhint: two\n\nerror: three\nfatal: four\n"}
	if got, want := e.Error(), "git stash push: exit status 1: hint: two; error: three; fatal: four"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestSubcommand(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"status", "--porcelain"}, "status"},
		{[]string{"worktree", "add", "-b", "x", "/p"}, "worktree add"},
		{[]string{"worktree", "--help"}, "worktree"},
		{[]string{"-c", "user.name=x", "commit", "-m", "y"}, "commit"},
		{[]string{"stash", "drop"}, "stash drop"},
		{nil, "(no subcommand)"},
	} {
		if got := Subcommand(tt.args); got != tt.want {
			t.Errorf("Subcommand(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// writeFilter makes the repository run the shell command clean as the
// clean filter of every *.probe file: a program git starts that the
// repository's configuration names and that, unlike a hook, still runs.
func writeFilter(t *testing.T, repo, clean string) {
	t.Helper()
	git(t, repo, "config", "filter.probe.clean", clean)
	gittest.WriteFile(t, filepath.Join(repo, ".git", "info", "attributes"), "*.probe filter=probe\n")
}
