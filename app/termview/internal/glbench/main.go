//go:build unix

// Command glbench measures what a termview widget costs in a real GL
// window, which the package's benchmarks (on Fyne's software test driver)
// cannot: it feeds a 200×50 terminal frames at a fixed rate for ten
// seconds and reports the process's CPU time per frame, Fyne's painting
// included. Without a display, run it under Xvfb:
//
//	go build -o /tmp/glbench ./app/termview/internal/glbench
//	xvfb-run -a -s "-screen 0 1920x1080x24" /tmp/glbench -frames log
//
// Under Xvfb the GL is Mesa's llvmpipe, on the CPU, so the figures are an
// upper bound; compare modes with each other, not with a GPU.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"github.com/switchboard-dev/switchboard/app/termview"
	"github.com/switchboard-dev/switchboard/app/termview/internal/screens"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// discard is a target that drops what the widget sends.
type discard struct{}

func (discard) Input([]byte) error    { return nil }
func (discard) Paste(string) error    { return nil }
func (discard) Resize(int, int) error { return nil }

const cols, rows = 200, 50

func main() {
	mode := flag.String("frames", "log", "what changes between frames: still, cursor, row, busy, log")
	fps := flag.Int("fps", 30, "frames a second")
	secs := flag.Int("seconds", 10, "how long to measure")
	prof := flag.String("cpuprofile", "", "write a CPU profile here")
	flag.Parse()
	frames, err := makeFrames(*mode)
	if err != nil {
		log.Fatal(err)
	}
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
	}

	a := app.New()
	w := a.NewWindow("glbench")
	term := termview.New(discard{})
	w.SetContent(term)
	w.SetPadded(false)
	// 200×50 cells of the default theme's 14-unit text, plus margins.
	w.Resize(fyne.NewSize(1693, 808))
	go func() {
		time.Sleep(2 * time.Second) // the window is up and sized
		var c, r int
		fyne.DoAndWait(func() { c, r = term.GridSize() })
		n := *fps * *secs
		tick := time.NewTicker(time.Second / time.Duration(*fps))
		start, cpu0 := time.Now(), cpuTime()
		var set time.Duration
		for i := range n {
			<-tick.C
			s := *frames[i%len(frames)]
			if *mode != "still" {
				s.Seq = uint64(i + 1)
			}
			fyne.DoAndWait(func() {
				t0 := time.Now()
				term.SetSnapshot(&s)
				set += time.Since(t0)
			})
		}
		wall, cpu := time.Since(start), cpuTime()-cpu0
		pprof.StopCPUProfile()
		fmt.Printf("%s frames on a %d×%d grid: %d in %v (asked for %ds), CPU %.1f ms/frame (%.0f%% of a core), SetSnapshot %.2f ms/frame\n",
			*mode, c, r, n, wall.Round(time.Millisecond), *secs,
			cpu.Seconds()*1000/float64(n), 100*cpu.Seconds()/wall.Seconds(), set.Seconds()*1000/float64(n))
		fyne.Do(a.Quit)
	}()
	w.ShowAndRun()
}

// makeFrames returns the frames to cycle through.
func makeFrames(mode string) ([]*vt.Snapshot, error) {
	switch mode {
	case "still", "cursor", "row":
		base := busy(1)
		other := busy(2)
		frames := make([]*vt.Snapshot, 0, cols)
		for i := range cols {
			f := *base
			switch mode {
			case "cursor":
				f.Cursor = vt.Cursor{X: i, Y: rows / 2, Visible: true}
			case "row":
				f.Lines = append([][]vt.Cell(nil), base.Lines...)
				line := append([]vt.Cell(nil), base.Lines[rows-2]...)
				copy(line[:i+1], other.Lines[rows-2])
				f.Lines[rows-2] = line
			}
			frames = append(frames, &f)
		}
		return frames, nil
	case "busy":
		var frames []*vt.Snapshot
		for seed := range 8 {
			frames = append(frames, busy(seed))
		}
		return frames, nil
	case "log":
		stream := vt.BenchStream(4 << 20)
		term := vt.New(cols, rows)
		var frames []*vt.Snapshot
		for off := 0; off+8000 <= len(stream); off += 8000 {
			_, _ = term.Write(stream[off : off+8000])
			frames = append(frames, term.Snapshot())
		}
		return frames, nil
	}
	return nil, fmt.Errorf("unknown -frames %q", mode)
}

// busy is the full, busy screen of the package's BenchmarkRefresh.
func busy(seed int) *vt.Snapshot { return screens.Busy(cols, rows, seed) }

// cpuTime is the CPU the process has used, all threads (llvmpipe's too).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
