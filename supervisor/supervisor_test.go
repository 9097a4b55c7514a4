package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/asciicast"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// standin builds the stand-in agent once per test binary.
var standin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "standin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "standin")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/standin")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build standin: %v\n%s", err, out)
	}
	return bin, nil
})

func standinBin(t testing.TB) string {
	t.Helper()
	bin, err := standin()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// fakeMCP answers tools/call like Switchboard for one bearer token.
func fakeMCP(t *testing.T, token string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"ok":true}}}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

type exitLog struct {
	mu    sync.Mutex
	exits map[string]Exit
}

func (l *exitLog) record(id string, e Exit) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.exits[id] = e
}

func (l *exitLog) get(id string) (Exit, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.exits[id]
	return e, ok
}

func newTestSupervisor(t *testing.T, env []string) (*Supervisor, *exitLog, string) {
	t.Helper()
	dir := t.TempDir()
	log := &exitLog{exits: map[string]Exit{}}
	sv := New(Config{
		RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "recordings"),
		Exited: log.record, Env: env,
		StopGrace: 300 * time.Millisecond, DrainWait: 300 * time.Millisecond,
		IdleAfter: 300 * time.Millisecond, SettleDelay: 200 * time.Millisecond, PromptWait: 5 * time.Second,
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		sv.Close(ctx)
	})
	return sv, log, dir
}

func standinProfile(t testing.TB, prompt profile.PromptDelivery, args ...string) profile.Profile {
	return profile.Profile{ID: "standin", Name: "Stand-in", Command: standinBin(t), Args: args, Prompt: prompt}
}

// waitScreen waits until the emulated screen holds want, looking again at
// each change, until the test's deadline comes near.
func waitScreen(t *testing.T, s *Session, want string) string {
	t.Helper()
	ch, stop := s.ScreenChanged()
	defer stop()
	deadline, stopDeadline := nearDeadline(t)
	defer stopDeadline()
	for {
		if text := s.Terminal().Text(); strings.Contains(text, want) {
			return text
		}
		select {
		case <-ch:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("screen never showed %q; it shows:\n%s", want, s.Terminal().Text())
		}
	}
}

// waitStatus waits until s's status is want: a status read off the screen
// comes once the screen has been still for IdleAfter, which nothing
// signals.
func waitStatus(t *testing.T, s *Session, want Status) {
	t.Helper()
	if !eventually(t, func() bool { return s.Status() == want }) {
		t.Fatalf("status %s, want %s", s.Status(), want)
	}
}

// waitDone waits for s to end, until the test's deadline comes near.
func waitDone(t *testing.T, s *Session) Exit {
	t.Helper()
	end, stop := nearDeadline(t)
	defer stop()
	select {
	case <-s.Done():
		return *s.Exit()
	case <-end:
		t.Fatalf("session %s did not end", s.ID())
		return Exit{}
	}
}

