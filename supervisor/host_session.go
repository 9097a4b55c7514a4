//go:build unix

package supervisor

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// hostCallWait bounds a call to an agent host made where no caller's
// context reaches (Launch, Resize, a last kill).
const hostCallWait = 30 * time.Second

// hostInputPiece is the most input one frame carries: a paste larger than
// a frame goes in pieces, in order.
const hostInputPiece = 64 << 10

// reattachTries is how many times in a row a hosted session attaches again
// after its stream ended without the agent's exit (the host detached a
// connection that fell behind, or the connection broke) before it gives
// the agent up.
const reattachTries = 3

// hostLinks are a supervisor's connections to agent hosts, one per host.
type hostLinks struct {
	mu          sync.Mutex
	current     *HostClient            // where new agents go; guarded by mu
	currentSock string                 // its socket; guarded by mu
	bySock      map[string]*HostClient // guarded by mu
}

// launchClient is the connection new agents are launched through: to a
// host speaking this build's protocol version, found in the runtime folder
// or started there. An older host is left to finish its own agents.
func (sv *Supervisor) launchClient(ctx context.Context, fresh bool) (*HostClient, string, error) {
	h := &sv.hosts
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.current; c != nil && !fresh && !ended(c.Done()) {
		return c, h.currentSock, nil
	}
	h.current = nil
	if !fresh {
		found, err := FindHosts(ctx, sv.cfg.RuntimeDir)
		if err != nil {
			return nil, "", err
		}
		for _, f := range found {
			if f.Protocol != hostwire.Version {
				continue
			}
			if c, err := sv.dialLocked(ctx, f.Path); err == nil {
				h.current, h.currentSock = c, f.Path
				return c, f.Path, nil
			}
		}
	}
	o := sv.cfg.Host
	started, err := StartHost(ctx, HostStart{Dir: sv.cfg.RuntimeDir, Binary: o.Binary, Linger: o.Linger, Env: o.Env})
	if err != nil {
		return nil, "", err
	}
	c, err := sv.dialLocked(ctx, started.Socket)
	if err != nil {
		return nil, "", err
	}
	h.current, h.currentSock = c, started.Socket
	return c, started.Socket, nil
}

// dialLocked connects to the host at socket, or returns the connection
// already there. sv.hosts.mu is held.
func (sv *Supervisor) dialLocked(ctx context.Context, socket string) (*HostClient, error) {
	h := &sv.hosts
	if c := h.bySock[socket]; c != nil && !ended(c.Done()) {
		return c, nil
	}
	c, err := DialHost(ctx, socket, "switchboard")
	if err != nil {
		return nil, err
	}
	if h.bySock == nil {
		h.bySock = map[string]*HostClient{}
	}
	h.bySock[socket] = c
	log := sv.cfg.Log.With("host", c.Host().PID)
	// The sessions learn of exits from their streams; what is left to
	// hear is input the host could not deliver.
	go func() {
		for {
			select {
			case ev := <-c.Events():
				if ev.Kind == hostwire.EventInputRefused {
					log.Warn("the agent host refused input", "session", ev.Session, "reason", ev.Reason)
				}
			case <-c.Done():
				return
			}
		}
	}()
	return c, nil
}

// closeHosts ends the connections to the hosts; their agents go on.
func (sv *Supervisor) closeHosts() {
	h := &sv.hosts
	h.mu.Lock()
	cs := h.bySock
	h.bySock, h.current = nil, nil
	h.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
}

