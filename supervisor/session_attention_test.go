package supervisor

import (
	"os"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// waitAttention waits until the session's notification satisfies ok.
func waitAttention(t *testing.T, s *Session, what string, ok func(*Attention) bool) {
	t.Helper()
	ch, stop := s.ScreenChanged()
	defer stop()
	deadline, stopDeadline := nearDeadline(t)
	defer stopDeadline()
	for !ok(s.Attention()) {
		select {
		case <-ch:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("attention never %s: %+v; screen:\n%s", what, s.Attention(), s.Terminal().Text())
		}
	}
}

// TestAttentionFromNotifications runs the stand-in agent under the real
// PTY: its OSC 9 and 777 notifications make the session wait for the
// person, ahead of the screen heuristic (the screen just changed, which
// alone says "running"); typed input clears it, and so does output the
// agent prints by itself once the notification has settled.
func TestAttentionFromNotifications(t *testing.T) {
	sv, _, _ := newTestSupervisor(t, os.Environ())
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_notify", Dir: t.TempDir(), Profile: standinProfile(t, profile.PromptNone, "notify")})
	if err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, "NOTIFIED")
	// Two notifications in a row are one wait: the second one's text, the
	// first one's Seq.
	waitAttention(t, s, "the OSC 777 one", func(a *Attention) bool { return a != nil && a.Body == "Approve the plan?" })
	a := s.Attention()
	if a.Title != "Stand-in" || a.Seq != 1 || a.Source != SourceOSC || a.At.IsZero() {
		t.Errorf("attention %+v", a)
	}
	if st := s.Status(); st != StatusNeedsInput {
		t.Errorf("status %s with a notification, want needs_input", st)
	}
	if info := s.Info(); info.Status != StatusNeedsInput || info.Attention == nil || info.Attention.Seq != 1 {
		t.Errorf("info %+v", info)
	}

	// The person answers: the notification no longer holds.
	if err := s.Input([]byte("yes\r")); err != nil {
		t.Fatal(err)
	}
	if a := s.Attention(); a != nil {
		t.Errorf("attention %+v after input", a)
	}
	waitScreen(t, s, "GOT yes")
	if st := s.Status(); st == StatusNeedsInput {
		t.Errorf("status %s after input", st)
	}

	// A new notification, then the agent moves on by itself.
	s.Input([]byte("later\r"))
	waitAttention(t, s, "the second wait", func(a *Attention) bool { return a != nil && a.Seq == 2 && a.Body == "again" })
	waitScreen(t, s, "MOVED ON")
	waitAttention(t, s, "cleared by the agent's output", func(a *Attention) bool { return a == nil })

	// Not after the exit.
	s.Input([]byte("later\r"))
	waitAttention(t, s, "the third wait", func(a *Attention) bool { return a != nil && a.Seq == 3 })
	s.Stop(t.Context(), true)
	waitDone(t, s)
	if a, st := s.Attention(), s.Status(); a != nil || st != StatusExited {
		t.Errorf("after exit: attention %+v, status %s", a, st)
	}
}

// TestAttentionClearing checks the rules of Attention on the emulator
// alone, with times given: what output supersedes a notification and
// what does not.
func TestAttentionClearing(t *testing.T) {
	const settle = 200 * time.Millisecond
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		resizedAt time.Time
		after     time.Duration // output this long after the notification
		changed   bool
		holds     bool
	}{
		{"redraw with the notification", time.Time{}, settle / 2, true, true},
		{"output after it settled", time.Time{}, settle, true, false},
		{"nothing visible changed", time.Time{}, time.Hour, false, true},
		{"redraw after a resize", t0.Add(settle), settle + settle/2, true, true},
		{"output well after a resize", t0.Add(settle), 3 * settle, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Session{cfg: &Config{SettleDelay: settle}, term: vt.New(20, 2), resizedAt: tt.resizedAt}
			s.term.Write([]byte("\x1b]9;look\x07"))
			s.noteOutputLocked(t0, 0, false)
			if a := s.Attention(); a == nil || a.Body != "look" || !a.At.Equal(t0) {
				t.Fatalf("attention %+v after the notification", a)
			}
			s.term.Write([]byte("more"))
			s.noteOutputLocked(t0.Add(tt.after), 1, tt.changed)
			if holds := s.Attention() != nil; holds != tt.holds {
				t.Errorf("holds = %v; want %v", holds, tt.holds)
			}
		})
	}
}
