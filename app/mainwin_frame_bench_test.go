package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// BenchmarkMainWindowFrame: one frame of the main window at 1366×768 on
// the newest of 20 live agents, painted by the test driver's software
// painter, while every agent prints a line each 10 ms (2,000 lines a
// second in all, through the supervisor's emulators), beside the same
// window over 20 agents that printed the same lines once and stopped. The goal is the ratio: what
// the window does for terminals it does not show, and for the one it does,
// must not add up to more than half a quiet frame.
func BenchmarkMainWindowFrame(b *testing.B) {
	for _, tt := range []struct {
		name, script string
	}{
		// The same lines, printed once: the shown terminal as full as the
		// streaming one's, so that the ratio is the streaming's cost.
		{"quiet", `exec perl -e '$| = 1; print "line $_ of an agent at work, long enough to wrap now and then in a narrow terminal\n" for 1 .. 200; sleep 600'`},
		// perl, not a shell loop: a sleep(1) a line would make the
		// machine's cost forks, not output.
		{"20-streaming", `exec perl -e '$| = 1; for (my $i = 1; ; $i++) { print "line $i of an agent at work, long enough to wrap now and then in a narrow terminal\n"; select(undef, undef, undef, 0.01) }'`},
	} {
		b.Run(tt.name, func(b *testing.B) {
			dir := b.TempDir()
			sv := supervisor.New(supervisor.Config{
				RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "rec"),
				Env: []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"},
			})
			b.Cleanup(func() { sv.Close(context.Background()) })
			d := &goldenData{details: map[string]mcpserver.SessionDetail{},
				repos: []store.Repository{{ID: "rep_0", Name: "repository-0", Path: dir}}}
			for i := range 20 {
				id := fmt.Sprintf("ses_%020d", i)
				if _, err := sv.Launch(supervisor.LaunchSpec{SessionID: id, RepositoryID: "rep_0", Dir: dir, Endpoint: testEndpoint, Token: "unused",
					Profile: profile.Profile{ID: "shell", Name: "Shell", Command: "/bin/sh", Args: []string{"-c", tt.script}, Prompt: profile.PromptNone}}); err != nil {
					b.Fatal(err)
				}
				s := store.Session{ID: id, Kind: store.SessionSupervised, RepositoryID: "rep_0", Profile: "shell",
					Name: fmt.Sprintf("Agent %d", i), State: store.SessionRunning, StartedAt: time.Now().Add(time.Duration(i) * time.Second)}
				d.sessions = append(d.sessions, s)
				d.details[id] = mcpserver.SessionDetail{Session: s, Questions: []store.Question{}}
			}
			a := test.NewTempApp(b)
			g := newGoldenGUI(b, a, d, sv)
			g.showMain()
			w := g.sessions
			defer w.win.Close()
			w.win.Resize(fyne.NewSize(1366, 768))
			c := w.win.Canvas()
			c.Capture()
			cpu0, measured := processCPU()
			for b.Loop() {
				c.Capture()
			}
			reportCPU(b, cpu0, measured)
		})
	}
}