func ended(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// launchHosted launches agent in an agent host, attached from its first
// byte. The files are the session's, written by the caller; the host
// removes them when the agent ends (the caller, when the launch fails).
func (sv *Supervisor) launchHosted(spec LaunchSpec, agent Spec, conf Confinement, recording string, files []string, typed bool) (*Session, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hostCallWait)
	defer cancel()
	wbox, err := wireBox(agent.box)
	if err != nil {
		return nil, err
	}
	if recording, err = filepath.Abs(recording); err != nil {
		return nil, fmt.Errorf("the recording's path: %w", err)
	}
	l := hostwire.Launch{Session: spec.SessionID, Path: agent.Path, Args: agent.Args, Dir: agent.Dir, Env: agent.Env,
		Cols: spec.Cols, Rows: spec.Rows, Scrollback: sv.cfg.Scrollback, Box: wbox, Files: files, Attach: true,
		Recording: hostwire.Recording{Path: recording, Title: spec.Profile.Name + " · " + spec.SessionID,
			Env:  map[string]string{"TERM": "xterm-256color", "SHELL": shellCommand("{shell}")},
			Cap:  cmp.Or(spec.RecordingCap, sv.cfg.RecordingCap),
			Keep: spec.Resume}}
	var c *HostClient
	var sock string
	var ag hostwire.Agent
	var st *HostStream
	for try := range 2 {
		// A host found lingering may exit as the launch comes: then a
		// new one is started, once.
		if c, sock, err = sv.launchClient(ctx, try > 0); err != nil {
			return nil, err
		}
		ag, st, err = c.Launch(ctx, l)
		if !errors.Is(err, ErrHostGone) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, errors.New("agent host launch: no output stream in the reply")
	}
	s := &Session{
		id: spec.SessionID, profile: spec.Profile.ID, repoID: spec.RepositoryID, permission: spec.Permission.Or(), confinement: conf,
		takesPrompts: spec.Profile.Prompt != profile.PromptNone, recCap: l.Recording.Cap,
	}
	sv.startHosted(s, c, sock, ag, st)
	if typed {
		go s.typePrompt(spec.Prompt, time.Time{})
	}
	return s, nil
}

// startHosted makes s the session of agent ag, whose output st brings,
// and registers it.
func (sv *Supervisor) startHosted(s *Session, c *HostClient, socket string, ag hostwire.Agent, st *HostStream) {
	at := st.Attached()
	cols, rows := cmp.Or(at.Cols, ag.Cols, 120), cmp.Or(at.Rows, ag.Rows, 40)
	s.started, s.recording = ag.Started, ag.Recording
	s.cfg, s.log = &sv.cfg, sv.cfg.Log
	s.emuQ, s.input, s.stopIn = newQueue(emuLimit), make(chan []byte, inputQueue), make(chan struct{})
	s.subs, s.screens = map[*Subscription]struct{}{}, map[chan struct{}]struct{}{}
	s.cols, s.rows = cols, rows
	s.agentUp, s.readDone, s.emuDone, s.done = make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	close(s.agentUp)
	s.hosted = newHostedAgent(c, socket, ag, s.log.With("session", ag.Session))
	var err error
	if s.procStart, err = ProcStart(ag.PID); err != nil {
		s.log.Warn("agent start time unknown", "session", s.id, "err", err)
	}
	if ag.Status == hostwire.StatusStopping {
		s.stopping = "stopped"
	}
	// No replies: the host answers the program's questions to its
	// terminal.
	s.term = vt.New(cols, rows, vt.WithScrollback(cmp.Or(at.Scrollback, sv.cfg.Scrollback)))
	goInBackground(s.emulate)
	go s.write()
	go s.runHosted(st)
	sv.mu.Lock()
	sv.sessions[s.id] = s
	sv.pruneEndedLocked()
	sv.mu.Unlock()
}

// runHosted feeds the emulator and the subscribers from the host's stream
// until the agent has ended, then concludes the session.
func (s *Session) runHosted(st *HostStream) {
	exit := s.readHosted(st)
	close(s.readDone)
	close(s.stopIn)
	s.emuQ.close()
	<-s.emuDone
	s.conclude(exit)
}

