//go:build unix

package supervisor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
)

// The agent host: a process of its own (the same binary, HostArg) that
// owns agents' terminals, process sets and recordings, so that they outlive
// the app. It listens on an owner-only Unix socket in the runtime folder,
// talks hostwire to the app, and holds no database and no token of its own:
// each agent's token comes in its launch (its environment, its files).

// HostConfig is what an agent host needs; zero timings are the defaults.
type HostConfig struct {
	// Dir is Switchboard's runtime folder; the socket is in its "hosts"
	// folder (HostSocketPath).
	Dir string
	// Binary is this program's version, told to clients.
	Binary string
	// Linger is how long the host waits, with no agent left, for a launch
	// before it exits (30 s).
	Linger time.Duration
	// StopGrace is a stop's grace when the client gives none (3 s).
	StopGrace time.Duration
	// DrainWait is how long an agent's output may drain after it exits (1 s).
	DrainWait time.Duration
	// Scrollback is how many lines of scrollback each agent's emulator
	// keeps when its launch does not say (10,000, as the supervisor's
	// Config).
	Scrollback int
	// Backlog is how much output a client may have waiting before the
	// agent it falls behind detaches it (32 MiB: a burst the client's
	// reader was not scheduled for).
	Backlog int
	Log     *slog.Logger
	// Ready, when set, is called with the socket's path once it listens.
	Ready func(socket string)
}

