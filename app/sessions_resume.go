package app

import (
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Sessions ▸ Resume: a session that ended with the app (a quit, a crash, a
// kill) is listed "can resume", and Resume starts its agent again in its
// worktree on its own conversation (agent.resume).

const (
	labelResume = "Resume"
	// A session whose token a person revoked is resumed only on a
	// second, explicit yes: the resume mints it a new one.
	titleResumeRevoked = "Its token was revoked"
	labelResumeRevoked = "Resume with a new token"
	// badgeResumable marks, in the list, the sessions a resume may take up:
	// after a crash they are what the window lists first (the newest).
	badgeResumable = "↻ can resume"
)

// newResumeButton is the Resume button, hidden until a session that can be
// resumed is shown.
func (w *sessionsWindow) newResumeButton() *widget.Button {
	b := widget.NewButtonWithIcon(labelResume, theme.MediaReplayIcon(), w.resumeAgent)
	b.Importance = widget.HighImportance
	b.Hide()
	return b
}

// canResume reports whether s can be resumed now: it ended with the app,
// its profile resumes conversations and its worktree is still there.
func (w *sessionsWindow) canResume(s store.Session) bool {
	if !s.Resumable() {
		return false // no call for what the record already rules out
	}
	profiles, err := invoke(w.g, mcpserver.MethodProfileList, mcpserver.NoArgs{})
	if err != nil {
		w.g.log.Warn("sessions: profiles", "err", err)
		return false
	}
	return mcpserver.Resumable(s, profiles.Profiles)
}

// listResumable leaves the "can resume" badge only on the listed sessions
// whose worktree is still there: one discarded since is listed as it
// ended. It works on the list's own copies, read once per reload, so the
// badges (worked out off the Fyne goroutine too) need no disk access.
func listResumable(ss []store.Session) {
	for i := range ss {
		if ss[i].Resumable() && !dirExists(ss[i].Workspace.Path) {
			ss[i].EndedWithApp = false
		}
	}
}

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// resumeAgent resumes the selected session off the Fyne goroutine, then
// shows its live terminal.
func (w *sessionsWindow) resumeAgent() { w.resumeSession(w.selected, false) }

// resumeSession resumes session id; a session whose token a person revoked
// while it ran is resumed only once they confirm it here (confirmed).
func (w *sessionsWindow) resumeSession(id string, confirmed bool) {
	w.resume.Disable()
	go func() {
		_, err := invoke(w.g, mcpserver.MethodAgentResume, mcpserver.AgentResumeArgs{SessionID: id, ConfirmRevoked: confirmed})
		fyne.Do(func() {
			w.resume.Enable()
			if store.CodeOf(err) == store.CodeTokenRevoked && !confirmed {
				d := dialog.NewConfirm(titleResumeRevoked, err.Error(), func(ok bool) {
					if ok {
						w.resumeSession(id, true)
					}
				}, w.win)
				d.SetConfirmText(labelResumeRevoked)
				d.Show()
				return
			}
			if err != nil {
				w.g.log.Error("sessions: resume", "session", id, "err", err)
				w.status.SetText("Not resumed: " + err.Error())
				return
			}
			w.reload()
			if w.selected == id {
				w.selected = "" // shown again: now its live terminal, not the replay
				w.selectSession(id)
			}
		})
	}()
}
