//go:build linux

package supervisor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
	"github.com/switchboard-dev/switchboard/supervisor/internal/flood"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// The child-process client of TestHostOutlivesItsClient: it starts a host,
// launches three agents that print and one that draws its screen, says
// so, and waits to be killed.
const testClientEnv = "SB_TEST_HOST_CLIENT_DIR"

func TestHostChildClient(t *testing.T) {
	dir := os.Getenv(testClientEnv)
	if dir == "" {
		t.Skip("the client process of TestHostOutlivesItsClient")
	}
	ctx := context.Background()
	h, err := StartHost(ctx, testHostStart(t, dir, 500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	c, err := DialHost(ctx, h.Socket, "test")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		_, s, err := c.Launch(ctx, withAttach(seqLaunch(dir, fmt.Sprintf("ses_seq%d", i))))
		if err != nil {
			t.Fatal(err)
		}
		// Each has printed before its client dies.
		var buf bytes.Buffer
		readStreamUntil(t, s, &buf, "seq 3", func(s string) bool { return strings.Contains(s, "seq 3") })
	}
	// And a full-screen program that prints more than 4 MiB before its
	// client dies.
	_, s, err := c.Launch(ctx, withAttach(screenLaunch(t, dir, "ses_screen")))
	if err != nil {
		t.Fatal(err)
	}
	waitScreenReady(t, s)
	fmt.Printf("LAUNCHED %d\n", h.PID)
	select {}
}

func withAttach(l hostwire.Launch) hostwire.Launch {
	l.Attach = true
	return l
}

// Three agents print while the client that launched them is SIGKILLed,
// and a fourth has drawn a full screen over more than 4 MiB of output. A
// new client finds the host, lists them still running, and attaches to
// each: the screen state and the live output follow on with no gap (the
// byte offsets and the agents' own sequence numbers), and rebuild each
// screen with its scrollback as a terminal fed the whole recording has it;
// input and resize reach them; stop ends each one's whole process set; the
// recordings hold every line; the host ignores a hangup, and exits after
// its last agent.
func TestHostOutlivesItsClient(t *testing.T) {
	dir := shortTempDir(t)
	child, hostPID := launchedByChild(t, "TestHostChildClient", testClientEnv+"="+dir)
	child.Process.Kill()
	child.Wait()
	// A terminal's hangup does not end the host either.
	if err := syscall.Kill(hostPID, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	hosts, err := FindHosts(ctx, dir)
	if err != nil || len(hosts) != 1 || hosts[0].PID != hostPID || hosts[0].Protocol != hostwire.Version {
		t.Fatalf("FindHosts = %+v, %v; want the one host, %d", hosts, err, hostPID)
	}
	c, err := DialHost(ctx, hosts[0].Path, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	agents, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(agents) != 4 {
		t.Fatalf("the host lists %d agents, want 4: %+v", len(agents), agents)
	}
	for _, a := range agents {
		if a.Status != hostwire.StatusRunning || !alive(a.PID) {
			t.Fatalf("agent %s is %s (pid %d alive: %v) after its client was killed", a.Session, a.Status, a.PID, alive(a.PID))
		}
	}

	var wg sync.WaitGroup
	var checkScreen func()
	for _, a := range agents {
		if a.Session == "ses_screen" {
			wg.Go(func() { checkScreen = checkScreenAdopted(t, c, a) })
			continue
		}
		wg.Go(func() { checkAdopted(t, c, a) })
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if st, err := c.Status(ctx); err != nil || st.Agents != 0 || st.Ended != 4 || st.PID != hostPID {
		t.Errorf("host status %+v, %v; want 4 ended agents, none running", st, err)
	}
	if checkScreen != nil {
		checkScreen()
	}
	// The last agent has ended: the host exits after its linger, and
	// takes its socket with it.
	waitUntil(t, "the host to exit after its last agent", func() bool { return !alive(hostPID) })
	if _, err := os.Stat(HostSocketPath(dir, hostPID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the host's socket is still there after it exited: %v", err)
	}
	end, stopEnd := nearDeadline(t)
	defer stopEnd()
	select {
	case <-c.Done():
	case <-end:
		t.Error("the client's connection did not end with the host")
	}
	checkHostLog(t, dir)
}

// checkAdopted attaches to a running seq agent and takes it through its
// life: catch-up and live output, input, resize, stop, recording.
func checkAdopted(t *testing.T, c *HostClient, a hostwire.Agent) {
	ctx := context.Background()
	s, err := c.Attach(ctx, a.Session)
	if err != nil {
		t.Error(err)
		return
	}
	if at := s.Attached(); at.Offset == 0 || at.Caught == 0 {
		t.Errorf("%s: %d bytes of state, live output from byte %d; want both after what it printed", a.Session, at.Caught, at.Offset)
	}
	var buf bytes.Buffer
	// The state rebuilds the screen and its scrollback (every line, seq 1
	// on), and the live lines follow it without a seam.
	term := streamTerm(s)
	readStream := func(what string, cond func(string) bool) { readStreamInto(t, s, term, &buf, what, cond) }
	readStream("live output", func(out string) bool {
		return uint64(len(out)) > s.Attached().Caught+200
	})
	if err := c.Input(a.Session, []byte("hello\r")); err != nil {
		t.Error(err)
		return
	}
	readStream("the echo of input", func(out string) bool { return strings.Contains(out, "GOT hello") })
	if err := c.Resize(ctx, a.Session, 100, 30); err != nil {
		t.Error(err)
		return
	}
	c.Input(a.Session, []byte("size\r"))
	readStream("the new size", func(out string) bool { return strings.Contains(out, "SIZE 30 100") })

	ag, err := c.Stop(ctx, a.Session, 200*time.Millisecond, false)
	if err != nil {
		t.Error(err)
		return
	}
	if ag.Status != hostwire.StatusExited || ag.Exit == nil || (ag.Exit.Reason != "stopped" && ag.Exit.Reason != "killed") {
		t.Errorf("%s after stop: %+v", a.Session, ag)
	}
	// Killed processes leave /proc a moment after their terminal closed.
	if !eventually(t, func() bool { return len(sessionMembers(a.PID)) == 0 }) {
		t.Errorf("%s: processes %v of its session outlived the stop", a.Session, sessionMembers(a.PID))
	}
	// The stream ends with the agent, every byte delivered in order.
	readStreamToEnd(t, s, term, &buf)
	if err := s.Err(); err != nil {
		t.Errorf("%s: %v", a.Session, err)
	}
	if c, r := term.Size(); c != 100 || r != 30 {
		t.Errorf("%s: the client's terminal is %dx%d after the resize, want 100x30", a.Session, c, r)
	}
	seqs := seqNumbers(strings.Join(termLines(term), "\n"))
	checkSeq(t, a.Session+" stream", seqs, 1, 10)

	rec, _ := readCast(t, a.Recording)
	if !strings.Contains(rec, "GOT hello") {
		t.Errorf("%s: the recording lacks the input's echo", a.Session)
	}
	checkSeq(t, a.Session+" recording", seqNumbers(rec), 1, len(seqs))
}

// A client whose hello speaks an older protocol version is told why it is
// refused, and the host goes on serving others.
func TestHostRefusesOldProtocol(t *testing.T) {
	t.Parallel()
	h, c, _ := startTestHost(t, time.Minute)
	ctx := context.Background()
	old := clientHello("old")
	old.Protocol, old.MinProtocol = hostwire.MinVersion-1, hostwire.MinVersion-1
	_, err := dialHost(ctx, h.Socket, old)
	if !errors.Is(err, hostwire.ErrVersion) || !strings.Contains(err.Error(), fmt.Sprintf("version %d", old.Protocol)) {
		t.Errorf("dial with protocol %d: %v; want ErrVersion naming it", old.Protocol, err)
	}
	if _, err := c.Status(ctx); err != nil {
		t.Errorf("the host stopped serving after a refusal: %v", err)
	}
}

// The dialling process of TestHostRefusesItsAgents: an agent's child.
const testDialEnv = "SB_TEST_HOST_DIAL"

func TestHostDialChild(t *testing.T) {
	sock := os.Getenv(testDialEnv)
	if sock == "" {
		t.Skip("the agent's process of TestHostRefusesItsAgents")
	}
	_, err := DialHost(context.Background(), sock, "agent")
	switch {
	case errors.Is(err, hostwire.ErrPeer):
		fmt.Printf("DIAL REFUSED: %v\n", err)
	case err != nil:
		fmt.Printf("DIAL FAILED: %v\n", err)
	default:
		fmt.Println("DIAL ACCEPTED")
	}
}

// A process an agent started (a child of its shell) is refused by the
// host, and told why.
func TestHostRefusesItsAgents(t *testing.T) {
	t.Parallel()
	h, c, dir := startTestHost(t, time.Minute)
	self, _ := os.Executable()
	l := seqLaunch(dir, "ses_dialler")
	l.Args = []string{"-c", `"$0" -test.run='^TestHostDialChild$'; read x`, self}
	l.Env = append(l.Env, testDialEnv+"="+h.Socket)
	l.Attach = true
	_, s, err := c.Launch(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	readStreamUntil(t, s, &buf, "the agent's dial", func(out string) bool {
		_, after, ok := strings.Cut(out, "DIAL ")
		return ok && strings.Contains(after, "\n")
	})
	_, said, _ := strings.Cut(buf.String(), "DIAL ")
	said, _, _ = strings.Cut(said, "\n")
	if !strings.HasPrefix(said, "REFUSED") || !strings.Contains(said, "ses_dialler") {
		t.Errorf("the agent's child dialled the host: %q; want it refused, naming the session", said)
	}
}

// A client that attaches and stops reading is detached, with a reason,
// while the agent prints on at its own pace and ends; the recording has
// every byte.
func TestHostDropsSlowClient(t *testing.T) {
	t.Parallel()
	dir := shortTempDir(t)
	start := testHostStart(t, dir, time.Minute)
	start.Backlog = 4 << 20
	h, c := startTestHostWith(t, start)
	// More than the backlog and the socket's buffers hold.
	n := floodSize(32 << 20)
	if raceEnabled {
		n = floodSize(12 << 20)
	}
	l := seqLaunch(dir, "ses_flood")
	l.Path, l.Args = standinBin(t), []string{"flood", fmt.Sprint(n)}
	// The stalled client: a raw connection that attaches and never reads.
	nc, err := net.Dial("unix", h.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	hello, _ := json.Marshal(clientHello("stalled"))
	hostwire.WriteFrame(nc, hostwire.TypeHello, hello)
	r := hostwire.NewReader(nc)
	if typ, _, err := r.Next(); err != nil || typ != hostwire.TypeHello {
		t.Fatalf("hello: %s %v", typ, err)
	}
	// It launches the agent itself, attached from the first byte.
	l.Attach = true
	req, _ := json.Marshal(hostwire.Request{ID: 1, Op: hostwire.OpLaunch, Launch: &l})
	hostwire.WriteFrame(nc, hostwire.TypeRequest, req)
	var exit hostwire.Event
	for ev := range c.Events() {
		if ev.Kind == hostwire.EventExit && ev.Session == "ses_flood" {
			exit = ev
			break
		}
	}
	if exit.Exit == nil || exit.Exit.Code != 0 {
		t.Fatalf("the flood ended %+v", exit.Exit)
	}
	// Now the stalled client reads, up to the reply to a request it
	// makes now: before it, its output stopped with a reason.
	req, _ = json.Marshal(hostwire.Request{ID: 2, Op: hostwire.OpStatus})
	hostwire.WriteFrame(nc, hostwire.TypeRequest, req)
	var reason string
	for {
		typ, p, err := r.Next()
		if err != nil {
			t.Fatalf("the stalled client's connection: %v", err)
		}
		var ev hostwire.Event
		var rep hostwire.Reply
		if typ == hostwire.TypeEvent && json.Unmarshal(p, &ev) == nil && ev.Kind == hostwire.EventDetached {
			reason = ev.Reason
		}
		if typ == hostwire.TypeReply && json.Unmarshal(p, &rep) == nil && rep.ID == 2 {
			break
		}
	}
	if !strings.Contains(reason, "behind") {
		t.Errorf("the stalled client was detached because %q; want it told it fell behind", reason)
	}
	rec, _ := readCast(t, l.Recording.Path)
	if want := flood.AsTerminalOutput(n); !bytes.Equal([]byte(rec), want) {
		t.Errorf("the recording has %d bytes, want the %d the agent wrote", len(rec), len(want))
	}
}

// Several clients attached to one agent each get its output whole and in
// order, whenever they attached: a late one from its catch-up on.
func TestHostSeveralClients(t *testing.T) {
	t.Parallel()
	h, first, dir := startTestHost(t, time.Minute)
	ctx := context.Background()
	_, s1, err := first.Launch(ctx, withAttach(seqLaunch(dir, "ses_shared")))
	if err != nil {
		t.Fatal(err)
	}
	var out1 bytes.Buffer
	readStreamUntil(t, s1, &out1, "seq 5", func(out string) bool { return strings.Contains(out, "seq 5\r\n") })
	second, err := DialHost(ctx, h.Socket, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	s2, err := second.Attach(ctx, "ses_shared")
	if err != nil {
		t.Fatal(err)
	}
	var out2 bytes.Buffer
	// The first client fed its terminal from the first byte, the second
	// from the state the host's emulator gave it.
	term1, term2 := streamTerm(s1), streamTerm(s2)
	term1.Write(out1.Bytes())
	clients := []struct {
		s    *HostStream
		out  *bytes.Buffer
		term *vt.Terminal
	}{{s1, &out1, term1}, {s2, &out2, term2}}
	for _, x := range clients {
		readStreamInto(t, x.s, x.term, x.out, "seq 20", func(out string) bool { return strings.Contains(out, "seq 20\r\n") })
	}
	if _, err := first.Stop(ctx, "ses_shared", 0, true); err != nil {
		t.Fatal(err)
	}
	for i, x := range clients {
		readStreamToEnd(t, x.s, x.term, x.out)
		if err := x.s.Err(); err != nil {
			t.Errorf("client %d: %v", i+1, err)
		}
		checkSeq(t, fmt.Sprintf("client %d", i+1), seqNumbers(strings.Join(termLines(x.term), "\n")), 1, 20)
	}
	// Both got the same live bytes, each after its state (the first's,
	// of a terminal nothing was printed on yet): the second from where
	// its state left off. And both terminals are the same.
	at1, at2 := s1.Attached(), s2.Attached()
	if a, b := out1.Bytes()[at1.Caught:], out2.Bytes()[at2.Caught:]; at1.Offset != 0 || !bytes.Equal(a[at2.Offset:], b) {
		t.Errorf("the clients got different output: %d bytes from %d and %d bytes from %d", len(a), at1.Offset, len(b), at2.Offset)
	}
	sameTerm(t, "the second client", term2, term1)
}

// A host told to go (SIGTERM, as at logout) stops its agents before it
// exits: none is left running without a host.
func TestHostStopsAgentsWhenTerminated(t *testing.T) {
	t.Parallel()
	h, c, dir := startTestHost(t, time.Minute)
	ctx := context.Background()
	ag, s, err := c.Launch(ctx, withAttach(seqLaunch(dir, "ses_term")))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	readStreamUntil(t, s, &out, "seq 3", func(out string) bool { return strings.Contains(out, "seq 3\r\n") })
	if err := syscall.Kill(h.PID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	readStreamUntil(t, s, &out, "the agent's end", func(string) bool { return s.Exit() != nil })
	if e := s.Exit(); e.Reason != "stopped" && e.Reason != "killed" {
		t.Errorf("the agent ended %+v, want stopped", e)
	}
	end, stop := nearDeadline(t)
	defer stop()
	select {
	case <-h.Exited():
	case <-end:
		t.Fatal("the host did not exit after SIGTERM")
	}
	if !eventually(t, func() bool { return len(sessionMembers(ag.PID)) == 0 }) {
		t.Errorf("processes %v of the agent outlived its host", sessionMembers(ag.PID))
	}
	rec, _ := readCast(t, ag.Recording)
	checkSeq(t, "recording", seqNumbers(rec), 1, 3)
}
