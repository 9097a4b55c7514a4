//go:build unix

package supervisor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// hostAgent is one agent in the agent host: its terminal, process set and
// recording, the emulated screen of its output and the connections
// attached to it. Its read loop is the one reader of the terminal; it hands
// each read to the recorder's queue, the emulator and every attached
// connection, none of which can make it wait (a connection that falls
// behind is detached; only the recorder, which must lose nothing, can).
type hostAgent struct {
	id        string
	started   time.Time
	recording string
	files     []string // the session's files, removed when it ends
	proc      *Process
	recQ      *queue
	input     chan []byte // to the writer goroutine
	stopIn    chan struct{}
	log       *slog.Logger

	// begin starts reading the terminal, recording and waiting for the
	// agent; called once, after startHostAgent.
	begin    func()
	readDone chan struct{} // the read loop has ended
	done     chan struct{} // exit set, files removed, connections told

	// feed orders what reaches the recording and the emulator: the read
	// loop's output and a resize each take it around both, so the
	// recording holds them in the order the screen saw them. It is apart
	// from mu because the recorder's queue may make it wait, and nothing
	// that only reads the agent (info, attach) should.
	feed sync.Mutex

	// term is the agent's screen. It answers the program's queries
	// (cursor position, device attributes) itself, whether or not a
	// client is attached; a client's own emulator must not answer too.
	// Its own goroutine (emulate) feeds it from emuQ, so that emulating
	// a burst does not slow the read loop down; an attach waits for it to
	// catch up.
	term       *vt.Terminal
	scrollback int // term's scrollback limit
	emuQ       *queue
	emuDone    chan struct{} // emulate has taken everything
	emuMu      sync.Mutex
	emuCond    *sync.Cond // signalled when emulated grows
	emulated   uint64     // chunks and resizes term has taken; guarded by emuMu

	mu       sync.Mutex
	pushed   uint64                 // chunks and resizes queued on emuQ; guarded by mu
	total    uint64                 // bytes printed: the offset of the next; guarded by mu
	attached map[*hostConn]struct{} // guarded by mu
	cols     int                    // guarded by mu
	rows     int                    // guarded by mu
	stopping string                 // the reason a stop gave; guarded by mu
	exit     *hostwire.Exit         // guarded by mu
}

// startHostAgent starts l's agent and its recording. Its terminal is not
// read until begin: a client attached before then gets every byte. ended
// is called once, from the agent's goroutine, after it has exited and its
// exit is set, before done is closed.
func startHostAgent(l hostwire.Launch, cfg *HostConfig, ended func(*hostAgent)) (*hostAgent, error) {
	if l.Cols == 0 || l.Rows == 0 {
		l.Cols, l.Rows = 120, 40
	}
	if err := checkSize(l.Cols, l.Rows); err != nil {
		return nil, err
	}
	switch {
	case !strings.HasPrefix(l.Session, "ses_") || strings.ContainsAny(l.Session, `/\.`) || len(l.Session) > hostwire.MaxSessionID:
		return nil, fmt.Errorf("bad session id %q", l.Session)
	case l.Path == "":
		return nil, errors.New("no program to start")
	case !filepath.IsAbs(l.Recording.Path) || !filepath.IsAbs(l.Dir):
		return nil, fmt.Errorf("the working folder (%q) and the recording (%q) must be absolute paths", l.Dir, l.Recording.Path)
	}
	bx, err := boxFromWire(l.Box)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(l.Recording.Path), 0o700); err != nil {
		return nil, fmt.Errorf("create the recordings folder: %w", err)
	}
	if l.Recording.Keep {
		if err := keepRecording(l.Recording.Path); err != nil {
			return nil, err
		}
	}
	var recAt time.Time
	f, w, err := openRecording(l.Recording.Path, l.Cols, l.Rows, l.Recording.Env, l.Recording.Title, &recAt)
	if err != nil {
		return nil, err
	}
	proc, err := Start(Spec{Path: l.Path, Args: l.Args, Dir: l.Dir, Env: l.Env, Cols: uint16(l.Cols), Rows: uint16(l.Rows), box: bx})
	if err != nil {
		f.Close()
		os.Remove(l.Recording.Path)
		return nil, err
	}
	log := cfg.Log.With("session", l.Session)
	a := &hostAgent{
		id: l.Session, started: time.Now(), recording: l.Recording.Path, files: l.Files, proc: proc,
		recQ: newQueue(recLimit), input: make(chan []byte, inputQueue), stopIn: make(chan struct{}), log: log,
		readDone: make(chan struct{}), done: make(chan struct{}),
		attached: map[*hostConn]struct{}{}, cols: l.Cols, rows: l.Rows, scrollback: cmp.Or(l.Scrollback, cfg.Scrollback),
	}
	a.term = vt.New(l.Cols, l.Rows, vt.WithScrollback(a.scrollback), vt.WithReply(a.reply))
	a.emuQ, a.emuDone = newQueue(hostEmuLimit), make(chan struct{})
	a.emuCond = sync.NewCond(&a.emuMu)
	rec := newRecorder(f.Name(), f, w, &recAt, l.Recording.Cap, log)
	a.begin = func() {
		recDone := make(chan error, 1)
		goInBackground(func() { recDone <- recordQueue(a.recQ, rec) })
		go a.write()
		go a.emulate()
		go a.readLoop()
		go a.run(recDone, cfg.DrainWait, ended)
	}
	return a, nil
}