// readHosted reads the agent's output from st, and attaches again when
// the stream ends without the agent's exit. It returns how the agent
// ended.
func (s *Session) readHosted(st *HostStream) Exit {
	tries := 0
	var size [2]int // the size the emulator was last told of by the stream
	for {
		<-st.Ready()
		data, dropped, over := st.Read()
		if cols, rows := st.Size(); cols > 0 && rows > 0 && [2]int{cols, rows} != size {
			// Resized at the host (by this app or another client): the
			// bytes that follow were printed at the new size.
			size = [2]int{cols, rows}
			s.emuQ.push(chunk{at: time.Now(), resize: size})
		}
		if dropped > 0 {
			s.log.Warn("output from the agent host dropped: the screen is wrong until the agent redraws it", "session", s.id, "bytes", dropped)
		}
		if len(data) > 0 {
			tries = 0
			c := chunk{data: data, at: time.Now()}
			s.emuQ.push(c)
			s.mu.Lock()
			for sub := range s.subs {
				sub.offer(c.data)
			}
			s.mu.Unlock()
		}
		if !over {
			continue
		}
		if e := st.Exit(); e != nil {
			return Exit{Code: e.Code, Signal: e.Signal, Reason: e.Reason, At: e.At}
		}
		why := st.Err()
		if tries++; tries > reattachTries {
			return Exit{Code: -1, Reason: fmt.Sprintf("failed: lost the agent host: %v", why), At: time.Now()}
		}
		s.log.Warn("attaching to the agent host again", "session", s.id, "why", why)
		next, err := s.hosted.reattach()
		if err != nil {
			return Exit{Code: -1, Reason: fmt.Sprintf("failed: lost the agent host: %v", err), At: time.Now()}
		}
		st = next
	}
}

// hostedAgent is a hosted session's way to its agent: the host's
// connection and what the launch (or the host's list) said of it.
type hostedAgent struct {
	id     string
	host   int // the host's pid
	socket string
	pid    int    // the process the host started
	holder string // what holds its processes (HoldCgroup…)
	cgroup string // the leader's cgroup v2 path, for HoldCgroup
	log    interface{ Warn(string, ...any) }

	mu sync.Mutex
	c  *HostClient // guarded by mu; replaced by reattach
}

func newHostedAgent(c *HostClient, socket string, ag hostwire.Agent, log interface{ Warn(string, ...any) }) *hostedAgent {
	h := &hostedAgent{id: ag.Session, host: c.Host().PID, socket: socket, pid: ag.PID, holder: ag.Holder, log: log, c: c}
	if h.holder == HoldCgroup {
		h.cgroup = procCgroup(ag.PID)
	}
	return h
}

func (h *hostedAgent) client() *HostClient {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.c
}

// Write types p to the agent (the session's writer goroutine), in pieces a
// frame carries.
func (h *hostedAgent) Write(p []byte) (int, error) {
	c := h.client()
	for n := 0; n < len(p); n += hostInputPiece {
		if err := c.Input(h.id, p[n:min(len(p), n+hostInputPiece)]); err != nil {
			return n, err
		}
	}
	return len(p), nil
}

func (h *hostedAgent) resize(cols, rows int) error {
	ctx, cancel := context.WithTimeout(context.Background(), hostCallWait)
	defer cancel()
	return h.client().Resize(ctx, h.id, cols, rows)
}

// stop asks the host to stop the agent and waits for its answer (the
// agent has ended), or for done.
func (h *hostedAgent) stop(ctx context.Context, done <-chan struct{}, grace time.Duration, kill bool) error {
	if ended(done) {
		return nil
	}
	_, err := h.client().Stop(ctx, h.id, grace, kill)
	if err != nil && ended(done) {
		return nil
	}
	return err
}

// kill asks the host to kill the agent's process set at once.
func (h *hostedAgent) kill() {
	ctx, cancel := context.WithTimeout(context.Background(), hostCallWait)
	defer cancel()
	if _, err := h.client().Stop(ctx, h.id, 0, true); err != nil {
		h.log.Warn("kill the agent in its host", "err", err)
	}
}

