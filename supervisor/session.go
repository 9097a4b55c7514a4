package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/asciicast"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// Status is what the supervisor sees of an agent: the CLI's own word (its
// hooks, reports and desktop notifications: session_signal.go,
// session_attention.go) first, else its screen. It is for people to look
// at: no workflow state is ever derived from it.
type Status string

const (
	StatusRunning    Status = "running"     // working: it said so, or the screen changed recently
	StatusIdle       Status = "idle"        // its turn ended, or the screen has been still for a while
	StatusNeedsInput Status = "needs_input" // waiting for you: it said so, or its still screen shows what looks like a question
	StatusStopping   Status = "stopping"    // a stop was asked for and the agent has not ended yet
	StatusExited     Status = "exited"
)

// Exit is how an agent's process ended.
type Exit struct {
	// Code is the exit status, or -1 when a signal ended the process.
	Code int `json:"code"`
	// Signal names the signal that ended it, if one did.
	Signal string `json:"signal,omitempty"`
	// Reason says who ended it: "exited", "stopped" (a stop asked for it),
	// "killed" (a stop had to kill it), or "failed" with the error.
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
	// Setup is set when the session's setup ended it (failed, timed out,
	// or was stopped): the agent never started.
	Setup bool `json:"setup,omitempty"`
}

// Info describes a live or just-ended session for listings.
type Info struct {
	SessionID    string `json:"session_id"`
	Profile      string `json:"profile"`
	RepositoryID string `json:"repository_id,omitempty"`
	// Permission is the mode the CLI was started in.
	Permission profile.Permission `json:"permission"`
	// Confinement says what holds the agent and what it can reach.
	Confinement Confinement `json:"confinement"`
	PID         int         `json:"pid"`
	Cols        int         `json:"cols"`
	Rows        int         `json:"rows"`
	Status      Status      `json:"status"`
	// Setup is set while the session's setup runs; the agent starts
	// after it, and PID is the setup's until then.
	Setup     bool      `json:"setup,omitempty"`
	StartedAt time.Time `json:"started_at"`
	Recording string    `json:"recording"`
	Exit      *Exit     `json:"exit,omitempty"`
	// Host is the pid of the agent host that runs the agent, 0 when
	// this process does: such an agent outlives the app.
	Host int `json:"host,omitempty"`
	// Attention is the agent's desktop notification that still holds
	// (see Attention); Status is StatusNeedsInput while it does.
	Attention *Attention `json:"attention,omitempty"`
	// Signal is the CLI's last word on its state (a hook, a report), which
	// Status prefers over the screen; nil when it has said nothing.
	Signal *Signal `json:"signal,omitempty"`
}

// Session is one agent running under the supervisor.
//
// Output flows one way: a single read loop reads the PTY and hands each
// chunk to the recorder queue, the emulator queue and every subscription,
// none of which can make it wait (see queue). Input, emulator replies and
// the bootstrap prompt go the other way through one writer goroutine, so a
// program that stops reading its terminal stalls only that goroutine.
type Session struct {
	id, profile, repoID string
	// takesPrompts is whether the program reads prompts a person types
	// (an agent CLI), unlike a shell, which would run them (Nudge).
	takesPrompts bool
	permission   profile.Permission
	confinement  Confinement
	recCap       int64 // the recording's cap, bytes
	started      time.Time
	master       ptyMaster // the PTY's controlling side, for its whole life
	term         *vt.Terminal
	recording    string
	files        []string // token and config files removed at exit
	cfg          *Config
	log          *slog.Logger
	// hosted is the agent host that runs the agent, nil when this
	// process does (session_hosted.go): then there is no master, no
	// proc and no recQ here, the host has them.
	hosted *hostedAgent

	emuQ   *queue
	recQ   *queue
	input  chan []byte   // to the writer goroutine
	stopIn chan struct{} // closed when the writer must stop

	mu sync.Mutex
	// proc is the process on the terminal: the setup's, then the agent's
	// (see setup.go). procStart is its kernel start time. Guarded by mu.
	proc      *Process
	procStart uint64
	settingUp bool                       // the setup runs; guarded by mu
	subs      map[*Subscription]struct{} // guarded by mu
	screens   map[chan struct{}]struct{} // guarded by mu
	cols      int                        // guarded by mu
	rows      int                        // guarded by mu
	changedAt time.Time                  // last screen change; guarded by mu
	exit      *Exit                      // guarded by mu
	stopping  string                     // the reason a stop gave; guarded by mu
	attention *Attention                 // the agent's notification that holds; guarded by mu
	waits     uint64                     // times it started waiting (Attention.Seq); guarded by mu
	signal    *Signal                    // the CLI's last signal; guarded by mu
	resizedAt time.Time                  // last Resize; guarded by mu
	nudge     string                     // text to type at the next wait (Nudge); guarded by mu

	agentUp  chan struct{} // the agent's process has started
	readDone chan struct{} // the read loop has ended
	emuDone  chan struct{} // the emulator has taken everything
	done     chan struct{} // cleanup finished, exit set
}

