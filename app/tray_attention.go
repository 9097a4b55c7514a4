package app

import (
	"fmt"

	"fyne.io/fyne/v2"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// notifyAttention sends a desktop notification for each question, escalation and agent
// notification (OSC 9/777, a Claude Code Notification hook) in now that was not in before:
// an agent started waiting for the person (one per wait: see supervisor.Attention).
func (g *gui) notifyAttention(before, now trayModel) {
	seen := map[string]bool{}
	for _, q := range before.questions {
		seen[q.ID] = true
	}
	for _, r := range before.escalated {
		seen[r.ID] = true
	}
	for _, n := range before.notes {
		seen[n.key()] = true
	}
	for _, n := range now.notes {
		if !seen[n.key()] {
			session := n.session
			g.sendNotification(n.notification(g.who(session, now)), func() { g.showSessions(session) })
			g.log.Info("tray: agent notification notified", "session", n.session, "seq", n.Seq)
		}
	}
	for _, q := range now.questions {
		if !seen[q.ID] {
			g.sendNotification(fyne.NewNotification(shorten(g.who(q.SessionID, now)+" asks", 200), shorten(q.Text, 200)),
				func() { g.showQuestion(q.SessionID, q.ID) })
			g.log.Info("tray: question notified", "question", q.ID, "session", q.SessionID)
		}
	}
	for _, r := range now.escalated {
		if !seen[r.ID] {
			session := r.SessionID
			g.sendNotification(fyne.NewNotification(shorten(g.who(session, now)+" escalates", 200), shorten(r.Text, 200)),
				func() { g.showSessions(session) })
			g.log.Info("tray: escalation notified", "report", r.ID, "session", r.SessionID)
		}
	}
}

// trayState is what the tray icon says.
type trayState int

const (
	stateIdle      trayState = iota
	stateWorking             // an agent's screen is changing
	stateAttention           // a question waits, or an agent's screen looks like one
)

// agentNote is an agent's desktop notification (OSC 9/777), which the supervisor has
// already sanitized and bounded.
type agentNote struct {
	session string
	supervisor.Attention
}

// key tells notifications apart across sessions and repeats of the same text.
func (n agentNote) key() string { return fmt.Sprintf("%s#%d", n.session, n.Seq) }

// notification is the desktop notification for n, from the agent who: its own title and
// body, after its name (an agent could otherwise pose as another, or as Switchboard).
func (n agentNote) notification(who string) *fyne.Notification {
	title := who + " needs you"
	if n.Title != "" {
		title = who + ": " + n.Title
	}
	return fyne.NewNotification(shorten(title, 200), shorten(n.Body, 200))
}

// who names the agent of session for a notification as the sidebar does, and its
// repository ("Fix the login form in demo"); by its profile when the model has not read
// the session yet ("claude in demo"); "An agent" when it knows nothing of it.
func (g *gui) who(session string, m trayModel) string {
	repoName := func(id string) string {
		for _, r := range m.repos {
			if r.ID == id {
				return repoDisplayName(r)
			}
		}
		return ""
	}
	name, repo := "", ""
	for _, s := range m.live {
		if s.ID == session {
			name, repo = agentName(s), repoName(s.RepositoryID)
		}
	}
	if name == "" {
		s, ok := g.core.Agents().Get(session)
		if !ok {
			return "An agent"
		}
		info := s.Info()
		name, repo = info.Profile, repoName(info.RepositoryID)
	}
	if repo == "" {
		return name
	}
	return name + " in " + repo
}