func TestLaunchAgent(t *testing.T) {
	// The app's own variables must not leak into the agent.
	env := append(os.Environ(), "SWITCHBOARD_MCP_TOKEN=app-client-token", "SWITCHBOARD_DATA_DIR=/nowhere")
	sv, exits, dir := newTestSupervisor(t, env)
	token := "sbt_" + strings.Repeat("ab", 8) + "_" + strings.Repeat("x", 43)
	endpoint := fakeMCP(t, token)
	repo := t.TempDir()
	s, err := sv.Launch(LaunchSpec{
		SessionID: "ses_test1", RepositoryID: "repo_1", Dir: repo,
		Profile: standinProfile(t, profile.PromptTyped, "agent"), Endpoint: endpoint, Token: token,
		Prompt: "hello from the bootstrap", Cols: 100, Rows: 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(dir, "run", "sessions", "ses_test1.token")
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v; want 0600", fi, err)
	}
	screen := waitScreen(t, s, "GOT")
	for _, want := range []string{
		"SWITCHBOARD_MCP_URL=" + endpoint, "SWITCHBOARD_SESSION_ID=ses_test1", "SWITCHBOARD_REPOSITORY_ID=repo_1",
		"TERM=xterm-256color", "TOKEN_ENV=false", "PWD=" + repo, "MCP=ok", "RED 256 日本", "DRAWN",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "XXXXX") {
		t.Errorf("cursor movement not emulated:\n%s", screen)
	}
	// The prompt arrives as typed input, once, and the bracketed paste
	// markers only when the program asked for them (it did not).
	waitScreen(t, s, "GOT hello from the bootstrap")
	if strings.Contains(screen, "<paste>") {
		t.Errorf("paste markers sent to a program that did not enable them:\n%s", screen)
	}
	// Colours reached the emulator: RED is bold red.
	snap := s.Snapshot()
	found := false
	for _, line := range snap.Lines {
		for i, c := range line {
			if c.Rune == 'R' && i+2 < len(line) && line[i+1].Rune == 'E' && line[i+2].Rune == 'D' {
				idx, ok := c.Fg.Index()
				found = ok && idx == 1 && c.Attr&vt.Bold != 0
			}
		}
	}
	if !found {
		t.Errorf("RED is not bold red in the snapshot")
	}

	exit, err := s.Stop(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if exit.Reason != "stopped" {
		t.Errorf("exit %+v, want stopped", exit)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Errorf("token file still there after exit: %v", err)
	}
	if e, ok := exits.get("ses_test1"); !ok || e.Reason != "stopped" {
		t.Errorf("Exited hook got %+v, %v", e, ok)
	}
	if err := s.Input([]byte("x")); err != ErrEnded {
		t.Errorf("input after exit: %v", err)
	}
	// The recording is asciicast v2 with what the screen showed.
	out, header := readCast(t, s.Info().Recording)
	if header.Width != 100 || header.Height != 30 {
		t.Errorf("recording header %+v", header)
	}
	if !strings.Contains(out, "DRAWN") || !strings.Contains(out, "日本") {
		t.Errorf("recording lacks the output: %q", out)
	}
	if strings.Contains(out, token) {
		t.Errorf("the token is in the recording")
	}
}

func readCast(t *testing.T, path string) (string, asciicast.Header) {
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
	var out strings.Builder
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		if ev.Type == "o" {
			out.WriteString(ev.Data)
		}
	}
	return out.String(), r.Header()
}

func TestProfileDeliveries(t *testing.T) {
	sv, _, dir := newTestSupervisor(t, os.Environ())
	token := "sbt_" + strings.Repeat("cd", 8) + "_" + strings.Repeat("y", 43)
	endpoint := fakeMCP(t, token)
	p := standinProfile(t, profile.PromptArgument, "agent", "{prompt}", "{mcp_config}", "--sid={session_id}")
	p.TokenEnv = true
	p.MCPConfig = profile.MCPConfigClaude
	p.Env = []string{"EXTRA={repository_id}"}
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_args", RepositoryID: "repo_9", Dir: t.TempDir(), Profile: p,
		Endpoint: endpoint, Token: token, Prompt: "do the work"})
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "run", "sessions", "ses_args.mcp.json")
	screen := waitScreen(t, s, "ARGS=")
	if want := "ARGS=do the work|" + cfgPath + "|--sid=ses_args"; !strings.Contains(screen, want) {
		t.Errorf("screen lacks %q:\n%s", want, screen)
	}
	if !strings.Contains(screen, "TOKEN_ENV=true") {
		t.Errorf("token not in the environment:\n%s", screen)
	}
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Type, URL string
			Headers   map[string]string
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if sw := cfg.MCPServers["switchboard"]; sw.URL != endpoint || sw.Headers["Authorization"] != "Bearer "+token || sw.Type != "http" {
		t.Errorf("mcp config %s", b)
	}
	if fi, _ := os.Stat(cfgPath); fi.Mode().Perm() != 0o600 {
		t.Errorf("mcp config mode %v", fi.Mode())
	}
	s.Stop(context.Background(), true)
	waitDone(t, s)
	if _, err := os.Stat(cfgPath); !os.IsNotExist(err) {
		t.Errorf("mcp config still there after exit")
	}
}

func TestBracketedPromptAndResize(t *testing.T) {
	sv, _, _ := newTestSupervisor(t, os.Environ())
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_paste", Dir: t.TempDir(),
		Profile: standinProfile(t, profile.PromptTyped, "bracketed"), Prompt: "two words", Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, "GOT <paste>two words</paste>")
	s.Stop(context.Background(), true)
	waitDone(t, s)

	sh := profile.Profile{ID: "sh", Name: "sh", Command: "/bin/sh", Prompt: profile.PromptNone}
	s, err = sv.Launch(LaunchSpec{SessionID: "ses_size", Dir: t.TempDir(), Profile: sh, Cols: 90, Rows: 20})
	if err != nil {
		t.Fatal(err)
	}
	s.Input([]byte("stty size\r"))
	waitScreen(t, s, "20 90")
	if err := s.Resize(132, 43); err != nil {
		t.Fatal(err)
	}
	s.Input([]byte("stty size\r"))
	waitScreen(t, s, "43 132")
	if c, r := s.Terminal().Size(); c != 132 || r != 43 {
		t.Errorf("emulator size %dx%d, want 132x43", c, r)
	}
	s.Input([]byte("exit 3\r"))
	if e := waitDone(t, s); e.Code != 3 || e.Reason != "exited" {
		t.Errorf("exit %+v, want code 3", e)
	}
	_, h := readCast(t, s.Info().Recording)
	if h.Width != 90 {
		t.Errorf("header width %d", h.Width)
	}
}

