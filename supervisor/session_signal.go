package supervisor

import "time"

// What the agent's CLI says of its own state, beside what its screen looks
// like: Claude Code's hooks (hooks.go), its session_report calls (the
// registry passes them on) and its terminal notifications (Attention).
// The session's status prefers them over the screen heuristic.

// SignalState is a state the CLI reports.
type SignalState string

const (
	SignalWorking SignalState = "working" // a turn started, a tool ran, a heartbeat
	SignalWaiting SignalState = "waiting" // it asks the person (a permission, a question)
	SignalIdle    SignalState = "idle"    // its turn ended; it waits for a new prompt
)

// Where a signal or a notification came from.
const (
	SourceOSC    = "osc"    // an OSC 9 / OSC 777 desktop notification
	SourceHook   = "hook"   // a Claude Code hook
	SourceReport = "report" // a session_report
)

// Signal is the CLI's last word on its state.
type Signal struct {
	State SignalState `json:"state"`
	// Source is SourceHook or SourceReport; Event the hook's event
	// (Notification, Stop…) or the report's kind (heartbeat, question…).
	Source string    `json:"source"`
	Event  string    `json:"event"`
	At     time.Time `json:"at"`
}

// defaultSignalHold is how long a "working" signal outlives a still
// screen: an agent at work redraws (Claude Code's spinner ticks every
// second), so a screen still this long after the last word says the
// agent stopped without saying so (a turn interrupted with Esc sends no
// Stop hook; a CLI that reports heartbeats never reports its end).
const defaultSignalHold = 2 * time.Minute

// Signal records what the CLI says of its state. A waiting signal with a
// title or body is also a notification to the person (Attention, Source
// SourceHook); a working or idle one ends the notification that holds: the
// agent has moved on. It does nothing once the agent has exited.
func (s *Session) Signal(sig Signal, title, body string) {
	if sig.At.IsZero() {
		sig.At = time.Now()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exit != nil {
		return
	}
	s.signal = &sig
	switch {
	case sig.State != SignalWaiting:
		s.attention = nil
	case title != "" || body != "":
		s.waitLocked(Attention{Title: title, Body: body, At: sig.At, Source: sig.Source})
	}
}

// Answered ends a wait that a session_report question started: the person
// answered it in Switchboard, not in the terminal.
func (s *Session) Answered() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.signal != nil && s.signal.State == SignalWaiting && s.signal.Source == SourceReport {
		s.signal = nil
	}
}

// LastSignal returns the CLI's last signal, or nil.
func (s *Session) LastSignal() *Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.signalLocked()
}

func (s *Session) signalLocked() *Signal {
	if s.signal == nil {
		return nil
	}
	sig := *s.signal
	return &sig
}

// Status reports what the agent is doing, its own word first:
//   - exited once it has;
//   - stopping from a stop's start until then;
//   - waiting for the person (StatusNeedsInput) while its notification
//     holds (Attention) or its last signal says it waits;
//   - idle after its signal that its turn ended (a Stop hook), until the
//     next signal;
//   - working after its signal that it works, while it is fresh: younger
//     than the hold, or the screen still changing within it;
//   - else what the screen suggests: working while it changes, waiting
//     when a still screen looks like a question, idle otherwise.
func (s *Session) Status() Status {
	now := time.Now()
	s.mu.Lock()
	exited, changed, asked, sig := s.exit != nil, s.changedAt, s.attention != nil, s.signalLocked()
	stopping := s.stopping != ""
	s.mu.Unlock()
	job := s.shellJob()
	switch {
	case exited:
		return StatusExited
	case stopping:
		return StatusStopping
	case asked:
		return StatusNeedsInput
	case sig != nil && sig.State == SignalWaiting:
		return StatusNeedsInput
	case job == jobRunning:
		return StatusRunning
	case job == jobNone:
		return StatusIdle
	case sig != nil && sig.State == SignalIdle:
		return StatusIdle
	case sig != nil && sig.State == SignalWorking && now.Sub(later(sig.At, changed)) < s.signalHold():
		return StatusRunning
	case now.Sub(changed) < s.cfg.IdleAfter:
		return StatusRunning
	case looksLikeQuestion(s.term.Text()):
		return StatusNeedsInput
	}
	return StatusIdle
}

// What holds a shell's terminal (shellJob).
const (
	jobUnknown = iota // not a shell, or the kernel does not say
	jobRunning        // a command the shell started
	jobNone           // the shell itself, at its prompt
)

// shellJob is the shell profile's status signal. A shell says nothing of
// itself, and its screen misleads (a prompt redrawn, a sleep that prints
// nothing): whether a command holds the terminal is what counts.
func (s *Session) shellJob() int {
	if s.profile != ShellProfile || s.hosted != nil {
		// A hosted agent's terminal is the host's: it is not asked.
		return jobUnknown
	}
	running, ok := s.proc.ForegroundJob()
	switch {
	case !ok:
		return jobUnknown
	case running:
		return jobRunning
	}
	return jobNone
}

func (s *Session) signalHold() time.Duration {
	if s.cfg.SignalHold > 0 {
		return s.cfg.SignalHold
	}
	return defaultSignalHold
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
