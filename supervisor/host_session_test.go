//go:build linux

package supervisor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
)

// The child-process app of TestHostedAgentsOutliveTheApp: a supervisor
// with the agent host on launches three agents that print, says so, and
// waits to be killed.
const testAppEnv = "SB_TEST_HOSTED_APP_DIR"

// pausedSeqScript prints "seq N" lines every 20 ms while the file $1 is
// absent, and answers input lines with "GOT line".
const pausedSeqScript = `i=0
( while :; do if [ ! -e "$1" ]; then i=$((i+1)); echo "seq $i"; fi; sleep 0.02; done ) &
while read line; do echo "GOT $line"; done`

// hostedConfig is a supervisor's with the agent host on: this test binary
// as the host, short timings.
func hostedConfig(t testing.TB, dir string, exited func(string, Exit)) Config {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		RuntimeDir: dir, RecordingsDir: filepath.Join(dir, "rec"), Exited: exited,
		StopGrace: 300 * time.Millisecond, DrainWait: 300 * time.Millisecond, IdleAfter: 300 * time.Millisecond,
		Host: &HostOptions{Binary: self, Env: append(os.Environ(), testHostEnv+"=1"), Linger: 5 * time.Second},
	}
}

func pausePath(dir, id string) string { return filepath.Join(dir, "pause-"+id) }

func TestHostedChildApp(t *testing.T) {
	dir := os.Getenv(testAppEnv)
	if dir == "" {
		t.Skip("the app process of TestHostedAgentsOutliveTheApp")
	}
	sv := New(hostedConfig(t, dir, nil))
	host := 0
	for i := range 3 {
		id := fmt.Sprintf("ses_app%d", i)
		p := profile.Profile{ID: "seq", Name: "seq", Command: "/bin/sh", Args: []string{"-c", pausedSeqScript, "sh", pausePath(dir, id)}}
		s, err := sv.Launch(LaunchSpec{SessionID: id, RepositoryID: "rep_x", Dir: dir, Profile: p, Endpoint: "http://127.0.0.1:1/mcp", Token: "sbt_test", Cols: 80, Rows: 24})
		if err != nil {
			t.Fatal(err)
		}
		waitScreen(t, s, "seq 3")
		host = s.Info().Host
	}
	fmt.Printf("LAUNCHED %d\n", host)
	select {}
}

