//go:build linux

package supervisor

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/asciicast"
	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// screenAgentEnv makes the test binary the agent of screenLaunch.
const screenAgentEnv = "SB_TEST_SCREEN_AGENT"

// screenReady is what the screen agent shows once it has printed all it
// prints unasked.
const screenReady = "SCREEN READY"

// TestHostScreenAgent is the agent screenLaunch starts: a full-screen
// program that has printed more than the 4 MiB an output ring kept. Early
// on it sets a title and a mode and prints lines that only a screen state
// still holds; then screens of lines coloured cell by cell, cursor moves
// on the main screen, and a drawing on the alternate screen it stays on.
// Each line of input it then answers on that screen.
func TestHostScreenAgent(t *testing.T) {
	if os.Getenv(screenAgentEnv) == "" {
		t.Skip("the agent of the host's screen tests")
	}
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	fmt.Fprint(w, "\x1b]0;screen agent\x07\x1b[?2004h\x1b[?1049h\x1b[2J\x1b[5;5H\x1b[1;31malt early\x1b[0m\x1b[?1049l")
	for i := range 4000 {
		fmt.Fprintf(w, "early line %d\n", i)
	}
	// Rows of 79 cells, each with a colour of its own: about 1 KiB a row,
	// so the newest 4 MiB hold fewer rows than the scrollback does.
	for i, n := 0, 0; n < 5<<20; i++ {
		m := w.Buffered()
		fmt.Fprintf(w, "\x1b[1m%06d\x1b[22m", i)
		for x := range 73 {
			fmt.Fprintf(w, "\x1b[38;5;%d;48;5;%dm%c", (i+x)%256, (i*7+x)%256, 'a'+rune(x%26))
		}
		fmt.Fprint(w, "\x1b[0m\n")
		n += w.Buffered() - m
		if w.Available() < 4096 {
			w.Flush()
		}
	}
	fmt.Fprint(w, "\x1b[3;10H\x1b[44;97mmoved\x1b[0m\x1b[10;1H\x1b[2Kline ten\x1b[4 q")
	fmt.Fprint(w, "\x1b[?1049h\x1b[H\x1b[2J\x1b[7mTUI\x1b[0m\x1b[12;40H\x1b[38;5;208m"+screenReady+"\x1b[0m\x1b[?1h\x1b[20;3H")
	w.Flush()
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		fmt.Printf("\x1b[H\x1b[2K\x1b[32mgot %s\x1b[0m\x1b[5;5H", sc.Text())
	}
}

// screenLaunch is a launch of TestHostScreenAgent, this test binary.
func screenLaunch(t testing.TB, dir, id string) hostwire.Launch {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return hostwire.Launch{Session: id, Path: self, Args: []string{"-test.run=^TestHostScreenAgent$"}, Dir: dir,
		Env: []string{"PATH=/usr/bin:/bin", "TERM=xterm-256color", screenAgentEnv + "=1"}, Cols: 80, Rows: 24,
		Recording: hostwire.Recording{Path: filepath.Join(dir, "rec", id+".cast"), Title: "screen " + id}}
}

// waitScreenReady reads s until the screen agent has shown screenReady;
// only the newest bytes are searched.
func waitScreenReady(t *testing.T, s *HostStream) {
	t.Helper()
	end, stop := nearDeadline(t)
	defer stop()
	var last []byte
	for !bytes.Contains(last, []byte(screenReady)) {
		select {
		case <-s.Ready():
		case <-end:
			t.Fatal("the screen agent never got ready")
		}
		data, _, ended := s.Read()
		if ended {
			t.Fatalf("the screen agent's stream ended before it was ready: %v", s.Err())
		}
		last = append(last[max(0, len(last)-len(screenReady)):], data...)
	}
}

// checkScreenAdopted attaches to the screen agent after its client died,
// feeds a fresh terminal from the stream (the state, a resize, input's
// answer) and stops the agent. The check it returns, run later (the host
// may go meanwhile: it compares in memory), fails unless that terminal is
// as one fed the whole recording: scrollback, colours, cursor, modes and
// alternate screen alike.
func checkScreenAdopted(t *testing.T, c *HostClient, a hostwire.Agent) (check func()) {
	ctx := context.Background()
	s, err := c.Attach(ctx, a.Session)
	if err != nil {
		t.Error(err)
		return nil
	}
	if at := s.Attached(); at.Offset <= 4<<20 {
		t.Errorf("the screen agent had printed %d bytes when attached to; the test needs more than 4 MiB", at.Offset)
	}
	term := streamTerm(s)
	var buf bytes.Buffer
	readStreamInto(t, s, term, &buf, "the state", func(string) bool { return strings.Contains(term.Text(), screenReady) })
	if err := c.Resize(ctx, a.Session, 100, 30); err != nil {
		t.Error(err)
		return nil
	}
	c.Input(a.Session, []byte("one\r"))
	readStreamInto(t, s, term, &buf, "the answer to input", func(string) bool { return strings.Contains(term.Text(), "got one") })
	if _, err := c.Stop(ctx, a.Session, 200*time.Millisecond, false); err != nil {
		t.Error(err)
		return nil
	}
	readStreamToEnd(t, s, term, &buf)
	if err := s.Err(); err != nil {
		t.Errorf("%s: %v", a.Session, err)
	}
	return func() { checkSameAsRecording(t, a, s, term) }
}

