package supervisor

import (
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// TestSignalStatus checks how the CLI's own signals make the status, ahead
// of the screen: each case is a screen (changing or still, looking like a
// question or not) and what happened since.
func TestSignalStatus(t *testing.T) {
	const idleAfter, hold = time.Second, time.Minute
	hook := func(st SignalState, ev string) func(*Session) {
		return func(s *Session) { s.Signal(Signal{State: st, Source: SourceHook, Event: ev}, "", "") }
	}
	report := func(st SignalState, ev string, ago time.Duration) func(*Session) {
		return func(s *Session) {
			s.Signal(Signal{State: st, Source: SourceReport, Event: ev, At: time.Now().Add(-ago)}, "", "")
		}
	}
	notification := func(s *Session) {
		s.Signal(Signal{State: SignalWaiting, Source: SourceHook, Event: "Notification"}, "Claude Code", "Claude needs your permission")
	}
	typed := func(s *Session) { s.inputTyped() }
	answered := func(s *Session) { s.Answered() }
	tests := []struct {
		name     string
		screen   string
		changing bool // the screen changed just now, else long ago
		steps    []func(*Session)
		want     Status
	}{
		{"screen alone: changing", "", true, nil, StatusRunning},
		{"screen alone: still", "done.", false, nil, StatusIdle},
		{"screen alone: a question", "Continue? ", false, nil, StatusNeedsInput},
		{"Notification hook on a changing screen", "", true, []func(*Session){notification}, StatusNeedsInput},
		{"Notification hook, then input", "", false, []func(*Session){notification, typed}, StatusIdle},
		{"Notification, then a tool ran", "", false, []func(*Session){notification, hook(SignalWorking, "PostToolUse")}, StatusRunning},
		{"Stop hook on a changing screen", "", true, []func(*Session){hook(SignalWorking, "UserPromptSubmit"), hook(SignalIdle, "Stop")}, StatusIdle},
		{"Stop hook on a screen that looks like a question", "Allow?", false, []func(*Session){hook(SignalIdle, "Stop")}, StatusIdle},
		{"UserPromptSubmit on a still screen", "Allow?", false, []func(*Session){hook(SignalWorking, "UserPromptSubmit")}, StatusRunning},
		{"report question", "", true, []func(*Session){report(SignalWaiting, "question", 0)}, StatusNeedsInput},
		{"report question answered", "", false, []func(*Session){report(SignalWaiting, "question", 0), answered}, StatusIdle},
		{"hook Notification outlives an answer", "", false, []func(*Session){notification, answered}, StatusNeedsInput},
		{"report heartbeat on a still screen", "", false, []func(*Session){report(SignalWorking, "heartbeat", 0)}, StatusRunning},
		{"stale heartbeat, still screen: the screen says", "Continue?", false, []func(*Session){report(SignalWorking, "heartbeat", 2*hold)}, StatusNeedsInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Session{cfg: &Config{IdleAfter: idleAfter, SignalHold: hold}, term: vt.New(40, 3)}
			s.term.Write([]byte(tt.screen))
			s.changedAt = time.Now().Add(-time.Hour)
			if tt.changing {
				s.changedAt = time.Now()
			}
			for _, step := range tt.steps {
				step(s)
			}
			if got := s.Status(); got != tt.want {
				t.Errorf("status %s; want %s (signal %+v, attention %+v)", got, tt.want, s.LastSignal(), s.Attention())
			}
		})
	}
}

// TestSignalNotifiesOncePerWait: a hook's Notification is a notification
// to the person (Attention, source hook); another one while the agent
// still waits keeps its Seq, so the tray tells the person once; after the
// agent moved on, the next wait is a new one. A terminal notification
// while a hook's holds is the same wait too.
func TestSignalNotifiesOncePerWait(t *testing.T) {
	s := &Session{cfg: &Config{IdleAfter: time.Second, SettleDelay: time.Millisecond}, term: vt.New(40, 3)}
	wait := func(body string) {
		s.Signal(Signal{State: SignalWaiting, Source: SourceHook, Event: "Notification"}, "Claude Code", body)
	}
	wait("Claude needs your permission to use Bash")
	a := s.Attention()
	if a == nil || a.Seq != 1 || a.Source != SourceHook || a.Title != "Claude Code" || a.Body != "Claude needs your permission to use Bash" {
		t.Fatalf("attention %+v", a)
	}
	wait("Claude is waiting for your input")
	s.term.Write([]byte("\x1b]9;also\x07"))
	s.mu.Lock()
	s.noteOutputLocked(time.Now(), 0, true)
	s.mu.Unlock()
	if a := s.Attention(); a == nil || a.Seq != 1 || a.Body != "also" {
		t.Fatalf("attention %+v; want the same wait (Seq 1) with the last text", a)
	}
	// Claude Code redraws while it waits: a hook's wait is not ended by
	// the screen (only a terminal notification's is).
	wait("again")
	s.mu.Lock()
	s.noteOutputLocked(time.Now().Add(time.Second), 1, true)
	s.mu.Unlock()
	if a := s.Attention(); a == nil || a.Seq != 1 {
		t.Fatalf("attention %+v after a redraw", a)
	}
	s.Signal(Signal{State: SignalWorking, Source: SourceHook, Event: "PostToolUse"}, "", "")
	if a := s.Attention(); a != nil {
		t.Fatalf("attention %+v after the agent moved on", a)
	}
	wait("next")
	if a := s.Attention(); a == nil || a.Seq != 2 {
		t.Fatalf("attention %+v; want a new wait", a)
	}
}