// An app with the agent host on launches three agents that print, and is
// SIGKILLed. A new supervisor adopts them: running, their screens rebuilt
// from the host, input reaching them, subscribers getting the live output
// right after the screen with no gap, Owner naming them, Stop ending their
// process sets and setting their exit; the recordings hold every line.
func TestHostedAgentsOutliveTheApp(t *testing.T) {
	dir := shortTempDir(t)
	child, hostPID := launchedByChild(t, "TestHostedChildApp", testAppEnv+"="+dir)
	t.Cleanup(func() { checkHostLog(t, dir) })
	// Paused, the agents' screens stay as the catch-up left them.
	for i := range 3 {
		if err := os.WriteFile(pausePath(dir, fmt.Sprintf("ses_app%d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	child.Process.Kill()
	child.Wait()

	exits := &exitLog{exits: map[string]Exit{}}
	sv := New(hostedConfig(t, dir, exits.record))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		sv.Close(ctx)
	})
	ctx := context.Background()
	seq := profile.Profile{ID: "seq", Prompt: profile.PromptNone}
	ss, err := sv.Adopt(ctx, func(id string) Adopted { return Adopted{RepositoryID: "rep_x", Profile: seq} })
	if err != nil || len(ss) != 3 {
		t.Fatalf("Adopt = %d sessions, %v; want 3", len(ss), err)
	}
	slices.SortFunc(ss, func(a, b *Session) int { return strings.Compare(a.ID(), b.ID()) })
	var wg sync.WaitGroup
	for i, s := range ss {
		if want := fmt.Sprintf("ses_app%d", i); s.ID() != want {
			t.Fatalf("adopted %s, want %s", s.ID(), want)
		}
		wg.Go(func() { checkHostedAdopted(t, sv, s, exits, hostPID, pausePath(dir, s.ID())) })
	}
	wg.Wait()
	// Adopting again finds nothing new: the agents have ended.
	if again, err := sv.Adopt(ctx, nil); err != nil || len(again) != 0 {
		t.Errorf("Adopt after the stops = %d sessions, %v; want none", len(again), err)
	}
}

// checkHostedAdopted takes an adopted session of pausedSeqScript through
// its life.
func checkHostedAdopted(t *testing.T, sv *Supervisor, s *Session, exits *exitLog, hostPID int, pause string) {
	info := s.Info()
	if info.Exit != nil || info.Host != hostPID || !alive(info.PID) || info.RepositoryID != "rep_x" || info.Recording == "" {
		t.Errorf("%s adopted as %+v; want running in host %d", s.ID(), info, hostPID)
		return
	}
	// The agent and what it started (the printing subshell) are its.
	for _, pid := range append(sessionMembers(info.PID), info.PID) {
		if id, ok := sv.Owner(pid); !ok || id != s.ID() {
			t.Errorf("Owner(%d) = %q, %v; want %s", pid, id, ok, s.ID())
		}
	}
	if id, ok := sv.Owner(os.Getpid()); ok {
		t.Errorf("Owner(the test) = %s", id)
	}
	// The screen shows the last line the agent printed before it paused
	// (the recording's last), with no output since the adoption.
	last := func(text string) int {
		ns := seqNumbers(text)
		if len(ns) == 0 {
			return 0
		}
		return ns[len(ns)-1]
	}
	var n int
	if !eventually(t, func() bool {
		rec, _ := readCast(t, info.Recording)
		n = last(s.Terminal().Text())
		return n >= 3 && n == last(rec)
	}) {
		t.Errorf("%s: the screen's last line is seq %d, the recording's another:\n%s", s.ID(), n, s.Terminal().Text())
		return
	}
	if err := s.Input([]byte("hello\r")); err != nil {
		t.Error(err)
		return
	}
	waitScreenT(t, s, "GOT hello")

	// The live output follows the screen with no gap.
	sub := s.Subscribe()
	defer sub.Close()
	if err := os.Remove(pause); err != nil {
		t.Error(err)
		return
	}
	var buf bytes.Buffer
	end, stop := nearDeadline(t)
	defer stop()
	for len(seqNumbers(buf.String())) < 20 {
		select {
		case <-sub.Ready():
		case <-end:
			t.Errorf("%s: live output %q", s.ID(), tail(buf.String()))
			return
		}
		data, dropped, over := sub.Read()
		buf.Write(data)
		if dropped > 0 || over {
			t.Errorf("%s: subscription dropped %d, ended %v", s.ID(), dropped, over)
			return
		}
	}
	live := seqNumbers(buf.String())
	checkSeq(t, s.ID()+" live", live, n+1, 20)

	exit, err := s.Stop(context.Background(), false)
	if err != nil || (exit.Reason != "stopped" && exit.Reason != "killed") || s.Exit() == nil {
		t.Errorf("%s: Stop = %+v, %v", s.ID(), exit, err)
		return
	}
	if e, ok := exits.get(s.ID()); !ok || e.Reason != exit.Reason {
		t.Errorf("%s: Exited heard %+v, %v; want %+v", s.ID(), e, ok, exit)
	}
	if !eventually(t, func() bool { return len(sessionMembers(info.PID)) == 0 && !alive(info.PID) }) {
		t.Errorf("%s: processes %v of its session outlived the stop", s.ID(), sessionMembers(info.PID))
	}
	if _, ok := sv.Owner(info.PID); ok {
		t.Errorf("%s: Owner still names the ended session", s.ID())
	}
	rec, _ := readCast(t, info.Recording)
	if !strings.Contains(rec, "GOT hello") {
		t.Errorf("%s: the recording lacks the input's echo", s.ID())
	}
	checkSeq(t, s.ID()+" recording", seqNumbers(rec), 1, live[len(live)-1])
}

// waitScreenT is waitScreen for a goroutine other than the test's: it
// reports with Errorf.
func waitScreenT(t *testing.T, s *Session, want string) bool {
	ch, stop := s.ScreenChanged()
	defer stop()
	end, stopEnd := nearDeadline(t)
	defer stopEnd()
	for !strings.Contains(s.Terminal().Text(), want) {
		select {
		case <-ch:
		case <-end:
			t.Errorf("%s: the screen never showed %q:\n%s", s.ID(), want, s.Terminal().Text())
			return false
		}
	}
	return true
}

// A hosted agent launched here: its resize and input go through the host,
// it ends on its own with its exit status, the host removes its token
// file, and a host of the protocol is reused for the next launch.
func TestHostedLaunchAndExit(t *testing.T) {
	dir := shortTempDir(t)
	exits := &exitLog{exits: map[string]Exit{}}
	sv := New(hostedConfig(t, dir, exits.record))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		sv.Close(ctx)
	})
	launch := func(id string) *Session {
		s, err := sv.Launch(LaunchSpec{SessionID: id, Dir: dir, Profile: shAgent("read x; echo \"SIZE $(stty size)\"; read y; exit 3"),
			Endpoint: "http://127.0.0.1:1/mcp", Token: "sbt_test", Cols: 80, Rows: 24})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := launch("ses_one")
	host := s.Info().Host
	if host == 0 {
		t.Fatal("the session names no host")
	}
	t.Cleanup(func() {
		if alive(host) {
			syscall.Kill(host, syscall.SIGTERM)
		}
		checkHostLog(t, dir)
	})
	token, _ := sessionFiles(dir, "ses_one")
	if _, err := os.Stat(token); err != nil {
		t.Fatalf("the token file is not there while the agent runs: %v", err)
	}
	if err := s.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	if err := s.Input([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, "SIZE 30 100")
	if cols, rows := s.Terminal().Size(); cols != 100 || rows != 30 {
		t.Errorf("the emulator is %dx%d, want 100x30", cols, rows)
	}
	// Another client resizing the agent resizes this app's screen too,
	// in order with the output.
	other, err := DialHost(context.Background(), s.hosted.socket, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Resize(context.Background(), "ses_one", 90, 20); err != nil {
		t.Fatal(err)
	}
	other.Close()
	waitUntil(t, "the emulator at the other client's size", func() bool {
		cols, rows := s.Terminal().Size()
		return cols == 90 && rows == 20
	})
	s.Input([]byte("\r"))
	exit := waitDone(t, s)
	if exit.Code != 3 || exit.Reason != "exited" {
		t.Errorf("exit %+v, want code 3, exited", exit)
	}
	if _, err := os.Stat(token); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the token file outlived the agent: %v", err)
	}
	if e, ok := exits.get("ses_one"); !ok || e.Code != 3 {
		t.Errorf("Exited heard %+v, %v", e, ok)
	}
	if err := s.Input([]byte("x")); !errors.Is(err, ErrEnded) {
		t.Errorf("input after the exit: %v, want ErrEnded", err)
	}
	// The host lingers: the next agent goes to it.
	s2 := launch("ses_two")
	if h := s2.Info().Host; h != host {
		t.Errorf("the second agent went to host %d, want %d", h, host)
	}
	if _, err := s2.Stop(context.Background(), true); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkHostedAdopt measures what issue 33's make bench row asks: a new
// supervisor adopting 10 agents a host runs (each attached, its screen
// rebuilt) per iteration, beside launching the 10 through the host and
// launching 10 in-process, once each in the same run.
func BenchmarkHostedAdopt(b *testing.B) {
	const agents = 10
	dir := shortTempDir(b)
	ctx := context.Background()
	ready := func(s *Session) {
		ch, stop := s.ScreenChanged()
		defer stop()
		for !strings.Contains(s.Terminal().Text(), "ready") {
			select {
			case <-ch:
			case <-time.After(time.Minute):
				b.Fatalf("%s never showed ready", s.ID())
			}
		}
	}
	launchAll := func(sv *Supervisor, prefix string) time.Duration {
		start := time.Now()
		ss := make([]*Session, agents)
		for i := range ss {
			s, err := sv.Launch(LaunchSpec{SessionID: fmt.Sprintf("ses_%s%d", prefix, i), Dir: dir, Profile: shAgent("echo ready; exec sleep 600"),
				Endpoint: "http://127.0.0.1:1/mcp", Token: "sbt_test", Cols: 80, Rows: 24})
			if err != nil {
				b.Fatal(err)
			}
			ss[i] = s
		}
		for _, s := range ss {
			ready(s)
		}
		return time.Since(start)
	}
	local := New(Config{RuntimeDir: filepath.Join(dir, "local"), RecordingsDir: filepath.Join(dir, "local-rec")})
	defer local.Close(ctx)
	here := float64(launchAll(local, "local").Microseconds()) / 1000
	local.Close(ctx)

	sv := New(hostedConfig(b, dir, nil))
	defer sv.Close(ctx)
	hosted := float64(launchAll(sv, "hosted").Microseconds()) / 1000
	s, _ := sv.Get("ses_hosted0")
	host := s.Info().Host
	defer syscall.Kill(host, syscall.SIGTERM)

	b.ResetTimer()
	for b.Loop() {
		again := New(hostedConfig(b, dir, nil))
		ss, err := again.Adopt(ctx, nil)
		if err != nil || len(ss) != agents {
			b.Fatalf("Adopt = %d sessions, %v", len(ss), err)
		}
		for _, s := range ss {
			ready(s)
		}
		// The sessions stay attached (there is no letting an agent go
		// without stopping it yet): idle, they cost the next rounds
		// little.
	}
	b.StopTimer()
	b.ReportMetric(here, "ms-launch-10-here")
	b.ReportMetric(hosted, "ms-launch-10-hosted")
}

// A host that speaks a protocol version this build does not is left alone:
// Adopt names it (hostwire.ErrVersion), does not connect to it, and leaves
// its socket.
func TestAdoptLeavesAHostOfAnotherVersion(t *testing.T) {
	t.Parallel()
	dir := shortTempDir(t)
	if err := os.MkdirAll(hostsDir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(hostsDir(dir), fmt.Sprintf("%d.v%d.sock", os.Getpid(), hostwire.Version+1))
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	sv := New(hostedConfig(t, dir, nil))
	ss, err := sv.Adopt(context.Background(), nil)
	if len(ss) != 0 || !errors.Is(err, hostwire.ErrVersion) || !strings.Contains(err.Error(), strconv.Itoa(os.Getpid())) {
		t.Errorf("Adopt = %d sessions, %v; want none, and ErrVersion naming host %d", len(ss), err, os.Getpid())
	}
	if _, err := os.Stat(sock); err != nil {
		t.Errorf("the other host's socket: %v", err)
	}
}
