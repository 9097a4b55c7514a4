package supervisor

import "time"

// Attention is a desktop notification the agent sent through its terminal
// (OSC 9 or OSC 777, see vt.Notification): its own word that it waits for
// the person, which the session's status prefers over what the screen
// looks like.
//
// It holds until it is superseded:
//   - by input typed into the session (Input, Paste): the person answered;
//   - by the agent's screen changing once SettleDelay has passed since the
//     notification: the agent moved on by itself. Output within that
//     moment is the redraw that came with the notification, and a redraw
//     within SettleDelay of a Resize is the agent repainting for the new
//     size; neither counts;
//   - by the next notification, which replaces it;
//   - by the agent's exit.
type Attention struct {
	// Title is OSC 777's title, empty for OSC 9; Title and Body are
	// sanitized (no control characters) and at most vt.MaxNotification
	// runes each.
	Title string    `json:"title,omitempty"`
	Body  string    `json:"body,omitempty"`
	At    time.Time `json:"at"`
	// Seq numbers the session's notifications from 1, so a watcher can
	// tell a new one from the same text sent again.
	Seq uint64 `json:"seq"`
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
		s.attention = &Attention{Title: note.Title, Body: note.Body, At: now, Seq: note.Seq}
	case changed && s.attention != nil &&
		now.Sub(s.attention.At) >= s.cfg.SettleDelay && now.Sub(s.resizedAt) >= s.cfg.SettleDelay:
		s.attention = nil
	}
}

// inputTyped clears the notification: the person (or the prompt typed for
// them) answered.
func (s *Session) inputTyped() {
	s.mu.Lock()
	s.attention = nil
	s.mu.Unlock()
}
