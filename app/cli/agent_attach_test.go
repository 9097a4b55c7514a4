package cli_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/app/cli"
)

// watched is a buffer whose writes wake a reader waiting for some text.
type watched struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // capacity 1
}

func (w *watched) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	select {
	case w.changed <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *watched) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// agent attach relays what the agent prints, less what would act on the
// person's terminal beyond its screen: the agent's clipboard write, title
// and link never reach it, the link's text and the colours do.
func TestCLIAgentAttachFiltersEscapes(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	repoID := line(h.ok("repo", "add", t.TempDir()).stdout)
	ses := line(h.ok("agent", "start", "shell", "--repo", repoID).stdout)

	keys, typed := io.Pipe()
	defer typed.Close()
	out := &watched{changed: make(chan struct{}, 1)}
	code := make(chan int, 1)
	go func() {
		code <- cli.Run(context.Background(), cli.Env{Stdin: keys, Stdout: out, Stderr: io.Discard,
			Getenv: func(k string) string { return h.env[k] }, Keyring: h.kr}, []string{"agent", "attach", ses})
	}()
	// $((6*7)) makes the line printed differ from the line typed (which
	// the terminal echoes).
	typed.Write([]byte(`printf '\033]52;c;aGk=\007\033]0;owned\007\033[31m\033]8;;http://x.example\033\\link-%s\033]8;;\033\\\033[0m\n' $((6*7))` + "\r"))
	deadline := time.After(10 * time.Second)
	for !strings.Contains(out.String(), "link-42") {
		select {
		case <-out.changed:
		case <-deadline:
			t.Fatalf("attach never showed the agent's output:\n%q", out.String())
		}
	}
	typed.Write([]byte{0x1d}) // Ctrl-]
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("attach exited %d after Ctrl-]", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("attach did not detach on Ctrl-]")
	}
	got := out.String()
	for _, bad := range []string{"\x1b]52", "\x1b]0;", "\x1b]8;"} {
		if strings.Contains(got, bad) {
			t.Errorf("attach passed %q to the terminal:\n%q", bad, got)
		}
	}
	if !strings.Contains(got, "\x1b[31mlink-42") {
		t.Errorf("the link's text lost its colour:\n%q", got)
	}
}