func (c *HostConfig) defaults() {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&c.Linger, 30*time.Second)
	set(&c.StopGrace, 3*time.Second)
	set(&c.DrainWait, time.Second)
	if c.Scrollback <= 0 {
		c.Scrollback = 10000
	}
	if c.Backlog <= 0 {
		c.Backlog = 32 << 20
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// keepEndedAgents is how many ended agents the host still lists (and
// replays to a client that attaches) while it runs.
const keepEndedAgents = 16

// helloWait bounds a client's hello.
const helloWait = 5 * time.Second

type hostServer struct {
	cfg     HostConfig
	hello   hostwire.Hello
	ln      *net.UnixListener
	quit    chan struct{} // closed when the host has been idle for Linger
	stopped context.Context

	mu         sync.Mutex
	agents     map[string]*hostAgent  // guarded by mu
	conns      map[*hostConn]struct{} // guarded by mu
	closing    bool                   // guarded by mu: no more launches
	lastLaunch time.Time              // guarded by mu
	idle       *time.Timer            // guarded by mu; runs while no agent does
}

// ServeHost runs an agent host until it has had no agent for Linger, or
// ctx ends: then it stops its agents (as Session.Stop does) before it
// returns, so that none is left without a host.
func ServeHost(ctx context.Context, cfg HostConfig) error {
	cfg.defaults()
	sock := HostSocketPath(cfg.Dir, os.Getpid())
	ln, err := listenOwnerOnly(sock)
	if err != nil {
		return err
	}
	h := &hostServer{
		cfg: cfg, ln: ln, quit: make(chan struct{}),
		hello: hostwire.Hello{Protocol: hostwire.Version, MinProtocol: hostwire.MinVersion, PID: os.Getpid(),
			Binary: cfg.Binary, Started: time.Now()},
		agents: map[string]*hostAgent{}, conns: map[*hostConn]struct{}{}, lastLaunch: time.Now(),
	}
	// Stops run on the host's behalf, not the client's: a client that
	// goes away mid-stop does not leave the agent half stopped.
	stopCtx, cancelStops := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelStops()
	h.stopped = stopCtx
	h.idle = time.AfterFunc(cfg.Linger, h.idleCheck)
	cfg.Log.Info("agent host listening", "socket", sock, "protocol", hostwire.Version)
	if cfg.Ready != nil {
		cfg.Ready(sock)
	}
	accepted := make(chan error, 1)
	go func() { accepted <- h.acceptLoop() }()
	var why, failed error
	select {
	case <-h.quit:
	case <-ctx.Done():
		why = ctx.Err()
	case err := <-accepted:
		why = fmt.Errorf("accept clients: %w", err)
		failed = why
	}
	h.shutdown(why)
	return failed
}

func (h *hostServer) acceptLoop() error {
	for {
		nc, err := h.ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		// Each peer is judged on its own goroutine: one that is refused
		// never stops the others being served.
		go h.greet(nc)
	}
}

// greet checks who the peer is and exchanges hellos; then serves it.
func (h *hostServer) greet(nc *net.UnixConn) {
	log := h.cfg.Log.With("peer", nc.RemoteAddr().String())
	refuse := func(code, msg string) {
		log.Warn("client refused", "why", msg)
		reply := h.hello
		reply.Refused = &hostwire.Refusal{Code: code, Message: msg}
		b, _ := json.Marshal(reply)
		nc.SetWriteDeadline(time.Now().Add(time.Second))
		hostwire.WriteFrame(nc, hostwire.TypeHello, b)
		nc.Close()
	}
	// The hello is read first, refusal or not: the client then reads
	// the answer, instead of finding its hello unread and the
	// connection reset.
	r := hostwire.NewReader(nc)
	nc.SetReadDeadline(time.Now().Add(helloWait))
	t, p, err := r.Next()
	if err != nil || t != hostwire.TypeHello {
		if !errors.Is(err, io.EOF) {
			// io.EOF is FindHosts asking whether the host answers.
			log.Warn("client sent no hello", "type", t, "err", err)
		}
		nc.Close()
		return
	}
	uid, pid, err := peerCred(nc)
	switch {
	case err != nil:
		refuse(hostwire.RefusedPeer, "the agent host cannot tell who is calling: "+err.Error())
		return
	case uid != os.Getuid():
		refuse(hostwire.RefusedPeer, "only the owner may connect to the agent host")
		return
	}
	if id, ok := h.heldBy(pid); ok {
		refuse(hostwire.RefusedPeer, fmt.Sprintf("the caller runs inside agent session %s; an agent never talks to the agent host", id))
		return
	}
	log = log.With("pid", pid)
	var theirs hostwire.Hello
	if err := json.Unmarshal(p, &theirs); err != nil {
		refuse(hostwire.RefusedVersion, "the hello is not JSON: "+err.Error())
		return
	}
	if _, err := hostwire.Negotiate(h.hello, theirs); err != nil {
		refuse(hostwire.RefusedVersion, fmt.Sprintf("the agent host refuses protocol version %d: %v", theirs.Protocol, err))
		return
	}
	nc.SetReadDeadline(time.Time{})
	b, _ := json.Marshal(h.hello)
	if err := hostwire.WriteFrame(nc, hostwire.TypeHello, b); err != nil {
		nc.Close()
		return
	}
	c := newHostConn(h, nc, r, log)
	h.mu.Lock()
	if h.closing {
		h.mu.Unlock()
		nc.Close()
		return
	}
	h.conns[c] = struct{}{}
	h.mu.Unlock()
	c.serve()
}

// heldBy names the live agent whose process set holds pid, or from which
// pid descends: such a process is refused, whatever it did to leave its
// agent's process group. A pid that cannot be told (0 or less) is held by
// the unknown, and refused too.
func (h *hostServer) heldBy(pid int) (string, bool) {
	if pid <= 0 {
		return "an unknown one", true
	}
	for _, a := range h.liveAgents() {
		if a.proc.Holds(pid) || descends(pid, a.proc.PID()) {
			return a.id, true
		}
	}
	return "", false
}

func (h *hostServer) liveAgents() []*hostAgent {
	h.mu.Lock()
	defer h.mu.Unlock()
	var live []*hostAgent
	for _, a := range h.agents {
		if !a.ended() {
			live = append(live, a)
		}
	}
	return live
}

func (h *hostServer) agent(id string) (*hostAgent, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok := h.agents[id]
	if !ok {
		return nil, fmt.Errorf("no agent %s in this host", id)
	}
	return a, nil
}

func (h *hostServer) forget(c *hostConn) {
	h.mu.Lock()
	delete(h.conns, c)
	h.mu.Unlock()
}

// handle answers one request. A stop is answered once the agent has ended,
// from a goroutine of its own: the connection's other requests go on.
func (h *hostServer) handle(c *hostConn, req hostwire.Request) {
	reply := hostwire.Reply{ID: req.ID}
	fail := func(err error) {
		reply.Error = err.Error()
		c.send(hostwire.TypeReply, reply)
	}
	var a *hostAgent
	if req.Op != hostwire.OpLaunch && req.Op != hostwire.OpList && req.Op != hostwire.OpStatus {
		var err error
		if a, err = h.agent(req.Session); err != nil {
			fail(err)
			return
		}
	}
	switch req.Op {
	case hostwire.OpLaunch:
		if req.Launch == nil {
			fail(errors.New("launch: no agent given"))
			return
		}
		var attach func(*hostAgent)
		if req.Launch.Attach {
			// Before the agent's terminal is first read: from its
			// first byte, whatever it prints at once.
			attach = func(a *hostAgent) {
				info := a.info()
				reply.Agent = &info
				a.attach(c, reply)
			}
		}
		a, err := h.launch(*req.Launch, attach)
		if err != nil {
			fail(err)
			return
		}
		if attach != nil {
			return
		}
		info := a.info()
		reply.Agent = &info
	case hostwire.OpAttach:
		a.attach(c, reply)
		return
	case hostwire.OpDetach:
		a.detach(c)
		c.detachedFrom(a.id)
	case hostwire.OpResize:
		if req.Size == nil {
			fail(errors.New("resize: no size given"))
			return
		}
		if err := a.resize(req.Size.Cols, req.Size.Rows); err != nil {
			fail(err)
			return
		}
	case hostwire.OpSignal:
		if err := a.signal(req.Signal); err != nil {
			fail(err)
			return
		}
	case hostwire.OpStop:
		grace, kill := h.cfg.StopGrace, false
		if req.Stop != nil {
			grace, kill = cmp.Or(req.Stop.Grace, grace), req.Stop.Kill
		}
		go func() {
			if err := a.stop(h.stopped, grace, kill); err != nil {
				fail(err)
				return
			}
			info := a.info()
			reply.Agent = &info
			c.send(hostwire.TypeReply, reply)
		}()
		return
	case hostwire.OpList:
		h.mu.Lock()
		all := make([]*hostAgent, 0, len(h.agents))
		for _, a := range h.agents {
			all = append(all, a)
		}
		h.mu.Unlock()
		reply.Agents = []hostwire.Agent{}
		for _, a := range all {
			reply.Agents = append(reply.Agents, a.info())
		}
		slices.SortFunc(reply.Agents, func(x, y hostwire.Agent) int { return x.Started.Compare(y.Started) })
	case hostwire.OpStatus:
		st := h.status()
		reply.Status = &st
	default:
		fail(fmt.Errorf("unknown op %q", req.Op))
		return
	}
	c.send(hostwire.TypeReply, reply)
}

func (h *hostServer) status() hostwire.Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := hostwire.Status{PID: h.hello.PID, Binary: h.hello.Binary, Protocol: hostwire.Version, Started: h.hello.Started, Clients: len(h.conns)}
	for _, a := range h.agents {
		if a.ended() {
			st.Ended++
		} else {
			st.Agents++
		}
	}
	return st
}

