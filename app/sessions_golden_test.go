package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/app/termview"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// goldenAgentScreen is what the live agent prints: an agent CLI's screen
// with colours, bold and dim text, box drawing and a question at the
// bottom (so its badge says it needs you).
const goldenAgentScreen = "\x1b[38;5;208m*\x1b[0m \x1b[1mWelcome to Claude Code\x1b[0m\n" +
	"\x1b[2m  cwd: /home/ada/src/switchboard\x1b[0m\n" +
	"\n" +
	"\x1b[1m>\x1b[0m Work on your packet: snapshot tests for every window\n" +
	"\n" +
	"\x1b[32m●\x1b[0m Read(app/sessions.go)\n" +
	"  └ Read 431 lines\n" +
	"\x1b[32m●\x1b[0m Bash(go test -run Golden ./app/)\n" +
	"  └ \x1b[31mFAIL\x1b[0m TestSessionsGolden (0.84s)\n" +
	"    \x1b[2msessions_golden_test.go:88: image did not match\x1b[0m\n" +
	"\x1b[32m●\x1b[0m Update(app/sessions.go)\n" +
	"  └ Updated app/sessions.go with \x1b[32m4 additions\x1b[0m and \x1b[31m2 removals\x1b[0m\n" +
	"\n" +
	"╭────────────────────────────────────────────────╮\n" +
	"│ \x1b[1mEdit file\x1b[0m app/sessions.go                      │\n" +
	"│                                                │\n" +
	"│ Do you want to make this edit to sessions.go?  │\n" +
	"│ \x1b[36m❯ 1. Yes\x1b[0m                                       │\n" +
	"│   2. Yes, allow all edits during this session  │\n" +
	"│   3. No, and tell Claude what to do            │\n" +
	"╰────────────────────────────────────────────────╯\n"

// goldenRecordingStart is when the ended session's recording began.
var goldenRecordingStart = goldenAgo(65 * time.Minute)

// goldenRecording is the ended session's output: seconds into the
// recording and what was written then.
var goldenRecording = []struct {
	at   float64
	data string
}{
	{0.0, "\x1b[1m>_ OpenAI Codex\x1b[0m (v0.46.0)\r\n"},
	{0.4, "\x1b[2mmodel: gpt-5-codex   directory: ~/src/switchboard\x1b[0m\r\n\r\n"},
	{2.0, "\x1b[36m•\x1b[0m Calling switchboard.work_await_packet\r\n"},
	{2.3, "  └ claimed \x1b[1mFix clipped labels in the Sessions header\x1b[0m\r\n\r\n"},
	{6.8, "\x1b[36m•\x1b[0m Explored\r\n  └ Read sessions.go, settings.go\r\n\r\n"},
	{14.2, "\x1b[36m•\x1b[0m Edited app/sessions.go (\x1b[32m+6\x1b[0m \x1b[31m-3\x1b[0m)\r\n"},
	{14.3, "    \x1b[32m+ buttons := container.NewVBox(layout.NewSpacer(), stopKill)\x1b[0m\r\n" +
		"    \x1b[31m- top := container.NewBorder(nil, nil, nil, stopKill, head)\x1b[0m\r\n\r\n"},
	{22.5, "\x1b[36m•\x1b[0m Ran go test ./app/\r\n  └ \x1b[32mok\x1b[0m  github.com/switchboard-dev/switchboard/app  17.4s\r\n\r\n"},
	{31.5, "\x1b[36m•\x1b[0m Calling switchboard.artifact_publish (summary, patch)\r\n"},
	{38.0, "\x1b[36m•\x1b[0m Calling switchboard.work_complete\r\n\r\n\x1b[1mDone.\x1b[0m The packet is in review.\r\n"},
	{41.2, "\r\n\x1b[2mToken usage: 18.2K total\x1b[0m\r\n"},
}

