package supervisor

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/proctree"
)

// The ConPTY tests. They are built and vetted on Linux (make vet-cross)
// and have never run: no Windows machine was at hand. They use only what
// every Windows has (cmd.exe, mode, ping).

// readUntilMatch reads from r until re matches what was read since the
// call, or the deadline passes. ConPTY repaints the screen on a resize, so
// a plain substring could match the old size.
func readUntilMatch(t *testing.T, r io.Reader, re *regexp.Regexp) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		var buf bytes.Buffer
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			buf.Write(b[:n])
			if m := re.FindString(buf.String()); m != "" {
				found <- m
				return
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case m := <-found:
		return m
	case <-time.After(10 * time.Second):
		t.Fatalf("no match of %v in the console output", re)
		return ""
	}
}

func TestConPTYSizeResizeAndExitCode(t *testing.T) {
	p, err := Start(Spec{Path: "cmd.exe", Args: []string{"/d", "/c", "mode con & set /p line= & mode con & exit 7"}, Cols: 100, Rows: 30})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	readUntilMatch(t, p.PTY(), regexp.MustCompile(`Columns:\s+100`))
	if err := p.Resize(120, 40); err != nil {
		t.Fatal(err)
	}
	p.PTY().Write([]byte("go\r"))
	readUntilMatch(t, p.PTY(), regexp.MustCompile(`Columns:\s+120`))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if code, err := p.Wait(ctx); err != nil || code != 7 {
		t.Fatalf("exit code %d, %v; want 7", code, err)
	}
}

func TestConPTYKillEndsTheTree(t *testing.T) {
	p, err := Start(Spec{Path: "cmd.exe", Args: []string{"/d", "/c", "start /b ping -n 60 127.0.0.1 >nul & echo started & ping -n 60 127.0.0.1 >nul"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	readUntilMatch(t, p.PTY(), regexp.MustCompile(`started`))
	tree, err := proctree.Descendants(p.PID())
	if err != nil || len(tree) == 0 {
		t.Fatalf("descendants of the shell: %v, %v; want the pings", tree, err)
	}
	if err := p.SignalGroup(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if code, err := p.Wait(ctx); err != nil || code != -1 {
		t.Fatalf("exit %d, %v; want killed (-1)", code, err)
	}
	if sig, ok := p.exitSignal(); !ok || sig != syscall.SIGKILL.String() {
		t.Errorf("exit signal %q, %v; want %q", sig, ok, syscall.SIGKILL.String())
	}
	for _, pid := range tree {
		if _, err := proctree.StartTime(pid); err == nil {
			t.Errorf("process %d of the tree still runs after the kill", pid)
		}
	}
}

func TestConPTYInterruptIsCtrlC(t *testing.T) {
	p, err := Start(Spec{Path: "ping.exe", Args: []string{"-n", "60", "127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	readUntilMatch(t, p.PTY(), regexp.MustCompile(`127\.0\.0\.1`))
	if err := p.SignalGroup(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := p.Wait(ctx); err != nil {
		t.Fatalf("ping did not end on Ctrl-C: %v", err)
	}
	if _, killed := p.exitSignal(); killed {
		t.Error("reported as killed; it was interrupted")
	}
}