// A prompt the person gave reaches an agent even when its profile takes
// none: the built-in shell gets it typed in and runs it. The screen shows
// the result, which the typed command line itself does not contain.
func TestExplicitPromptTypedIntoShell(t *testing.T) {
	shells := []string{"/bin/sh"}
	if bash, err := exec.LookPath("bash"); err == nil {
		shells = append(shells, bash) // enables bracketed paste
	}
	for _, sh := range shells {
		t.Run(filepath.Base(sh), func(t *testing.T) {
			// The shell profile's command is $SHELL; HOME keeps the
			// person's rc files out.
			t.Setenv("SHELL", sh)
			sv, _, _ := newTestSupervisor(t, append(os.Environ(), "HOME="+t.TempDir()))
			s, err := sv.Launch(LaunchSpec{SessionID: "ses_shprompt", RepositoryID: "repo_1", Dir: t.TempDir(),
				Profile: builtin(t, "shell"), Prompt: "echo sb-prompt-$((6*7))"})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Stop(context.Background(), true)
			waitScreen(t, s, "sb-prompt-42")
		})
	}
}

func TestStopEscalates(t *testing.T) {
	sv, _, _ := newTestSupervisor(t, os.Environ())
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_stub", Dir: t.TempDir(), Profile: standinProfile(t, profile.PromptNone, "stubborn")})
	if err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, "ignoring signals")
	start := time.Now()
	exit, err := s.Stop(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	// Interrupt and terminate are ignored; the kill after two grace
	// periods ends it.
	if exit.Reason != "killed" || exit.Signal != "killed" || exit.Code != -1 {
		t.Errorf("exit %+v, want killed by SIGKILL", exit)
	}
	if d := time.Since(start); d < 600*time.Millisecond {
		t.Errorf("stopped after %v, before the grace periods", d)
	}
	if n := liveInGroup(s.PID()); n != 0 {
		t.Errorf("%d processes left in the group", n)
	}
}

func TestStatusFromScreen(t *testing.T) {
	sv, _, _ := newTestSupervisor(t, os.Environ())
	sh := profile.Profile{ID: "sh", Name: "sh", Command: "/bin/sh", Prompt: profile.PromptNone}
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_status", Dir: t.TempDir(), Profile: sh})
	if err != nil {
		t.Fatal(err)
	}
	s.Input([]byte("printf 'Proceed? (y/n) '\r"))
	waitScreen(t, s, "Proceed? (y/n)")
	waitStatus(t, s, StatusNeedsInput)
	s.Input([]byte("clear; echo working\r"))
	waitScreen(t, s, "working")
	waitStatus(t, s, StatusIdle)
	s.Stop(context.Background(), true)
	waitDone(t, s)
	if s.Status() != StatusExited {
		t.Errorf("status %s after exit", s.Status())
	}
}

func TestLaunchFailsCleanly(t *testing.T) {
	sv, exits, dir := newTestSupervisor(t, os.Environ())
	p := profile.Profile{ID: "missing", Name: "missing", Command: "switchboard-no-such-agent", Prompt: profile.PromptNone}
	if _, err := sv.Launch(LaunchSpec{SessionID: "ses_missing", Dir: t.TempDir(), Profile: p, Token: "t"}); err == nil {
		t.Fatal("launched a command that is not on PATH")
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "run", "sessions"))
	recs, _ := os.ReadDir(filepath.Join(dir, "recordings"))
	if len(ents)+len(recs) != 0 {
		t.Errorf("files left behind: %v %v", ents, recs)
	}
	if _, ok := exits.get("ses_missing"); ok {
		t.Errorf("Exited called for a launch that failed")
	}
}