// goldenSessionsData is four sessions: a live agent of this app waiting on
// a question, an external agent, an ended one with a recording, and one
// lost in a crash.
func goldenSessionsData() *goldenData {
	d := &goldenData{repos: goldenRepos()}
	d.sessions = []store.Session{
		{ID: goldenSesLive, Kind: store.SessionSupervised, RepositoryID: goldenRepoSwitchboard, Profile: "claude", TokenKeyID: goldenKeyLive,
			State: store.SessionRunning, PID: 48213, StartedAt: goldenAgo(7*time.Minute + 15*time.Second)},
		{ID: goldenSesExternal, Kind: store.SessionExternal, RepositoryID: goldenRepoWebsite, State: store.SessionRunning,
			StartedAt: goldenAgo(24 * time.Minute)},
		{ID: goldenSesEnded, Kind: store.SessionSupervised, RepositoryID: goldenRepoSwitchboard, Profile: "codex", TokenKeyID: goldenKeyEnded,
			State: store.SessionEnded, PID: 47122, StartedAt: goldenRecordingStart, EndedAt: goldenPtr(goldenRecordingStart.Add(41200 * time.Millisecond)),
			ExitCode: goldenPtr(0), EndReason: "exited"},
		{ID: goldenSesLost, Kind: store.SessionSupervised, RepositoryID: goldenRepoInfra, Profile: "shell",
			State: store.SessionLost, PID: 31877, StartedAt: goldenAgo(26 * time.Hour), EndedAt: goldenAgoPtr(25 * time.Hour), EndReason: "the app stopped while it ran"},
	}
	live := d.sessions[0]
	report := func(seq uint64, kind store.ReportKind, at time.Time, text string) store.Report {
		return store.Report{ID: "rep_" + strings.Repeat("0", 19) + string(rune('0'+seq)), Seq: seq, SessionID: live.ID, Kind: kind, Text: text, At: at}
	}
	question := store.Question{ID: "q_51e0b7c2a9d84f3617ac", SessionID: live.ID,
		Text:    "The Work window shows packet ages like “12m”, counted from now. Should the test pin the clock, or should the golden leave the ages out?",
		AskedAt: goldenAgo(40 * time.Second)}
	// A report is its trace event: the ended session's two are events 2
	// and 6 below.
	endedReports := []store.Report{
		{ID: "rep_1d0e", Seq: 2, SessionID: goldenSesEnded, Kind: store.ReportReady, Text: "connected", At: goldenRecordingStart.Add(1500 * time.Millisecond)},
		{ID: "rep_1d0f", Seq: 6, SessionID: goldenSesEnded, Kind: store.ReportHeartbeat, Text: "tests pass; publishing the patch", At: goldenRecordingStart.Add(30 * time.Second)},
	}
	d.details = map[string]mcpserver.SessionDetail{
		live.ID: {Session: live, Questions: []store.Question{question}, LastSeq: 14, Reports: []store.Report{
			report(1, store.ReportReady, goldenAgo(7*time.Minute), "connected; waiting for a packet"),
			report(2, store.ReportHeartbeat, goldenAgo(6*time.Minute+30*time.Second), "working on “Snapshot tests for every window”"),
			report(3, store.ReportHeartbeat, goldenAgo(3*time.Minute), "goldens drawn for Sessions, Work, Audit and Settings; looking at them now"),
			report(4, store.ReportQuestion, question.AskedAt, question.Text),
		}},
		goldenSesEnded: {Session: d.sessions[2], Questions: []store.Question{}, LastSeq: 9, Reports: endedReports},
	}
	withReport := func(ev store.TraceEvent, r *store.Report) store.TraceEvent { ev.Report = r; return ev }
	ev := func(seq uint64, sec float64, typ store.TraceType, method string) store.TraceEvent {
		return store.TraceEvent{Seq: seq, SessionID: goldenSesEnded, At: goldenRecordingStart.Add(time.Duration(sec * float64(time.Second))), Type: typ, Method: method}
	}
	d.trace = map[string][]store.TraceEvent{goldenSesEnded: {
		ev(1, 0, store.TraceSessionOpen, ""),
		withReport(ev(2, 1.5, store.TraceReport, "session.report"), &endedReports[0]),
		ev(3, 2.0, store.TraceToolCall, "work.await_packet"),
		ev(4, 2.2, store.TracePacketClaimed, ""),
		ev(5, 2.2, store.TraceToolResult, "work.await_packet"),
		withReport(ev(6, 30.0, store.TraceReport, "session.report"), &endedReports[1]),
		ev(7, 31.5, store.TraceToolCall, "artifact.publish"),
		ev(8, 38.0, store.TraceToolCall, "work.complete"),
		ev(9, 41.2, store.TraceExit, ""),
	}}
	return d
}

