package confine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	RunHelper(os.Args)
	os.Exit(m.Run())
}

// layout is a home with a key, Switchboard's data folder with the agent's
// worktree, another agent's worktree and the database in it, and a token.
type layout struct {
	home, data, wt, other, token, outside string
}

func newLayout(t *testing.T) layout {
	t.Helper()
	// Not under /tmp: the sandbox lays a private /tmp over it, and
	// Landlock leaves the shared one writable.
	root, err := os.MkdirTemp("/var/tmp", "confine-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	l := layout{
		home: filepath.Join(root, "home"), data: filepath.Join(root, "home/.local/share/switchboard"),
		outside: filepath.Join(root, "checkout"),
	}
	l.wt = filepath.Join(l.data, "worktrees/r/ses_a")
	l.other = filepath.Join(l.data, "worktrees/r/ses_b")
	l.token = filepath.Join(root, "run/sessions/ses_a.token")
	for _, f := range []string{
		filepath.Join(l.home, ".ssh/id_ed25519"), filepath.Join(l.data, "state.db"),
		filepath.Join(l.wt, "README"), filepath.Join(l.other, "secret"), l.token,
		filepath.Join(l.outside, "work.txt"), filepath.Join(l.home, ".netrc"),
	} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func (l layout) policy() Policy {
	return Policy{
		Home: l.home, Dir: l.wt, Writable: []string{l.wt},
		Hidden: append(HomeSecrets(l.home), l.data, filepath.Dir(l.token)),
		Files:  []File{{Src: l.token, Dst: "/tmp/switchboard/token"}},
	}
}

func TestCheck(t *testing.T) {
	l := newLayout(t)
	link := filepath.Join(l.home, "link")
	if err := os.Symlink(l.outside, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(p *Policy)
		want string // in the error; "" for none
	}{
		{"good", func(p *Policy) {}, ""},
		{"root writable", func(p *Policy) { p.Writable = append(p.Writable, "/") }, "whole of /"},
		{"home writable", func(p *Policy) { p.Writable = append(p.Writable, l.home) }, "whole of " + l.home},
		{"home's parent writable", func(p *Policy) { p.Writable = append(p.Writable, filepath.Dir(l.home)) }, "whole of " + l.home},
		{"worktree through a link", func(p *Policy) { p.Dir, p.Writable = link, []string{link} }, "through a link"},
		{"relative", func(p *Policy) { p.Writable = append(p.Writable, "wt") }, "not an absolute path"},
		{"dir not writable", func(p *Policy) { p.Dir = l.outside }, "is not writable"},
		{"hide home", func(p *Policy) { p.Hidden = append(p.Hidden, l.home) }, "would hide"},
		{"hidden and writable", func(p *Policy) { p.Hidden = append(p.Hidden, l.wt) }, "both writable and hidden"},
		{"relative file", func(p *Policy) { p.Files = []File{{Src: l.token, Dst: "token"}} }, "absolute and clean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := l.policy()
			tt.edit(&p)
			_, err := Check(p)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Check: %v", err)
			case tt.want != "" && (err == nil || !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Check: %v, want %q", err, tt.want)
			}
		})
	}
	c, err := Check(l.policy())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, ".aws does not exist") }) {
		t.Errorf("notes %q do not say the missing ~/.aws was left out", c.Notes)
	}
	if !slices.Contains(c.HiddenFiles, filepath.Join(l.home, ".netrc")) || !slices.Contains(c.HiddenDirs, l.data) {
		t.Errorf("hidden %q / %q", c.HiddenDirs, c.HiddenFiles)
	}
}

func TestBwrapArgsDeeperWins(t *testing.T) {
	c := Checked{Dir: "/d/w/s", Writable: []string{"/d/w/s"}, HiddenDirs: []string{"/d"}, HiddenFiles: []string{"/h/.netrc"},
		Files: []File{{Src: "/r/t", Dst: "/tmp/switchboard/token"}}}
	got := strings.Join(BwrapArgs(c), " ")
	for _, order := range [][2]string{
		{"--tmpfs /tmp", "--tmpfs /d"},
		{"--tmpfs /d", "--bind /d/w/s /d/w/s"},
		{"--ro-bind /dev/null /h/.netrc", "--ro-bind /r/t /tmp/switchboard/token"},
		{"--bind /d/w/s /d/w/s", "--chdir /d/w/s --"},
	} {
		i, j := strings.Index(got, order[0]), strings.Index(got, order[1])
		if i < 0 || j < 0 || i > j {
			t.Errorf("want %q before %q in %s", order[0], order[1], got)
		}
	}
	if !strings.HasPrefix(got, "--unshare-pid --unshare-ipc --unshare-uts") || !strings.Contains(got, "--cap-drop ALL") {
		t.Errorf("namespaces or capabilities missing: %s", got)
	}
}

