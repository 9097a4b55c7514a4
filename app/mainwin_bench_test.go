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

// BenchmarkMainWindowFirstPaint: the main window opened and painted once
// at 1366×768, from nothing (no repository, agent or packet) and with 20
// agents and 5,000 packets over three repositories: its reads through the
// registry (answered from memory, as the goldens' are), the sidebar built,
// the centre on the newest agent and the first frame, painted by the test
// driver's software painter.
func BenchmarkMainWindowFirstPaint(b *testing.B) {
	for _, tt := range []struct {
		name            string
		agents, packets int
	}{{"empty", 0, 0}, {"20-agents-5000-packets", 20, 5000}} {
		b.Run(tt.name, func(b *testing.B) {
			d := &goldenData{details: map[string]mcpserver.SessionDetail{}}
			if tt.packets > 0 {
				for i := range 3 {
					d.repos = append(d.repos, store.Repository{ID: fmt.Sprintf("rep_%d", i), Name: fmt.Sprintf("repository-%d", i), Path: "/src/r"})
				}
			}
			d.packets = benchWorkPackets(tt.packets)
			for i := range tt.agents {
				s := store.Session{ID: fmt.Sprintf("ses_%020d", i), Kind: store.SessionSupervised, RepositoryID: fmt.Sprintf("rep_%d", i%3),
					Profile: "shell", Name: fmt.Sprintf("Packet number %d of the benchmark", i), State: store.SessionRunning,
					StartedAt: time.Now().Add(-time.Duration(i) * time.Minute)}
				d.sessions = append(d.sessions, s)
				d.details[s.ID] = mcpserver.SessionDetail{Session: s, Questions: []store.Question{}}
			}
			a := test.NewTempApp(b)
			g := newGoldenGUI(b, a, d, nil)
			cpu0, measured := processCPU()
			for b.Loop() {
				g.showMain()
				w := g.sessions
				w.win.Resize(fyne.NewSize(1366, 768))
				w.win.Canvas().Capture()
				w.win.Close()
			}
			reportCPU(b, cpu0, measured)
		})
	}
}

// reportCPU reports the process's CPU time per op since cpu0, every
// thread's (the agents' readers and emulators, the garbage collector): on
// a machine shared with other work the wall time of an op swings with the
// load, its CPU time much less.
func reportCPU(b *testing.B, cpu0 time.Duration, measured bool) {
	cpu1, ok := processCPU()
	if !measured || !ok || b.N == 0 {
		return
	}
	b.ReportMetric(float64(cpu1-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