// writeGoldenRecording writes the ended session's asciicast recording
// where the supervisor looks for it.
func writeGoldenRecording(t *testing.T, sv *supervisor.Supervisor) {
	t.Helper()
	path := sv.RecordingPath(goldenSesEnded)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	head, _ := json.Marshal(map[string]any{"version": 2, "width": 84, "height": 22, "timestamp": goldenRecordingStart.Unix(),
		"title": "Codex · " + goldenSesEnded})
	b.Write(head)
	b.WriteByte('\n')
	for _, e := range goldenRecording {
		line, _ := json.Marshal([]any{e.at, "o", e.data})
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// goldenAgentScript draws screen.txt, and draws it again when the
// terminal is resized, as agent CLIs do: the supervisor sends the widget a
// new frame only when output arrives, so a program that stays silent after
// a resize would leave the widget on the old size.
const goldenAgentScript = `draw() { printf '\033[H\033[2J'; cat screen.txt; }
trap draw WINCH
draw
sleep 600 &
while kill -0 $! 2>/dev/null; do wait $!; done`

// startGoldenAgent runs the live session's agent, which shows
// goldenAgentScreen and waits. It is idle (a screen that stood still for a
// millisecond) and its screen asks a question, so its badge is steady.
func startGoldenAgent(t *testing.T) (*supervisor.Supervisor, *supervisor.Session) {
	t.Helper()
	dir := t.TempDir()
	sv := supervisor.New(supervisor.Config{
		RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "rec"),
		IdleAfter: time.Millisecond, Env: []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"},
	})
	t.Cleanup(func() { sv.Close(context.Background()) })
	if err := os.WriteFile(filepath.Join(dir, "screen.txt"), []byte(goldenAgentScreen), 0o600); err != nil {
		t.Fatal(err)
	}
	agent, err := sv.Launch(supervisor.LaunchSpec{
		SessionID: goldenSesLive, RepositoryID: goldenRepoSwitchboard, Dir: dir, Endpoint: testEndpoint, Token: "unused",
		Profile: profile.Profile{ID: "claude", Name: "Claude Code", Command: "/bin/sh",
			Args: []string{"-c", goldenAgentScript}, Prompt: profile.PromptNone},
	})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the agent's question", func() bool { return agent.Status() == supervisor.StatusNeedsInput })
	return sv, agent
}

// The Sessions window on a live agent (its terminal, reports and an open
// question with an answer being typed), then on an ended session's replay
// seeked to an event.
func TestSessionsGolden(t *testing.T) {
	sv, agent := startGoldenAgent(t)
	writeGoldenRecording(t, sv)
	eachGoldenTheme(t, func(t *testing.T, a fyne.App, name string) {
		g := newGoldenGUI(t, a, goldenSessionsData(), sv)
		g.showSessions("")
		w := g.sessions
		defer w.win.Close()
		w.win.Resize(fyne.NewSize(1280, 760))
		if w.selected != goldenSesLive {
			t.Fatalf("the window opened on %q, not the newest session", w.selected)
		}
		term, ok := w.termBox.Objects[0].(*termview.Terminal)
		if !ok {
			t.Fatalf("the live session shows %T, not its terminal", w.termBox.Objects[0])
		}
		// Painted at the widget's size, and the list showing the badges
		// of now: from then on nothing moves.
		waitUntil(t, "the terminal painted at its size and the badges shown", func() bool {
			snap := term.Snapshot()
			cols, rows := term.GridSize()
			return snap != nil && snap.Cols == cols && snap.Rows == rows && snap.Seq == agent.Terminal().Seq() &&
				agent.Status() == supervisor.StatusNeedsInput && w.shownBadges == w.badges()
		})
		if !strings.Contains(term.Text(), "Do you want to make this edit") {
			t.Fatalf("the terminal shows:\n%s", term.Text())
		}
		focusAndType(w.win, w.questions.answer, "Pin the clock: the ages are part of what the window shows.")
		test.AssertImageMatches(t, "sessions/live-"+name+".png", w.win.Canvas().Capture())

		w.selectSession(goldenSesEnded)
		rv := w.replay
		if rv == nil {
			t.Fatalf("the ended session shows %T, not its replay", w.termBox.Objects[0])
		}
		rv.slider.SetValue(33)
		if txt := rv.term.Text(); !strings.Contains(txt, "artifact_publish") || strings.Contains(txt, "work_complete") {
			t.Fatalf("at 0:33 the replay shows:\n%s", txt)
		}
		test.AssertImageMatches(t, "sessions/replay-"+name+".png", w.win.Canvas().Capture())
	})
}