// input hands input to an agent; what cannot be delivered is told to the
// client as an event (input has no reply).
func (h *hostServer) input(c *hostConn, id string, data []byte) {
	a, err := h.agent(id)
	if err == nil {
		err = a.sendInput(data)
	}
	if err != nil {
		c.send(hostwire.TypeEvent, hostwire.Event{Kind: hostwire.EventInputRefused, Session: id, Reason: err.Error()})
	}
}

// launch starts an agent, unless the host is on its way out (the client
// starts another host then) or the session already runs here. attach, when
// set, is called before the agent's output is first read.
func (h *hostServer) launch(l hostwire.Launch, attach func(*hostAgent)) (*hostAgent, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return nil, errHostClosing
	}
	if old, ok := h.agents[l.Session]; ok && !old.ended() {
		return nil, fmt.Errorf("session %s is already running", l.Session)
	}
	a, err := startHostAgent(l, &h.cfg, h.agentEnded)
	if err != nil {
		return nil, fmt.Errorf("launch %s: %w", l.Session, err)
	}
	if attach != nil {
		attach(a)
	}
	a.begin()
	h.agents[a.id] = a
	h.lastLaunch = time.Now()
	h.idle.Stop()
	h.pruneEndedLocked()
	h.cfg.Log.Info("agent started", "session", a.id, "pid", a.proc.PID(), "holder", a.proc.Holder())
	return a, nil
}

