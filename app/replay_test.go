package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// An ended session replays: its recording on a timeline, seekable, with
// its trace events; play runs to the end.
func TestReplayEndedSession(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	t.Setenv("SHELL", "/bin/sh")
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
	reg, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	started, err := invoke(g, mcpserver.MethodAgentStart, mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: reg.Repository.ID})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := g.core.Agents().Get(started.SessionID)
	s.Input([]byte("echo first; sleep 0.3; echo second\r"))
	// "\nsecond\n" is the command's output, not the echo of the line typed.
	waitUntil(t, "second", func() bool { return strings.Contains(s.Terminal().Text(), "\nsecond\n") })
	if _, err := invoke(g, mcpserver.MethodAgentStop, mcpserver.AgentStopArgs{SessionID: started.SessionID}); err != nil {
		t.Fatal(err)
	}

	g.showSessions(started.SessionID)
	w := g.sessions
	rv := w.replay
	if rv == nil {
		t.Fatalf("no replay for an ended session; the pane shows %T", w.termBox.Objects[0])
	}
	dur := rv.player.rec.duration()
	if dur < 300*time.Millisecond {
		t.Fatalf("recording lasts %v, want the 0.3 s sleep in it", dur)
	}
	if len(rv.events) == 0 {
		t.Error("no trace events beside the recording")
	}
	// At the end both lines show; seeking back to the start shows neither.
	rv.slider.SetValue(rv.slider.Max)
	if txt := rv.term.Text(); !strings.Contains(txt, "first") || !strings.Contains(txt, "second") {
		t.Errorf("at the end the screen shows:\n%s", txt)
	}
	if last := len(rv.events) - 1; rv.current != last {
		t.Errorf("at the end the marked trace event is %d, want the last, %d", rv.current, last)
	}
	rv.slider.SetValue(0)
	if txt := rv.term.Text(); strings.Contains(txt, "second") {
		t.Errorf("at the start the screen shows:\n%s", txt)
	}
	// Seeking to an event marks it (and the events at the same time).
	// The recording starts with the session: the session's first events
	// fall before its first output, and its last ones after its last.
	if first := rv.offset(rv.events[0]); first > 200*time.Millisecond {
		t.Errorf("the first trace event is %v into the recording", first)
	}
	for i, ev := range rv.events {
		if rv.offset(ev).Seconds() >= rv.slider.Max {
			break // after the last output: the end marks the last event
		}
		rv.slider.SetValue(rv.offset(ev).Seconds())
		// Marked: it, or one later within the slider's resolution.
		if rv.current < i || rv.offset(rv.events[rv.current])-rv.offset(ev) > time.Duration(rv.slider.Step*float64(time.Second)) {
			t.Errorf("at event %d (%v) the marked event is %d", i, rv.offset(ev), rv.current)
		}
	}
	// Play at 16× runs to the end and stops.
	rv.speed.SetSelected("16×")
	test.Tap(rv.play)
	waitUntil(t, "the replay to reach the end", func() bool {
		rv.mu.Lock()
		defer rv.mu.Unlock()
		return !rv.playing
	})
	if rv.slider.Value != rv.slider.Max {
		t.Errorf("playback stopped at %v of %v", rv.slider.Value, rv.slider.Max)
	}
	w.win.Close()
}

// The replay's list names each event, and for a report what the agent
// said, on one line and cut short.
func TestTraceLine(t *testing.T) {
	long := strings.Repeat("é", 100)
	for _, tc := range []struct {
		ev   store.TraceEvent
		want string
	}{
		{store.TraceEvent{Type: store.TraceToolCall, Method: "work.ack"}, "tool_call work.ack"},
		{store.TraceEvent{Type: store.TraceExit}, "exit"},
		{store.TraceEvent{Type: store.TraceReport, Method: "session.report", Report: &store.Report{Kind: store.ReportHeartbeat}}, "report session.report · heartbeat"},
		{store.TraceEvent{Type: store.TraceReport, Method: "session.report", Report: &store.Report{Kind: store.ReportHeartbeat, Text: "tests\n  pass;\tpublishing"}},
			"report session.report · heartbeat: tests pass; publishing"},
		{store.TraceEvent{Type: store.TraceQuestion, Method: "session.report", Report: &store.Report{Kind: store.ReportQuestion, Text: long}},
			"question session.report · question: " + strings.Repeat("é", 79) + "…"},
	} {
		if got := traceLine(tc.ev); got != tc.want {
			t.Errorf("traceLine(%+v) = %q, want %q", tc.ev, got, tc.want)
		}
	}
}