const (
	readSize   = 32 << 10
	slabSize   = 1 << 20
	emuLimit   = 64 << 20 // bytes the emulator may be behind before the agent waits
	recLimit   = 256 << 20
	subLimit   = 4 << 20
	inputQueue = 256
)

// ID is the session id.
func (s *Session) ID() string { return s.id }

// PID is the agent's process id (and process group id); while a setup
// runs, the setup's.
func (s *Session) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pidLocked()
}

func (s *Session) pidLocked() int {
	if s.hosted != nil {
		return s.hosted.pid
	}
	return s.proc.PID()
}

// ProcStart is the kernel start time (see ProcStart) of the process PID
// names.
func (s *Session) ProcStart() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.procStart
}

// process is the process on the terminal now: the setup's, then the
// agent's.
func (s *Session) process() *Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// AgentStarted is closed once the agent's process has started: at once
// without a setup, after a setup that succeeded, never after one that
// failed (Done is closed then).
func (s *Session) AgentStarted() <-chan struct{} { return s.agentUp }

// Done is closed once the agent has exited and the session is cleaned up.
func (s *Session) Done() <-chan struct{} { return s.done }

// Exit returns how the agent ended, or nil while it runs.
func (s *Session) Exit() *Exit {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exit == nil {
		return nil
	}
	e := *s.exit
	return &e
}

// Info describes the session.
func (s *Session) Info() Info {
	st := s.Status()
	s.mu.Lock()
	defer s.mu.Unlock()
	info := Info{SessionID: s.id, Profile: s.profile, RepositoryID: s.repoID, Permission: s.permission, Confinement: s.confinement, PID: s.pidLocked(),
		Cols: s.cols, Rows: s.rows, Status: st, Setup: s.settingUp, StartedAt: s.started, Recording: s.recording,
		Attention: s.attentionLocked(), Signal: s.signalLocked()}
	if s.hosted != nil {
		info.Host = s.hosted.host
	}
	if s.exit != nil {
		e := *s.exit
		info.Exit = &e
	}
	return info
}

// Snapshot copies the current screen.
func (s *Session) Snapshot() *vt.Snapshot { return s.term.Snapshot() }

// Terminal is the session's emulator, for readers that want more than a
// Snapshot (scrollback). It is safe for concurrent use.
func (s *Session) Terminal() *vt.Terminal { return s.term }

// Subscribe returns a subscription to the output from now on. Close it
// when done.
func (s *Session) Subscribe() *Subscription {
	sub := newSubscription(subLimit)
	s.mu.Lock()
	if s.exit != nil {
		s.mu.Unlock()
		sub.end()
		return sub
	}
	s.subs[sub] = struct{}{}
	s.mu.Unlock()
	sub.cancel = func() {
		s.mu.Lock()
		delete(s.subs, sub)
		s.mu.Unlock()
	}
	return sub
}

// ScreenChanged returns a channel that receives (without ever blocking the
// emulator) after the screen changes, coalescing changes that come faster
// than the reader takes them, and a function to stop it. A viewer paints
// from Snapshot when it fires, at whatever rate it chooses.
func (s *Session) ScreenChanged() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.screens[ch] = struct{}{}
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		delete(s.screens, ch)
		s.mu.Unlock()
	}
}