// errHostClosing refuses a launch in a host that is exiting.
var errHostClosing = errors.New("the agent host is exiting; start another")

// pruneEndedLocked forgets the oldest ended agents past keepEndedAgents.
func (h *hostServer) pruneEndedLocked() {
	var ended []*hostAgent
	for _, a := range h.agents {
		if a.ended() {
			ended = append(ended, a)
		}
	}
	slices.SortFunc(ended, func(x, y *hostAgent) int { return x.started.Compare(y.started) })
	for len(ended) > keepEndedAgents {
		delete(h.agents, ended[0].id)
		ended = ended[1:]
	}
}

// agentEnded tells every client, and starts the idle clock when it was
// the last agent.
func (h *hostServer) agentEnded(a *hostAgent) {
	info := a.info()
	ev := hostwire.Event{Kind: hostwire.EventExit, Session: a.id, Exit: info.Exit}
	h.mu.Lock()
	conns := make([]*hostConn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	live := 0
	for _, x := range h.agents {
		if !x.ended() {
			live++
		}
	}
	if live == 0 && !h.closing {
		h.idle.Reset(h.cfg.Linger)
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.send(hostwire.TypeEvent, ev)
	}
}

// idleCheck ends the host when no agent runs and no launch came for
// Linger.
func (h *hostServer) idleCheck() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return
	}
	for _, a := range h.agents {
		if !a.ended() {
			return
		}
	}
	if wait := h.cfg.Linger - time.Since(h.lastLaunch); wait > 0 {
		h.idle.Reset(wait)
		return
	}
	h.closing = true
	close(h.quit)
}

// shutdown refuses new clients and launches, stops every agent still
// running (why says what made the host go, nil for idleness), and closes
// every connection once it has been told.
func (h *hostServer) shutdown(why error) {
	h.mu.Lock()
	h.closing = true
	h.idle.Stop()
	h.mu.Unlock()
	h.ln.Close() // removes the socket file: net's unlink-on-close
	live := h.liveAgents()
	if len(live) > 0 {
		h.cfg.Log.Warn("agent host exiting: stopping its agents", "agents", len(live), "why", why)
	}
	var wg sync.WaitGroup
	for _, a := range live {
		wg.Go(func() { a.stop(h.stopped, h.cfg.StopGrace, false) })
	}
	wg.Wait()
	h.mu.Lock()
	conns := make([]*hostConn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.shutdown()
	}
	// The process exits when this returns: what each client has been
	// told (its agents' exits) must be on its socket first.
	for _, c := range conns {
		<-c.served
	}
	h.cfg.Log.Info("agent host exited", "why", why)
}

// HostSocketPath is where the host of process pid listens: the protocol
// version is in the name, so that a client knows before it dials whether
// it speaks it.
func HostSocketPath(runtimeDir string, pid int) string {
	return filepath.Join(hostsDir(runtimeDir), fmt.Sprintf("%d.v%d.sock", pid, hostwire.Version))
}

func hostsDir(runtimeDir string) string { return filepath.Join(runtimeDir, "hosts") }

// listenOwnerOnly listens on a Unix socket at path in a folder only the
// owner can enter, the socket itself 0600. A file already at path is
// stale: the name holds this process's pid.
func listenOwnerOnly(path string) (*net.UnixListener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("restrict %s: %w", dir, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove the stale socket %s: %w", path, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restrict %s: %w", path, err)
	}
	return ln, nil
}