// escapes is a script run as the confined agent: each line prints what it
// could do, so one run shows every boundary.
const escapes = `
cat "$HOME/.ssh/id_ed25519" >/dev/null 2>&1 && echo read-ssh
cat "$DATA/state.db" >/dev/null 2>&1 && echo read-db
cat "$OTHER/secret" >/dev/null 2>&1 && echo read-other
{ echo y >"$OUTSIDE/work.txt"; } 2>/dev/null && echo wrote-checkout
{ echo y >"$HOME/.bashrc"; } 2>/dev/null && echo wrote-home
{ echo y >"$WT/new"; } 2>/dev/null && echo wrote-worktree
cat "$TOKEN" >/dev/null 2>&1 && echo read-token
cat /etc/hostname >/dev/null 2>&1 && echo read-etc
[ -n "$ABSTRACT" ] && python3 -c "$CONNECT" "$ABSTRACT" 2>/dev/null && echo reached-abstract
echo done
`

// connectAbstract is a Python program that connects to the abstract Unix
// socket its argument names (a shell cannot).
const connectAbstract = "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect('\\0'+sys.argv[1])"

// abstractListener listens on an abstract Unix socket, as a session bus
// does, and checks that a process outside any sandbox reaches it (so that
// a sandbox's refusal means something); "" when python3 is not here.
func abstractListener(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		return ""
	}
	name := fmt.Sprintf("switchboard-test-%d", os.Getpid())
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if out, err := exec.Command("python3", "-c", connectAbstract, name).CombinedOutput(); err != nil {
		t.Fatalf("the abstract socket cannot be reached even unconfined: %v\n%s", err, out)
	}
	return name
}

func TestSandboxHolds(t *testing.T) {
	sup := Probe(context.Background(), "bwrap")
	l := newLayout(t)
	c, err := Check(l.policy())
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	abstract := abstractListener(t)
	run := func(t *testing.T, name string, args []string, token string) []string {
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), "HOME="+l.home, "DATA="+l.data, "OTHER="+l.other, "OUTSIDE="+l.outside, "WT="+l.wt, "TOKEN="+token,
			"ABSTRACT="+abstract, "CONNECT="+connectAbstract)
		cmd.Dir = l.wt
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run: %v\n%s", err, out)
		}
		return strings.Fields(string(out))
	}
	t.Run("bubblewrap", func(t *testing.T) {
		if sup.Bwrap == "" {
			t.Skip(sup.BwrapWhy)
		}
		// The test binary is under /tmp, which the sandbox replaces: bind
		// it back as the app binds itself.
		cc := c
		cc.ReadOnly = append(cc.ReadOnly, exe)
		args := append(BwrapArgs(cc), exe)
		args = append(args, HelperArgs(HelperOptions{Scope: true}, "sh", []string{"-c", escapes})...)
		got := run(t, sup.Bwrap, args, "/tmp/switchboard/token")
		if want := []string{"wrote-worktree", "read-token", "read-etc", "done"}; !slices.Equal(got, want) {
			t.Errorf("inside bubblewrap the agent could %q, want only %q", got, want)
		}
	})
	t.Run("landlock", func(t *testing.T) {
		if sup.Landlock == 0 {
			t.Skip("no Landlock in this kernel")
		}
		args := HelperArgs(HelperOptions{Landlock: &c}, "sh", []string{"-c", escapes})
		got := run(t, exe, args, l.token)
		if want := []string{"wrote-worktree", "read-token", "read-etc", "done"}; !slices.Equal(got, want) {
			t.Errorf("under Landlock the agent could %q, want only %q", got, want)
		}
	})
}
