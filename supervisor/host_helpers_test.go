//go:build linux

package supervisor

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// The test binary is the agent host too: StartHost runs it with HostArg,
// and this variable says to serve rather than test (not SWITCHBOARD_*:
// hostEnv keeps those from a host).
const testHostEnv = "SB_TEST_AGENT_HOST"

// runTestHost is TestMain's hook: in a process StartHost started, it runs
// the host and exits.
func runTestHost() {
	if os.Getenv(testHostEnv) == "1" && len(os.Args) > 1 && os.Args[1] == HostArg {
		os.Exit(RunHost(os.Args[2:], "test"))
	}
}

// testHostStart is how the tests start a host: this test binary, short
// timings.
func testHostStart(t testing.TB, dir string, linger time.Duration) HostStart {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return HostStart{Dir: dir, Binary: self, Linger: linger, Env: append(os.Environ(), testHostEnv+"=1")}
}

// startTestHost starts a host and a client of it; the host is stopped
// (SIGTERM: it stops its agents) when the test ends.
func startTestHost(t testing.TB, linger time.Duration) (*StartedHost, *HostClient, string) {
	t.Helper()
	dir := shortTempDir(t)
	h, c := startTestHostWith(t, testHostStart(t, dir, linger))
	return h, c, dir
}

func startTestHostWith(t testing.TB, start HostStart) (*StartedHost, *HostClient) {
	t.Helper()
	dir := start.Dir
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := StartHost(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-h.Exited(): // reaped: its pid may be another's now
		default:
			syscall.Kill(h.PID, syscall.SIGTERM)
			<-h.Exited()
		}
		checkHostLog(t, dir)
	})
	c, err := DialHost(ctx, h.Socket, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return h, c
}

// shortTempDir is a temporary folder with a short path: a Unix socket's
// path must fit in 108 bytes, and t.TempDir's names the test.
func shortTempDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "sbh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// seqScript prints "seq N" lines, N counting from 1, every interval in the
// background, and answers input lines: "size" with the terminal's size,
// anything else with "GOT line".
const seqScript = `i=0
( while :; do i=$((i+1)); echo "seq $i"; sleep 0.02; done ) &
while read line; do case "$line" in size) echo "SIZE $(stty size)";; *) echo "GOT $line";; esac; done`

// seqLaunch is a launch of seqScript as session id.
func seqLaunch(dir, id string) hostwire.Launch {
	return hostwire.Launch{Session: id, Path: "/bin/sh", Args: []string{"-c", seqScript}, Dir: dir,
		Env: []string{"PATH=/usr/bin:/bin", "TERM=xterm-256color"}, Cols: 80, Rows: 24,
		Recording: hostwire.Recording{Path: filepath.Join(dir, "rec", id+".cast"), Title: "seq " + id}}
}

var seqLine = regexp.MustCompile(`(?m)^seq (\d+)\r?$`)

// seqNumbers are the "seq N" lines in out, in order.
func seqNumbers(out string) []int {
	var ns []int
	for _, m := range seqLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		ns = append(ns, n)
	}
	return ns
}

// checkSeq fails unless ns counts on by one from first, with at least
// least numbers.
func checkSeq(t *testing.T, what string, ns []int, first, least int) {
	t.Helper()
	if len(ns) < least {
		t.Fatalf("%s: %d seq lines, want %d at least", what, len(ns), least)
	}
	for i, n := range ns {
		if n != first+i {
			t.Fatalf("%s: line %d is seq %d, want %d: a gap or a repeat (%v…)", what, i, n, first+i, ns[:min(len(ns), i+3)])
		}
	}
}

// readStreamUntil reads s until cond holds for everything read, or the
// stream ends, or the test's deadline comes near.
func readStreamUntil(t *testing.T, s *HostStream, buf *bytes.Buffer, what string, cond func(string) bool) {
	t.Helper()
	readStreamInto(t, s, nil, buf, what, cond)
}