func (a *hostAgent) readLoop() {
	defer close(a.readDone)
	readChunks(a.proc.PTY(), func(c chunk) {
		a.feed.Lock()
		defer a.feed.Unlock()
		a.recQ.push(c)
		a.mu.Lock()
		defer a.mu.Unlock()
		a.toEmulatorLocked(c)
		off := a.total
		a.total += uint64(len(c.data))
		for conn := range a.attached {
			if !conn.offerOutput(a.id, off, c.data) {
				delete(a.attached, conn)
				conn.dropped(a.id, "this client fell too far behind the agent's output; attach again to catch up")
			}
		}
	})
}

// hostEmuLimit is how far the emulator may fall behind the read loop
// before the read loop waits: what an attach may wait for it to take.
const hostEmuLimit = 4 << 20

// toEmulatorLocked queues c (output or a resize) for the emulator. a.mu is
// held: an attach, holding it, knows everything queued.
func (a *hostAgent) toEmulatorLocked(c chunk) {
	if a.emuQ.push(c) {
		a.pushed++
	}
}

// emulate feeds term from emuQ until it is closed and drained.
func (a *hostAgent) emulate() {
	defer close(a.emuDone)
	var batch []chunk
	for {
		if batch = a.emuQ.take(batch); batch == nil {
			return
		}
		for _, c := range batch {
			if c.resize != [2]int{} {
				a.term.Resize(c.resize[0], c.resize[1])
			} else {
				a.term.Write(c.data)
			}
		}
		a.emuMu.Lock()
		a.emulated += uint64(len(batch))
		a.emuMu.Unlock()
		a.emuCond.Broadcast()
		clear(batch)
	}
}

// reply queues the emulator's answer to the program (called by term.Write,
// with its lock held: it must not wait). An answer that finds the input
// queue full is dropped, as a terminal's would be that nobody reads.
func (a *hostAgent) reply(p []byte) {
	select {
	case a.input <- p:
	default:
	}
}

// write is the only writer of the terminal: a program that stops reading
// its input stalls this goroutine alone.
func (a *hostAgent) write() {
	tty := a.proc.PTY()
	for {
		select {
		case p := <-a.input:
			if _, err := tty.Write(p); err != nil {
				return
			}
		case <-a.stopIn:
			return
		}
	}
}

// run waits for the agent, lets its output drain into the recording, and
// tells everyone it ended.
func (a *hostAgent) run(recDone <-chan error, drain time.Duration, ended func(*hostAgent)) {
	exit := reap(a.proc)
	drainPTY(a.proc, a.readDone, drain)
	a.emuQ.close()
	<-a.emuDone
	close(a.stopIn)
	a.recQ.close()
	if err := <-recDone; err != nil {
		a.log.Error("recording", "err", err)
	}
	a.proc.Close()
	for _, f := range a.files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			a.log.Warn("remove session file", "err", err)
		}
	}
	a.mu.Lock()
	if a.stopping != "" {
		exit.Reason = a.stopping
	}
	a.exit = &hostwire.Exit{Code: exit.Code, Signal: exit.Signal, Reason: exit.Reason, At: exit.At}
	// Every connection hears of the exit from the host (ended); the
	// attached ones have nothing more to get.
	a.attached = map[*hostConn]struct{}{}
	a.mu.Unlock()
	a.log.Info("agent ended", "code", exit.Code, "signal", exit.Signal, "reason", exit.Reason)
	// Told before done: whoever waits for the agent (a stop, the host's
	// shutdown) finds every client told.
	ended(a)
	close(a.done)
}

