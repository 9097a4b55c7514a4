package supervisor

import "time"

// Nudge types text into the agent the next time it waits at its prompt
// (at once when it waits there now), as a person would, and reports
// whether it will: a program that takes no prompts (a shell would run the
// text as a command) is left alone. An agent at work is not interrupted;
// it hears once it stops, within nudgeWait. A newer nudge replaces one
// not yet typed.
func (s *Session) Nudge(text string) bool {
	if !s.takesPrompts {
		return false
	}
	s.mu.Lock()
	waiting := s.nudge != ""
	s.nudge = text
	s.mu.Unlock()
	if !waiting {
		go s.deliverNudge()
	}
	return true
}

// nudgeWait bounds how long a nudge waits for a busy agent to stop.
const nudgeWait = 30 * time.Minute

// deliverNudge waits for the agent to wait at its prompt, then types the
// pending nudge. Status comes from the screen's timing as much as from
// events, so it is looked at on a tick.
func (s *Session) deliverNudge() {
	deadline := time.Now().Add(nudgeWait)
	tick := time.NewTicker(s.cfg.SettleDelay / 4)
	defer tick.Stop()
	for {
		st := s.Status()
		waits := st == StatusIdle || st == StatusNeedsInput
		if waits || time.Now().After(deadline) {
			s.mu.Lock()
			text := s.nudge
			s.nudge = ""
			s.mu.Unlock()
			if waits {
				s.typePrompt(text, time.Time{})
			}
			return
		}
		select {
		case <-s.done:
			return
		case <-tick.C:
		}
	}
}

// typePrompt types the first prompt (the bootstrap or the person's) once
// the agent's screen has settled: some output after since (when the agent
// started: a setup's output before it does not count), then quiet for
// SettleDelay (or PromptWait has passed, for a program that never stops
// redrawing).
func (s *Session) typePrompt(prompt string, since time.Time) {
	deadline := time.Now().Add(s.cfg.PromptWait)
	tick := time.NewTicker(s.cfg.SettleDelay / 4)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-tick.C:
		}
		s.mu.Lock()
		changed := s.changedAt
		s.mu.Unlock()
		quiet := changed.After(since) && time.Since(changed) >= s.cfg.SettleDelay
		if quiet || time.Now().After(deadline) {
			break
		}
	}
	if err := s.Paste(prompt); err != nil {
		return
	}
	// Enter on its own, after the paste: some programs treat a newline
	// inside a paste as text.
	time.Sleep(s.cfg.SettleDelay / 4)
	s.Input([]byte("\r"))
}