// reattach attaches to the agent again, over a new connection when the
// old one has ended.
func (h *hostedAgent) reattach() (*HostStream, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hostCallWait)
	defer cancel()
	c := h.client()
	if ended(c.Done()) {
		nc, err := DialHost(ctx, h.socket, "switchboard")
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		h.c = nc
		h.mu.Unlock()
		c = nc
	}
	return c.Attach(ctx, h.id)
}

// holds reports whether process pid is in the agent's process set, from
// what the host said holds it: the same tests the host's own set makes.
func (h *hostedAgent) holds(pid int) bool {
	if h.holder == HoldCgroup {
		cg := procCgroup(pid)
		return h.cgroup != "" && (cg == h.cgroup || strings.HasPrefix(cg, h.cgroup+"/"))
	}
	return (&procSet{holder: h.holder, leader: h.pid}).holds(pid)
}

// procCgroup is process pid's cgroup v2 path ("" when unknown).
func procCgroup(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return ""
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if p, ok := bytes.CutPrefix(line, []byte("0::")); ok {
			return string(p)
		}
	}
	return ""
}

// Adopt takes over the agents that hosts in the runtime folder run: after
// a restart of the app, those its earlier run launched. For each host that
// speaks this build's protocol it makes a session of every agent still
// running there (attached, its screen rebuilt from the host's catch-up,
// its exit watched) unless this supervisor has it already. describe (nil
// for none) fills in what the host does not know: the repository, profile
// and confinement, from the daemon's store. A host that speaks another
// version is left alone, its agents running: the error names it (and
// wraps hostwire.ErrVersion), beside the sessions adopted.
func (sv *Supervisor) Adopt(ctx context.Context, describe func(sessionID string) Adopted) ([]*Session, error) {
	if sv.Closing() {
		return nil, ErrClosed
	}
	found, err := FindHosts(ctx, sv.cfg.RuntimeDir)
	if err != nil {
		return nil, err
	}
	var out []*Session
	var errs []error
	for _, f := range found {
		if f.Protocol < hostwire.MinVersion || f.Protocol > hostwire.Version {
			errs = append(errs, fmt.Errorf("agent host %d speaks protocol version %d, this build %d to %d: %w; its agents keep running there",
				f.PID, f.Protocol, hostwire.MinVersion, hostwire.Version, hostwire.ErrVersion))
			continue
		}
		ss, err := sv.adoptFrom(ctx, f, describe)
		out = append(out, ss...)
		if err != nil {
			errs = append(errs, fmt.Errorf("adopt the agents of host %d: %w", f.PID, err))
		}
	}
	return out, errors.Join(errs...)
}

func (sv *Supervisor) adoptFrom(ctx context.Context, f HostSocket, describe func(string) Adopted) ([]*Session, error) {
	sv.hosts.mu.Lock()
	c, err := sv.dialLocked(ctx, f.Path)
	sv.hosts.mu.Unlock()
	if err != nil {
		return nil, err
	}
	agents, err := c.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []*Session
	var errs []error
	for _, ag := range agents {
		if ag.Status == hostwire.StatusExited {
			continue
		}
		if s, ok := sv.Get(ag.Session); ok && s.Exit() == nil {
			continue
		}
		st, err := c.Attach(ctx, ag.Session)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var d Adopted
		if describe != nil {
			d = describe(ag.Session)
		}
		conf := d.Confinement
		if conf.Processes == "" {
			conf.Processes = ag.Holder
		}
		s := &Session{id: ag.Session, profile: d.Profile.ID, repoID: d.RepositoryID, permission: d.Permission.Or(), confinement: conf,
			takesPrompts: d.Profile.ID != "" && d.Profile.Prompt != profile.PromptNone, recCap: sv.cfg.RecordingCap}
		sv.startHosted(s, c, f.Path, ag, st)
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}