func TestFramesAreRateLimitedAndCurrent(t *testing.T) {
	sv, _, _ := newTestSupervisor(t, os.Environ())
	sh := profile.Profile{ID: "sh", Name: "sh", Command: "/bin/sh", Prompt: profile.PromptNone}
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_frames", Dir: t.TempDir(), Profile: sh})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	frames := s.Frames(ctx, 100*time.Millisecond)
	// A loop that changes the screen continuously for a second.
	s.Input([]byte("i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i+1)); done; echo FRAMES-END\r"))
	start := time.Now()
	end, stop := nearDeadline(t)
	defer stop()
	n := 0
	var last *vt.Snapshot
	for last == nil || !strings.Contains(textOf(last), "FRAMES-END") {
		select {
		case snap, ok := <-frames:
			if !ok {
				t.Fatal("the frames ended before one showed the end of the output")
			}
			n++
			last = snap
		case <-end:
			t.Fatal("no frame showed the end of the output by the test's deadline")
		}
	}
	elapsed := time.Since(start)
	if max := int(elapsed/(100*time.Millisecond)) + 2; n > max {
		t.Errorf("%d frames in %v at one per 100 ms", n, elapsed)
	}
	if last.Cols != 120 || last.Rows != 40 {
		t.Errorf("frame size %dx%d", last.Cols, last.Rows)
	}
}

// A resize reaches the viewers at once, even from a program that never
// redraws on SIGWINCH (stubborn prints once and waits).
func TestFramesFollowResize(t *testing.T) {
	sv, _, _ := newTestSupervisor(t, os.Environ())
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_resize", Dir: t.TempDir(), Profile: standinProfile(t, profile.PromptNone, "stubborn")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background(), true)
	waitScreen(t, s, "ignoring signals")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	frames := s.Frames(ctx, 10*time.Millisecond)
	if first := <-frames; first.Cols != 120 {
		t.Fatalf("first frame %dx%d", first.Cols, first.Rows)
	}
	if err := s.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	end, stop := nearDeadline(t)
	defer stop()
	select {
	case snap := <-frames:
		if snap.Cols != 100 || snap.Rows != 30 || !strings.Contains(textOf(snap), "ignoring signals") {
			t.Errorf("frame after the resize: %dx%d %q", snap.Cols, snap.Rows, textOf(snap))
		}
	case <-end:
		t.Fatal("no frame after the resize")
	}
}

// textOf is a snapshot's text, one line per row.
func textOf(s *vt.Snapshot) string {
	var b strings.Builder
	for _, line := range s.Lines {
		for _, c := range line {
			b.WriteString(s.Grapheme(c))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestCloseKillsWhatOutlivesItsContext(t *testing.T) {
	sv, exits, _ := newTestSupervisor(t, os.Environ())
	var ss []*Session
	for i := range 2 {
		s, err := sv.Launch(LaunchSpec{SessionID: fmt.Sprintf("ses_close%d", i), Dir: t.TempDir(), Profile: standinProfile(t, profile.PromptNone, "stubborn")})
		if err != nil {
			t.Fatal(err)
		}
		waitScreen(t, s, "ignoring signals")
		ss = append(ss, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := sv.Close(ctx); err == nil {
		t.Error("Close reported success although it had to kill")
	}
	for _, s := range ss {
		if n := liveInGroup(s.PID()); n != 0 {
			t.Errorf("%d processes of %s still run", n, s.ID())
		}
		if _, ok := exits.get(s.ID()); !ok {
			t.Errorf("no exit recorded for %s", s.ID())
		}
	}
	if _, err := sv.Launch(LaunchSpec{SessionID: "ses_after", Dir: t.TempDir(), Profile: standinProfile(t, profile.PromptNone, "stubborn")}); err != ErrClosed {
		t.Errorf("Launch after Close: %v", err)
	}
}

func TestEndedSessionsAreForgottenBeyondALimit(t *testing.T) {
	sv, _, _ := newTestSupervisor(t, os.Environ())
	p := standinProfile(t, profile.PromptNone, "exit", "0")
	var first string
	for i := range keepEnded + 3 {
		s, err := sv.Launch(LaunchSpec{SessionID: fmt.Sprintf("ses_many%02d", i), Dir: t.TempDir(), Profile: p})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = s.ID()
		}
		waitDone(t, s)
	}
	if n := len(sv.List()); n > keepEnded+1 {
		t.Errorf("%d sessions kept, want at most %d ended and the newest", n, keepEnded+1)
	}
	if _, ok := sv.Get(first); ok {
		t.Error("the oldest ended session is still held")
	}
}