// checkSameAsRecording is checkScreenAdopted's comparison.
func checkSameAsRecording(t *testing.T, a hostwire.Agent, s *HostStream, term *vt.Terminal) {
	control := castTerm(t, a.Recording, s.Attached().Scrollback)
	if first := control.ScrollbackText(0); !strings.HasPrefix(first, "early line") {
		t.Errorf("the oldest line of scrollback is %q; the test needs lines older than the newest 4 MiB of output", first)
	}
	sameTerm(t, a.Session, term, control)
}

// castTerm is a terminal fed a whole recording: its output and resizes.
func castTerm(t *testing.T, path string, scrollback int) *vt.Terminal {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := asciicast.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	term := vt.New(h.Width, h.Height, vt.WithScrollback(scrollback))
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		switch ev.Type {
		case asciicast.TypeOutput:
			term.Write([]byte(ev.Data))
		case asciicast.TypeResize:
			if cols, rows, err := asciicast.ParseResize(ev.Data); err == nil {
				term.Resize(cols, rows)
			}
		}
	}
	return term
}

// sameTerm fails unless got shows and holds what want does: every cell of
// the screen and the scrollback, the cursor, the modes, the title.
func sameTerm(t *testing.T, what string, got, want *vt.Terminal) {
	t.Helper()
	g, w := got.Snapshot(), want.Snapshot()
	if g.Cols != w.Cols || g.Rows != w.Rows {
		t.Fatalf("%s: the terminal is %dx%d, want %dx%d", what, g.Cols, g.Rows, w.Cols, w.Rows)
	}
	if gt, wt := got.Text(), want.Text(); gt != wt {
		t.Errorf("%s: the screen shows\n%s\nwant\n%s", what, gt, wt)
	}
	for y := range g.Rows {
		if !slices.Equal(g.Lines[y], w.Lines[y]) {
			t.Errorf("%s: row %d's cells differ: %v, want %v", what, y, g.Lines[y], w.Lines[y])
			break
		}
	}
	if g.Cursor != w.Cursor || g.AltScreen != w.AltScreen || g.Modes != w.Modes || g.Title != w.Title {
		t.Errorf("%s: cursor %+v alt %v modes %+v title %q; want %+v %v %+v %q",
			what, g.Cursor, g.AltScreen, g.Modes, g.Title, w.Cursor, w.AltScreen, w.Modes, w.Title)
	}
	gn, wn := got.ScrollbackLen(), want.ScrollbackLen()
	if gn != wn {
		t.Errorf("%s: %d lines of scrollback, want %d (the first: %q, want %q)", what, gn, wn, got.ScrollbackText(0), want.ScrollbackText(0))
		return
	}
	for i := range gn {
		if !slices.Equal(got.ScrollbackLine(i), want.ScrollbackLine(i)) {
			t.Errorf("%s: scrollback line %d differs: %q, want %q", what, i, got.ScrollbackText(i), want.ScrollbackText(i))
			return
		}
	}
}

// A program that asks its terminal where the cursor is gets the answer
// from the host's emulator, with no client attached to answer it.
func TestHostAnswersQueriesUnattached(t *testing.T) {
	t.Parallel()
	_, c, dir := startTestHost(t, time.Minute)
	answer := filepath.Join(dir, "answer")
	// Raw, so the answer (which ends in no newline) is read at once and
	// not echoed.
	script := `stty raw -echo; printf '\033[2J\033[3;5Hab\033[6n'; dd bs=1 count=6 of="$1" 2>/dev/null; printf done`
	l := seqLaunch(dir, "ses_ask")
	l.Args = []string{"-c", script, "sh", answer}
	ctx := context.Background()
	if _, _, err := c.Launch(ctx, l); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the agent to end with its answer", func() bool {
		as, err := c.List(ctx)
		return err == nil && len(as) == 1 && as[0].Status == hostwire.StatusExited
	})
	got, err := os.ReadFile(answer)
	if err != nil || string(got) != "\x1b[3;7R" {
		t.Errorf("the agent read %q (%v) for its cursor position, want %q", got, err, "\x1b[3;7R")
	}
}
