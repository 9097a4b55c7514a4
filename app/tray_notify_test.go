package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// TestTrayAttentionOnAgentNotification: an agent's own desktop notification (OSC 777 here,
// printed by a shell under the real supervisor) puts the tray in its "needs you" state,
// names the session, marks it "needs you" in Sessions, and is announced once as a desktop
// notification with the agent's title and body.
func TestTrayAttentionOnAgentNotification(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint}, log, func() {})
	sh := profile.Profile{ID: "sh", Name: "sh", Command: "/bin/sh", Prompt: profile.PromptNone}
	s, err := g.core.Agents().Launch(supervisor.LaunchSpec{SessionID: "ses_note", Dir: t.TempDir(), Profile: sh})
	if err != nil {
		t.Fatal(err)
	}
	before := g.menuModel()
	if len(before.notes) != 0 {
		t.Fatalf("notes %+v before any notification", before.notes)
	}
	if err := s.Input([]byte(`printf '\033]777;notify;Shell;Pick a\tbranch\033\\'` + "\r")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the agent's notification", func() bool { return s.Attention() != nil })
	now := g.menuModel()
	if now.state != stateAttention || now.attention != "ses_note" || len(now.notes) != 1 {
		t.Fatalf("state %v, attention %q, notes %+v; want attention for ses_note", now.state, now.attention, now.notes)
	}
	if now.equal(before) {
		t.Error("the model did not change with a notification")
	}
	if b := statusBadge(s.Status()); b != "⚠ needs you" {
		t.Errorf("badge %q", b)
	}
	// The tab is a control character: the supervisor dropped it.
	test.AssertNotificationSent(t, fyne.NewNotification("sh: Shell", "Pick abranch"), func() { g.notifyAttention(before, now) })
	// The same notification is not announced twice.
	test.AssertNotificationSent(t, nil, func() { g.notifyAttention(now, g.menuModel()) })

	// The person types: the agent no longer waits.
	s.Input([]byte("\r"))
	if m := g.menuModel(); len(m.notes) != 0 || s.Attention() != nil {
		t.Errorf("after input: notes %+v, attention %+v", m.notes, s.Attention())
	}
}

func TestAgentNoteNotification(t *testing.T) {
	long := strings.Repeat("é", 300)
	for _, tt := range []struct {
		name string
		note agentNote
		want *fyne.Notification
	}{
		{"OSC 9 has no title", agentNote{session: "s", Attention: supervisor.Attention{Body: "done", Seq: 1}}, fyne.NewNotification("claude in demo needs you", "done")},
		{"OSC 777", agentNote{session: "s", Attention: supervisor.Attention{Title: "Codex", Body: "Approve?", Seq: 1}}, fyne.NewNotification("claude in demo: Codex", "Approve?")},
		{"bounded", agentNote{session: "s", Attention: supervisor.Attention{Title: long, Body: long}}, fyne.NewNotification(shorten("claude in demo: "+long, 200), shorten(long, 200))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.note.notification("claude in demo")
			if got.Title != tt.want.Title || got.Content != tt.want.Content {
				t.Errorf("notification %q / %q; want %q / %q", got.Title, got.Content, tt.want.Title, tt.want.Content)
			}
		})
	}
}
