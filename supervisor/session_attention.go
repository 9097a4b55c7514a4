package supervisor

import "time"

// Attention is the agent's own word that it waits for the person: a
// desktop notification it sent through its terminal (OSC 9 or OSC 777, see
// vt.Notification) or a Claude Code Notification hook (Signal). The
// session's status prefers it over what the screen looks like.
//
// It holds until it is superseded:
//   - by input typed into the session (Input, Paste): the person answered;
//   - by a later signal of the CLI that it works or is idle (Signal);
//   - for a terminal notification only, by the agent's screen changing
//     once SettleDelay has passed since the notification: the agent moved
//     on by itself. Output within that moment is the redraw that came with
//     the notification, and a redraw within SettleDelay of a Resize is the
//     agent repainting for the new size; neither counts. (A hook's
//     notification waits for the hook that ends it: Claude Code redraws
//     while it waits.);
//   - by the agent's exit.
//
// A notification that comes while one holds replaces its text and keeps
// its Seq: the person is told once per time the agent starts waiting.
type Attention struct {
	// Title is OSC 777's title, empty for OSC 9; Title and Body are
	// sanitized (no control characters) and at most vt.MaxNotification
	// runes each.
	Title string    `json:"title,omitempty"`
	Body  string    `json:"body,omitempty"`
	At    time.Time `json:"at"`
	// Seq numbers the session's times of waiting from 1, so a watcher can
	// tell a new one from the same one with new text.
	Seq uint64 `json:"seq"`
	// Source is where it came from: SourceOSC or SourceHook.
	Source string `json:"source,omitempty"`
}

// Attention returns the agent's notification that still holds, or nil.
func (s *Session) Attention() *Attention {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attentionLocked()
}

// attentionLocked copies the notification that holds. s.mu is held.
func (s *Session) attentionLocked() *Attention {
	if s.attention == nil || s.exit != nil {
		return nil
	}
	a := *s.attention
	return &a
}

// noteOutputLocked updates the notification after the emulator took a batch of
// output: note is the terminal's last notification, noteBefore its Seq
// before the batch, changed whether the screen changed. s.mu is held.
func (s *Session) noteOutputLocked(now time.Time, noteBefore uint64, changed bool) {
	note := s.term.Notification()
	switch {
	case note.Seq != noteBefore:
		s.waitLocked(Attention{Title: note.Title, Body: note.Body, At: now, Source: SourceOSC})
	case changed && s.attention != nil && s.attention.Source == SourceOSC &&
		now.Sub(s.attention.At) >= s.cfg.SettleDelay && now.Sub(s.resizedAt) >= s.cfg.SettleDelay:
		s.attention = nil
	}
}

// waitLocked makes a the notification that holds; one that already holds
// lends it its Seq. s.mu is held.
func (s *Session) waitLocked(a Attention) {
	if s.attention != nil {
		a.Seq = s.attention.Seq
	} else {
		s.waits++
		a.Seq = s.waits
	}
	s.attention = &a
}

// inputTyped clears what said the agent waits (its notification, its
// signal): the person (or the prompt typed for them) answered.
func (s *Session) inputTyped() {
	s.mu.Lock()
	s.attention = nil
	if s.signal != nil && s.signal.State == SignalWaiting {
		s.signal = nil
	}
	s.mu.Unlock()
}