// info describes the agent.
func (a *hostAgent) info() hostwire.Agent {
	a.mu.Lock()
	defer a.mu.Unlock()
	ag := hostwire.Agent{Session: a.id, PID: a.proc.PID(), Status: hostwire.StatusRunning, Started: a.started,
		Cols: a.cols, Rows: a.rows, Holder: a.proc.Holder(), Recording: a.recording, Output: a.total, Clients: len(a.attached)}
	switch {
	case a.exit != nil:
		e := *a.exit
		ag.Status, ag.Exit = hostwire.StatusExited, &e
	case a.stopping != "":
		ag.Status = hostwire.StatusStopping
	}
	return ag
}

// ended reports whether the agent has exited and its exit is set (done
// may not be closed yet: clients are told first).
func (a *hostAgent) ended() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.exit != nil
}

// attach queues on c the reply (with Attached set), the screen's state
// and, from then on, every output frame and resize, all under the lock the
// read loop takes: the state is the screen after exactly the bytes before
// the first live frame, so nothing is missed between them and nothing
// comes twice. An ended agent's state is followed by its exit.
func (a *hostAgent) attach(c *hostConn, reply hostwire.Reply) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// Nothing is queued for the emulator while a.mu is held: once it has
	// taken what is, it holds exactly the bytes before a.total.
	a.emuMu.Lock()
	for a.emulated < a.pushed {
		a.emuCond.Wait()
	}
	a.emuMu.Unlock()
	state := a.term.AppendState(nil)
	reply.Attached = &hostwire.Attached{Session: a.id, Offset: a.total, Caught: uint64(len(state)),
		Cols: a.cols, Rows: a.rows, Scrollback: a.scrollback}
	c.send(hostwire.TypeReply, reply)
	c.queueState(a.id, a.total, state)
	if a.exit != nil {
		e := *a.exit
		c.send(hostwire.TypeEvent, hostwire.Event{Kind: hostwire.EventExit, Session: a.id, Exit: &e})
		return
	}
	a.attached[c] = struct{}{}
	c.attachedTo(a)
}

// detach stops output to c.
func (a *hostAgent) detach(c *hostConn) {
	a.mu.Lock()
	delete(a.attached, c)
	a.mu.Unlock()
}

// sendInput queues p for the agent; it does not wait for the agent to read.
func (a *hostAgent) sendInput(p []byte) error {
	select {
	case <-a.stopIn:
		return ErrEnded
	default:
	}
	select {
	case a.input <- p:
		return nil
	default:
		return errors.New("the agent is not reading its input")
	}
}

// resize changes the terminal's size. The recording, the emulator and
// every attached client see it in the same place in the output.
func (a *hostAgent) resize(cols, rows int) error {
	if err := checkSize(cols, rows); err != nil {
		return err
	}
	a.feed.Lock()
	defer a.feed.Unlock()
	if a.ended() {
		return ErrEnded
	}
	if err := a.proc.Resize(uint16(cols), uint16(rows)); err != nil {
		return err
	}
	a.recQ.push(chunk{at: time.Now(), resize: [2]int{cols, rows}})
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cols, a.rows = cols, rows
	a.toEmulatorLocked(chunk{resize: [2]int{cols, rows}})
	ev := hostwire.Event{Kind: hostwire.EventResize, Session: a.id, Size: &hostwire.Size{Cols: cols, Rows: rows}}
	for conn := range a.attached {
		conn.send(hostwire.TypeEvent, ev)
	}
	return nil
}

// hostSignal is the signal a client names.
func hostSignal(name string) (syscall.Signal, bool) {
	switch name {
	case "interrupt":
		return syscall.SIGINT, true
	case "terminate":
		return syscall.SIGTERM, true
	case "hangup":
		return syscall.SIGHUP, true
	case "kill":
		return syscall.SIGKILL, true
	}
	return 0, false
}

// signal sends one signal the way the agent's terminal would
// (Process.SignalGroup).
func (a *hostAgent) signal(name string) error {
	sig, ok := hostSignal(name)
	if !ok {
		return fmt.Errorf("unknown signal %q", name)
	}
	if a.ended() {
		return ErrEnded
	}
	return a.proc.SignalGroup(sig)
}

// stop ends the agent as Session.Stop does, and returns once it has ended
// or ctx has.
func (a *hostAgent) stop(ctx context.Context, grace time.Duration, kill bool) error {
	a.mu.Lock()
	if a.stopping == "" && a.exit == nil {
		a.stopping = "stopped"
	}
	a.mu.Unlock()
	killing := func() {
		a.mu.Lock()
		if a.exit == nil {
			a.stopping = "killed"
		}
		a.mu.Unlock()
	}
	return stopSteps(ctx, func() *Process { return a.proc }, a.done, grace, kill, killing, a.log)
}