// readStreamInto is readStreamUntil feeding term too, when set, as
// HostStream says a consumer does. With cond nil it reads until the stream
// has ended and everything before its end is read.
func readStreamInto(t *testing.T, s *HostStream, term *vt.Terminal, buf *bytes.Buffer, what string, cond func(string) bool) {
	t.Helper()
	end, stop := nearDeadline(t)
	defer stop()
	for cond == nil || !cond(buf.String()) {
		select {
		case <-s.Ready():
		case <-end:
			t.Fatalf("waiting for %s; got %q", what, tail(buf.String()))
		}
		data, dropped, ended := s.Read()
		if term != nil {
			term.Resize(s.Size())
			term.Write(data)
		}
		buf.Write(data)
		if dropped > 0 {
			t.Fatalf("stream dropped %d bytes", dropped)
		}
		if ended && cond == nil {
			return
		}
		if ended && !cond(buf.String()) {
			t.Fatalf("stream ended (%v) before %s; got %q", s.Err(), what, tail(buf.String()))
		}
	}
}

// readStreamToEnd reads s, feeding term when set, until it has ended.
func readStreamToEnd(t *testing.T, s *HostStream, term *vt.Terminal, buf *bytes.Buffer) {
	t.Helper()
	readStreamInto(t, s, term, buf, "the stream's end", nil)
}

func tail(s string) string { return s[max(0, len(s)-300):] }

// sessionMembers are the live processes of session sid (zombies are gone
// already: only their parent's wait is missing).
func sessionMembers(sid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		state, err1 := statField(b, 3)
		s, err2 := statField(b, 6)
		if err1 != nil || err2 != nil || string(state) == "Z" || string(s) != strconv.Itoa(sid) {
			continue
		}
		pid, _ := strconv.Atoi(strings.Split(strings.TrimPrefix(p, "/proc/"), "/")[0])
		pids = append(pids, pid)
	}
	return pids
}

// checkHostLog fails the test when the hosts' log shows a race or a
// panic: the host is a process of its own, whose failures no test sees.
func checkHostLog(t testing.TB, dir string) {
	b, err := os.ReadFile(filepath.Join(hostsDir(dir), hostLogName))
	if err != nil {
		t.Errorf("the hosts' log: %v", err)
		return
	}
	for _, bad := range []string{"DATA RACE", "panic:", "level=ERROR"} {
		if bytes.Contains(b, []byte(bad)) {
			t.Errorf("the hosts' log shows %q:\n%s", bad, b)
			return
		}
	}
}

// streamTerm is a fresh terminal for s, made as its Attached says: the
// app's, with no replies.
func streamTerm(s *HostStream) *vt.Terminal {
	at := s.Attached()
	return vt.New(at.Cols, at.Rows, vt.WithScrollback(at.Scrollback))
}

// termLines is every line term holds: its scrollback, then its screen.
func termLines(term *vt.Terminal) []string {
	lines := make([]string, 0, term.ScrollbackLen())
	for i := range term.ScrollbackLen() {
		lines = append(lines, term.ScrollbackText(i))
	}
	return append(lines, strings.Split(term.Text(), "\n")...)
}

// launchedByChild runs this test binary's test run in a child process
// (env is KEY=VALUE, telling it to play its part), waits for the line
// "LAUNCHED <host pid>" it prints once its agents run in a host, and
// returns the child, still running, and the host's pid. The host is told
// to end with the test.
func launchedByChild(t *testing.T, run, env string) (*exec.Cmd, int) {
	t.Helper()
	self, _ := os.Executable()
	child := exec.Command(self, "-test.run=^"+run+"$", "-test.timeout=2m")
	child.Env = append(os.Environ(), env)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	launched := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var pid int
			if _, err := fmt.Sscanf(sc.Text(), "LAUNCHED %d", &pid); err == nil {
				launched <- pid
				return
			}
		}
		close(launched)
	}()
	end, stopEnd := nearDeadline(t)
	defer stopEnd()
	var hostPID int
	select {
	case pid, ok := <-launched:
		if !ok || pid == 0 {
			t.Fatalf("%s ended before it launched its agents in a host", run)
		}
		hostPID = pid
	case <-end:
		t.Fatalf("%s never launched its agents", run)
	}
	t.Cleanup(func() {
		if alive(hostPID) {
			syscall.Kill(hostPID, syscall.SIGTERM)
		}
	})
	return child, hostPID
}
