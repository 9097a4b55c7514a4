package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// TestTrayFollowsAgentSignals: the CLI's own signals (a Claude Code hook, as the registry
// passes it to the supervisor) make the tray's state: "needs you" with one desktop
// notification per time the agent starts waiting (a second Notification while it still
// waits is not announced again), working after UserPromptSubmit, and back to idle after
// Stop, whatever the agent's screen shows.
func TestTrayFollowsAgentSignals(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint}, log, func() {})
	sh := profile.Profile{ID: "sh", Name: "sh", Command: "/bin/sh", Prompt: profile.PromptNone}
	s, err := g.core.Agents().Launch(supervisor.LaunchSpec{SessionID: "ses_hooked", Dir: t.TempDir(), Profile: sh})
	if err != nil {
		t.Fatal(err)
	}
	hook := func(st supervisor.SignalState, event, body string) {
		title := ""
		if body != "" {
			title = "Claude Code"
		}
		s.Signal(supervisor.Signal{State: st, Source: supervisor.SourceHook, Event: event}, title, body)
	}
	before := g.menuModel()

	hook(supervisor.SignalWaiting, "Notification", "Claude needs your permission to use Bash")
	waiting := g.menuModel()
	if waiting.state != stateAttention || waiting.attention != "ses_hooked" || len(waiting.notes) != 1 {
		t.Fatalf("state %v, attention %q, notes %+v; want ses_hooked waiting", waiting.state, waiting.attention, waiting.notes)
	}
	if b := statusBadge(s.Status()); b != "⚠ needs you" {
		t.Errorf("badge %q", b)
	}
	test.AssertNotificationSent(t, fyne.NewNotification("sh: Claude Code", "Claude needs your permission to use Bash"),
		func() { g.notifyAttention(before, waiting) })

	// Still waiting: the new text is not a new notification.
	hook(supervisor.SignalWaiting, "Notification", "Claude is waiting for your input")
	again := g.menuModel()
	test.AssertNotificationSent(t, nil, func() { g.notifyAttention(waiting, again) })

	hook(supervisor.SignalWorking, "UserPromptSubmit", "")
	if m := g.menuModel(); m.state != stateWorking || m.attention != "" || len(m.notes) != 0 {
		t.Errorf("after UserPromptSubmit: state %v, attention %q, notes %+v; want working", m.state, m.attention, m.notes)
	}
	hook(supervisor.SignalIdle, "Stop", "")
	if m := g.menuModel(); m.state != stateIdle {
		t.Errorf("after Stop: state %v; want idle", m.state)
	}
	// The next wait is announced again.
	hook(supervisor.SignalWaiting, "Notification", "Claude needs your permission to use Edit")
	next := g.menuModel()
	test.AssertNotificationSent(t, fyne.NewNotification("sh: Claude Code", "Claude needs your permission to use Edit"),
		func() { g.notifyAttention(again, next) })
}
