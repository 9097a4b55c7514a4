//go:build unix

package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
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
// second in all, through the supervisor's emulators), beside frames of the
// same window while the same agents stand still (stopped with SIGSTOP,
// their screens as full as when streaming). The goal is the ratio: what
// the window does for terminals it does not show, and for the one it does,
// must not add up to more than half a quiet frame.
//
// Each op is a round: frameRound quiet frames, then frameRound streaming
// ones, each phase begun once the agents' screens have settled into it.
// Taking the two in turns within one process is what makes the ratio hold
// on a machine shared with other work, whose load swings more between two
// sub-benchmarks than streaming costs. ns/op is the round's, settling
// included; the figures are the metrics: quiet-ms and streaming-ms a frame
// (wall), their ratio, and the process's CPU time a frame in each phase
// (every thread's: the readers, emulators and recorders of the agents as
// well as the window).
func BenchmarkMainWindowFrame(b *testing.B) {
	// perl, not a shell loop: a sleep(1) a line would make the machine's
	// cost forks, not output.
	const script = `exec perl -e '$| = 1; for (my $i = 1; ; $i++) { print "line $i of an agent at work, long enough to wrap now and then in a narrow terminal\n"; select(undef, undef, undef, 0.01) }'`
	const agents, frameRound = 20, 6
	dir := b.TempDir()
	sv := supervisor.New(supervisor.Config{
		RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "rec"),
		Env: []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"},
	})
	b.Cleanup(func() { sv.Close(context.Background()) })
	d := &goldenData{details: map[string]mcpserver.SessionDetail{},
		repos: []store.Repository{{ID: "rep_0", Name: "repository-0", Path: dir}}}
	var live []*supervisor.Session
	for i := range agents {
		id := fmt.Sprintf("ses_%020d", i)
		a, err := sv.Launch(supervisor.LaunchSpec{SessionID: id, RepositoryID: "rep_0", Dir: dir, Endpoint: testEndpoint, Token: "unused",
			Profile: profile.Profile{ID: "shell", Name: "Shell", Command: "/bin/sh", Args: []string{"-c", script}, Prompt: profile.PromptNone}})
		if err != nil {
			b.Fatal(err)
		}
		live = append(live, a)
		s := store.Session{ID: id, Kind: store.SessionSupervised, RepositoryID: "rep_0", Profile: "shell",
			Name: fmt.Sprintf("Agent %d", i), State: store.SessionRunning, StartedAt: time.Now().Add(time.Duration(i) * time.Second)}
		d.sessions = append(d.sessions, s)
		d.details[id] = mcpserver.SessionDetail{Session: s, Questions: []store.Question{}}
	}
	signal := func(sig syscall.Signal) {
		for _, a := range live {
			// The agent's pid is its process group's.
			_ = syscall.Kill(-a.PID(), sig)
		}
	}
	// Run after the supervisor's Close is registered, so before it: a
	// stopped agent would not see the signals that stop it.
	b.Cleanup(func() { signal(syscall.SIGCONT) })

	// changed receives an agent's index when its screen changes.
	changed := make(chan int, 4*agents)
	done := make(chan struct{})
	b.Cleanup(func() { close(done) })
	for i, a := range live {
		ch, stop := a.ScreenChanged()
		b.Cleanup(stop)
		go func() {
			for {
				select {
				case <-done:
					return
				case <-ch:
					select {
					case changed <- i:
					default: // the waiter is behind; one change is enough
					}
				}
			}
		}()
	}
	// streaming waits for every agent's screen to move after SIGCONT.
	streaming := func() {
		signal(syscall.SIGCONT)
		seen := map[int]bool{}
		for len(seen) < agents {
			seen[<-changed] = true
		}
	}
	// still waits after SIGSTOP until no screen has moved for a while:
	// what the emulators still held to parse belongs to the streaming.
	still := func() {
		signal(syscall.SIGSTOP)
		quiet := time.NewTimer(500 * time.Millisecond)
		defer quiet.Stop()
		for {
			select {
			case <-changed:
				quiet.Reset(500 * time.Millisecond)
			case <-quiet.C:
				return
			}
		}
	}

	a := test.NewTempApp(b)
	g := newGoldenGUI(b, a, d, sv)
	streaming() // every screen full before the window opens
	g.showMain()
	w := g.sessions
	defer w.win.Close()
	w.win.Resize(fyne.NewSize(1366, 768))
	c := w.win.Canvas()
	c.Capture()

	// Frames are painted on one thread, so that its CPU time is theirs.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var wall, cpu, paint [2]time.Duration // quiet, streaming
	frames := func(phase int) {
		c0, _ := processCPU()
		p0, _ := threadCPU()
		t0 := time.Now()
		for range frameRound {
			c.Capture()
		}
		wall[phase] += time.Since(t0)
		c1, _ := processCPU()
		p1, _ := threadCPU()
		cpu[phase] += c1 - c0
		paint[phase] += p1 - p0
	}
	for b.Loop() {
		still()
		frames(0)
		streaming()
		frames(1)
	}
	n := float64(b.N * frameRound)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / n }
	b.ReportMetric(ms(wall[0]), "quiet-ms")
	b.ReportMetric(ms(wall[1]), "streaming-ms")
	b.ReportMetric(float64(wall[1])/float64(wall[0]), "ratio")
	if _, ok := processCPU(); ok {
		// The process's CPU time a frame, and of it the painting thread's:
		// the rest is what ran beside the frame (the agents' readers,
		// emulators and recorders, the window's own goroutines, the GC).
		b.ReportMetric(ms(cpu[0]), "quiet-cpu-ms")
		b.ReportMetric(ms(cpu[1]), "streaming-cpu-ms")
		b.ReportMetric(ms(paint[0]), "quiet-paint-cpu-ms")
		b.ReportMetric(ms(paint[1]), "streaming-paint-cpu-ms")
	}
}