// Frames sends a snapshot of the screen each time it has changed, at most
// once per interval (a viewer painting at 30 frames a second passes 33 ms),
// the first one at once, until ctx ends or the agent has exited and its
// last screen was sent. A slow receiver gets the newest screen, never a
// queue of stale ones.
func (s *Session) Frames(ctx context.Context, interval time.Duration) <-chan *vt.Snapshot {
	out := make(chan *vt.Snapshot, 1)
	changed, stop := s.ScreenChanged()
	go func() {
		defer close(out)
		defer stop()
		var last uint64
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for first := true; ; first = false {
			if !first {
				select {
				case <-ctx.Done():
					return
				case <-changed:
				}
			}
			ended := s.Exit() != nil
			if seq := s.term.Seq(); first || seq != last {
				last = seq
				snap := s.term.Snapshot()
				select {
				case <-out: // the receiver is behind: replace its frame
				default:
				}
				out <- snap
			}
			if ended {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// ErrEnded is returned for input to a session whose agent has exited.
var ErrEnded = errors.New("the agent has exited")

// Input sends bytes to the agent as if typed. It does not wait for the
// agent to read them; it fails when too much input is already waiting.
func (s *Session) Input(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	select {
	case <-s.done:
		return ErrEnded
	case <-s.stopIn:
		return ErrEnded
	default:
	}
	select {
	case s.input <- append([]byte(nil), p...):
		s.inputTyped()
		return nil
	default:
		return errors.New("the agent is not reading its input")
	}
}

// Paste sends text the way a terminal pastes it: inside bracketed-paste
// markers when the program asked for them, so it is taken as text and not
// as keystrokes.
func (s *Session) Paste(text string) error {
	if s.term.Modes().BracketedPaste {
		// A pasted end marker would end the paste early and turn the
		// rest into keystrokes.
		text = strings.ReplaceAll(text, "\x1b[201~", "")
		return s.Input([]byte("\x1b[200~" + text + "\x1b[201~"))
	}
	return s.Input([]byte(text))
}

// Resize changes the terminal size of the PTY and the emulator together.
func (s *Session) Resize(cols, rows int) error {
	if err := checkSize(cols, rows); err != nil {
		return err
	}
	s.mu.Lock()
	if s.exit != nil {
		s.mu.Unlock()
		return ErrEnded
	}
	s.cols, s.rows = cols, rows
	s.resizedAt = time.Now()
	s.mu.Unlock()
	// Emulator first: output the program draws for the new size must land
	// on a screen of that size. The recording notes the resize in order
	// with the output, through its queue.
	s.term.Resize(cols, rows)
	// The screen changed size: viewers repaint now, not when the program
	// next prints (a program that ignores SIGWINCH never would).
	s.mu.Lock()
	s.notifyScreensLocked()
	s.mu.Unlock()
	if s.hosted != nil {
		// The host records the resize, in order with the output.
		return s.hosted.resize(cols, rows)
	}
	s.recQ.push(chunk{at: time.Now(), data: nil, resize: [2]int{cols, rows}})
	return s.process().Resize(uint16(cols), uint16(rows))
}

// checkSize refuses a terminal size no one would ask for: a screen that
// large would cost the emulator more than it is worth.
func checkSize(cols, rows int) error {
	if cols < 2 || rows < 1 || cols > 1000 || rows > 500 {
		return fmt.Errorf("terminal size %dx%d out of range", cols, rows)
	}
	return nil
}

// Stop ends the agent: an interrupt to its terminal's foreground job, then
// after grace a terminate (with a hangup) to its session, then a second
// later a kill of everything it started. With kill it goes straight to the
// kill. It returns once the agent has exited and the session is cleaned up,
// or when ctx ends.
func (s *Session) Stop(ctx context.Context, kill bool) (Exit, error) {
	s.mu.Lock()
	if s.stopping == "" {
		s.stopping = "stopped"
	}
	s.mu.Unlock()
	killing := func() {
		s.mu.Lock()
		s.stopping = "killed"
		s.mu.Unlock()
	}
	if s.hosted != nil {
		// The host runs the same steps on its agent's process set.
		if err := s.hosted.stop(ctx, s.done, s.cfg.StopGrace, kill); err != nil {
			return Exit{}, err
		}
	} else if err := stopSteps(ctx, s.process, s.done, s.cfg.StopGrace, kill, killing, s.log.With("session", s.id)); err != nil {
		return Exit{}, err
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		return Exit{}, ctx.Err()
	}
	return *s.Exit(), nil
}

// stopSteps ends what proc names (asked again each step: a setup may hand
// over to the agent in between): an interrupt, after grace a terminate and
// a hangup, a second later a kill of its whole process set (killing is
// called first). With kill it goes straight to the kill. It returns nil once
// done is closed, or ctx's error.
func stopSteps(ctx context.Context, proc func() *Process, done <-chan struct{}, grace time.Duration, kill bool, killing func(), log *slog.Logger) error {
	steps := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL}
	if kill {
		steps = steps[2:]
	}
	for i, sig := range steps {
		if sig == syscall.SIGKILL {
			killing()
		}
		p := proc()
		if err := p.SignalGroup(sig); err != nil {
			log.Warn("signal agent", "signal", sig, "err", err)
		}
		if sig == syscall.SIGTERM {
			// Interactive shells ignore SIGTERM but end on a hangup, which
			// is what closing a terminal window sends.
			p.SignalGroup(syscall.SIGHUP)
		}
		wait := grace
		switch {
		case i == len(steps)-1:
			wait = time.Hour // after the kill there is nothing left but to wait
		case sig == syscall.SIGTERM:
			// The interrupt had the grace; a terminate and a hangup are
			// asked to end at once, and a second later the kill comes:
			// a stop ends within the grace and two seconds.
			wait = min(wait, time.Second)
		}
		timer := time.NewTimer(wait)
		select {
		case <-done:
			timer.Stop()
			return nil
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
	return errors.New("unreachable")
}

// questionMarks are what agent CLIs and common tools show when they wait
// for a person: confirmation prompts, trust dialogs, selection menus.
var questionMarks = []string{
	"(y/n)", "[y/n]", "[Y/n]", "[y/N]", "(Y/n)", "(y/N)", "yes/no",
	"Do you want", "Do you trust", "trust this folder", "Trust and continue",
	"Press Enter", "press enter", "Allow", "Approve", "Continue?", "❯ 1.", "› 1.",
}

// looksLikeQuestion looks at the bottom of the screen, where prompts are.
func looksLikeQuestion(screen string) bool {
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	if len(lines) > 12 {
		lines = lines[len(lines)-12:]
	}
	tail := strings.Join(lines, "\n")
	for _, m := range questionMarks {
		if strings.Contains(tail, m) {
			return true
		}
	}
	last := strings.TrimSpace(lines[len(lines)-1])
	return strings.HasSuffix(last, "?") || strings.HasSuffix(last, "? ")
}

// run waits for the session's processes: the setup first when there is
// one (runSetup), then the agent; then it cleans up.
func (s *Session) run(recDone <-chan error, next *afterSetup) {
	if next != nil {
		if exit, ok := s.runSetup(next); !ok {
			s.finish(recDone, exit)
			return
		}
	}
	exit := reap(s.process())
	s.mu.Lock()
	if s.stopping != "" {
		exit.Reason = s.stopping
	}
	s.mu.Unlock()
	s.finish(recDone, exit)
}

// reap waits for p to exit and says how it ended.
func reap(p *Process) Exit {
	code, werr := p.Wait(context.Background())
	exit := Exit{Code: code, Reason: "exited", At: time.Now()}
	if werr != nil {
		exit.Reason = "failed: " + werr.Error()
	}
	if sig, ok := p.exitSignal(); ok {
		exit.Code, exit.Signal = -1, sig
	}
	return exit
}

// finish cleans up after the last process: the output drained into the
// recording, files removed, exit recorded, subscribers told.
func (s *Session) finish(recDone <-chan error, exit Exit) {
	proc := s.process()
	drainPTY(proc, s.readDone, s.cfg.DrainWait)
	close(s.stopIn)
	s.emuQ.close()
	s.recQ.close()
	<-s.emuDone
	if err := <-recDone; err != nil {
		s.log.Error("recording", "session", s.id, "err", err)
	}
	proc.Close()
	for _, f := range s.files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("remove session file", "session", s.id, "err", err)
		}
	}
	s.conclude(exit)
}

// conclude records exit once everything of the session has ended, tells
// its subscribers and screen watchers, then Config.Exited, and closes
// done.
func (s *Session) conclude(exit Exit) {
	s.mu.Lock()
	s.exit = &exit
	s.settingUp = false
	subs := s.subs
	s.subs = map[*Subscription]struct{}{}
	for ch := range s.screens {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	s.mu.Unlock()
	for sub := range subs {
		sub.end()
	}
	// Recorded before Done: whoever waits for the agent to end (a stop)
	// then finds the session ended everywhere.
	s.cfg.Exited(s.id, exit)
	close(s.done)
}

// drainPTY waits for the read loop of proc's terminal to end (readDone)
// once proc has exited. What it started may still hold the terminal open:
// the output gets wait to drain, then the group is killed so the read loop
// sees the end, and wait later our side is closed.
func drainPTY(proc *Process, readDone <-chan struct{}, wait time.Duration) {
	select {
	case <-readDone:
	case <-time.After(wait):
		proc.SignalGroup(syscall.SIGKILL)
		select {
		case <-readDone:
		case <-time.After(wait):
			// A grandchild in another session keeps the terminal: close
			// our side so the read fails.
			proc.Close()
			<-readDone
		}
	}
}

// openRecording creates the recording file (owner-only) and its writer.
func openRecording(path string, cols, rows int, env map[string]string, title string, at *time.Time) (*os.File, *asciicast.Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("create recording: %w", err)
	}
	*at = time.Now()
	w, err := asciicast.NewWriter(f, asciicast.Header{Width: cols, Height: rows, Timestamp: *at, Env: env, Title: title},
		func() time.Time { return *at })
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("start recording: %w", err)
	}
	return f, w, nil
}
