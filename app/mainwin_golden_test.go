package app

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// goldenMainTasks are what the goldens' agents work on: long enough that
// some are cut in the sidebar.
var goldenMainTasks = []string{
	"Snapshot tests for every window",
	"Fix clipped labels in the Sessions header and the Work board's column headings",
	"Retry flaky landing",
	"Docs: quickstart",
	"Audit filter in words",
}

// goldenMainData is the Work goldens' repositories and packets with n
// agents, spread over the repositories; the first asks a question.
func goldenMainData(n int) *goldenData {
	d := goldenWorkData()
	d.sessions = nil
	d.details = map[string]mcpserver.SessionDetail{}
	profiles := []string{"claude", "codex", "shell"}
	for i := range n {
		s := store.Session{ID: fmt.Sprintf("ses_%020x", 0xa11ce0+i), Kind: store.SessionSupervised,
			RepositoryID: d.repos[i%2].ID, Profile: profiles[i%3], Name: goldenMainTasks[i%len(goldenMainTasks)],
			State: store.SessionRunning, PID: 40000 + i, StartedAt: goldenAgo(time.Duration(n-i) * time.Minute)}
		if i%7 == 6 {
			s.State = store.SessionEnded
			s.EndedAt = goldenAgoPtr(time.Minute)
		}
		d.sessions = append(d.sessions, s)
		det := mcpserver.SessionDetail{Session: s, Questions: []store.Question{}}
		if i == 0 {
			det.Questions = []store.Question{{ID: "q_51e0b7c2a9d84f3617ac", SessionID: s.ID,
				Text:    "The Work window shows packet ages like “12m”, counted from now. Should the test pin the clock, or leave the ages out?",
				AskedAt: goldenAgo(40 * time.Second)}}
		}
		d.details[s.ID] = det
	}
	return d
}

// The main window at the smallest screen it supports and at a common one,
// with no agent, two and twenty: the sidebar, the centre on the first
// agent and the question it asks, all inside the window.
func TestMainWindowGolden(t *testing.T) {
	sizes := []struct {
		name string
		size fyne.Size
	}{{"1366x768", fyne.NewSize(1366, 768)}, {"1920x1080", fyne.NewSize(1920, 1080)}}
	eachGoldenTheme(t, func(t *testing.T, a fyne.App, themeName string) {
		for _, n := range []int{0, 2, 20} {
			for _, sz := range sizes {
				g := newGoldenGUI(t, a, goldenMainData(n), nil)
				g.showMain()
				w := g.sessions
				w.win.Resize(sz.size)
				if n > 0 && w.node != nodeAgent+w.sessions[0].ID {
					t.Fatalf("%d agents: the window opened on %q, not the newest agent", n, w.node)
				}
				if got := w.win.Content().MinSize(); got.Width > sz.size.Width || got.Height > sz.size.Height {
					t.Errorf("%d agents at %s: the window needs %v", n, sz.name, got)
				}
				test.AssertImageMatches(t, fmt.Sprintf("main/%d-agents-%s-%s.png", n, sz.name, themeName), w.win.Canvas().Capture())
				w.win.Close()
			}
		}
	})
}
