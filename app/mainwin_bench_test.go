package app

import (
	"fmt"
	"runtime"
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
//
// Each op is a round: the empty window, then the full one, each opened,
// painted and closed; taken in turns in one process, the two see the same
// load on a machine shared with other work. ns/op is the round's; the
// figures are the metrics: empty-ms and full-ms (wall), and the CPU time
// of each, the process's (the garbage collector's included) and the
// opening thread's.
func BenchmarkMainWindowFirstPaint(b *testing.B) {
	full := &goldenData{details: map[string]mcpserver.SessionDetail{}}
	for i := range 3 {
		full.repos = append(full.repos, store.Repository{ID: fmt.Sprintf("rep_%d", i), Name: fmt.Sprintf("repository-%d", i), Path: "/src/r"})
	}
	full.packets = benchWorkPackets(5000)
	for i := range 20 {
		s := store.Session{ID: fmt.Sprintf("ses_%020d", i), Kind: store.SessionSupervised, RepositoryID: fmt.Sprintf("rep_%d", i%3),
			Profile: "shell", Name: fmt.Sprintf("Packet number %d of the benchmark", i), State: store.SessionRunning,
			StartedAt: time.Now().Add(-time.Duration(i) * time.Minute)}
		full.sessions = append(full.sessions, s)
		full.details[s.ID] = mcpserver.SessionDetail{Session: s, Questions: []store.Question{}}
	}
	a := test.NewTempApp(b)
	guis := [2]*gui{
		newGoldenGUI(b, a, &goldenData{details: map[string]mcpserver.SessionDetail{}, packets: []store.Packet{}}, nil),
		newGoldenGUI(b, a, full, nil),
	}
	// Opened on one thread, so that its CPU time is the opening's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var wall, cpu, own [2]time.Duration // empty, full
	for b.Loop() {
		for i, g := range guis {
			c0, _ := processCPU()
			o0, _ := threadCPU()
			t0 := time.Now()
			g.showMain()
			w := g.sessions
			w.win.Resize(fyne.NewSize(1366, 768))
			w.win.Canvas().Capture()
			wall[i] += time.Since(t0)
			c1, _ := processCPU()
			o1, _ := threadCPU()
			cpu[i] += c1 - c0
			own[i] += o1 - o0
			w.win.Close()
		}
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N) }
	b.ReportMetric(ms(wall[0]), "empty-ms")
	b.ReportMetric(ms(wall[1]), "full-ms")
	if _, ok := processCPU(); ok {
		b.ReportMetric(ms(cpu[0]), "empty-cpu-ms")
		b.ReportMetric(ms(cpu[1]), "full-cpu-ms")
		b.ReportMetric(ms(own[0]), "empty-thread-cpu-ms")
		b.ReportMetric(ms(own[1]), "full-thread-cpu-ms")
	}
}
