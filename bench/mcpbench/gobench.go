package main

// The agents' rows, folded into the summary: the supervisor's PTY
// benchmarks (`go test -bench 'PTY|ScreenLag' ./supervisor/`) and the
// emulator comparison (`go test -bench . ` in bench/vtcompare, a module of
// its own), run here as `go test` commands whose output goes to stderr as it
// comes and whose metrics are read from their benchmark lines.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// goBench is one benchmark result line: its name without the -GOMAXPROCS
// suffix, and its figures by unit (ns/op, MB/s, and custom metrics).
type goBench struct {
	name    string
	metrics map[string]float64
}

// runGoBenches runs the PTY benchmarks and the emulator comparison from the
// repository at root.
func runGoBenches(root string) ([]goBench, error) {
	pty, err := runGoBench(root, "-bench", "PTY|ScreenLag", "-benchtime", "5x", "./supervisor/")
	if err != nil {
		return nil, fmt.Errorf("supervisor benchmarks: %w", err)
	}
	vt, err := runGoBench(filepath.Join(root, "bench", "vtcompare"), "-bench", ".", "-benchtime", "3x")
	if err != nil {
		return nil, fmt.Errorf("bench/vtcompare: %w", err)
	}
	return append(pty, vt...), nil
}

var procsSuffix = regexp.MustCompile(`-\d+$`)

// runGoBench runs `go test -run ^$ args...` in dir without cgo, copies its
// output to stderr and returns its benchmark lines.
func runGoBench(dir string, args ...string) ([]goBench, error) {
	return runGoBenchEnv(dir, []string{"CGO_ENABLED=0"}, args...)
}

// runGoBenchEnv is runGoBench with env added to the environment instead.
func runGoBenchEnv(dir string, env []string, args ...string) ([]goBench, error) {
	cmd := exec.Command("go", append([]string{"test", "-run", "^$"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(os.Stderr, &out)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, err
	}
	var res []goBench
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// BenchmarkX-2  5  123 ns/op  45.6 MB/s  0.81 ratio
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		b := goBench{name: procsSuffix.ReplaceAllString(f[0], ""), metrics: map[string]float64{}}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				b.metrics[f[i+1]] = v
			}
		}
		res = append(res, b)
	}
	return res, nil
}

func (r *report) goBench(name, unit string) (float64, bool) {
	for _, b := range r.gobench {
		if b.name == name {
			v, ok := b.metrics[unit]
			return v, ok
		}
	}
	return 0, false
}

// goBenchRows: the supervised PTY rate against a bare creack/pty copy of
// the same child, the screen's lag, and our emulator against the two
// others on the same stream.
func (r *report) goBenchRows() []jsonRow {
	var out []jsonRow
	if sup, ok := r.goBench("BenchmarkPTY", "supervised-MB/s"); ok {
		if bare, ok := r.goBench("BenchmarkPTY", "bare-MB/s"); ok {
			out = append(out, newRow("pty_output/supervised/mb_per_sec", "MB/s", sup, true, "pty_output/bare_creack_pty/mb_per_sec", bare).
				labelled(groupAgents, "agent output via the supervisor (recording, emulator, subscriber)", "bare creack/pty copy"))
		}
	}
	// BenchmarkScreenLag reports whole milliseconds.
	wholeMS := func(v float64) string {
		if v < 1 {
			return "<1 ms"
		}
		return fmt.Sprintf("%.0f ms", v)
	}
	if lag, ok := r.goBench("BenchmarkScreenLag", "ms-lag"); ok {
		row := newRow("pty_screen_lag/mean", "ms", lag, false, "", 0).
			labelled(groupAgents, "screen shows a 10 MB burst's last line, mean lag after the read", "")
		row.display = wholeMS(lag)
		out = append(out, row)
	}
	if worst, ok := r.goBench("BenchmarkScreenLag", "ms-worst"); ok {
		row := newRow("pty_screen_lag/worst", "ms", worst, false, "", 0).
			labelled(groupAgents, "the same, worst of 5 bursts", "")
		row.display = wholeMS(worst)
		out = append(out, row)
	}
	if ours, ok := r.goBench("BenchmarkCompare/switchboard-vt", "MB/s"); ok {
		for _, other := range []struct{ name, label string }{
			{"charmbracelet-x-vt", "charmbracelet/x/vt v0.1.0"},
			{"hinshun-vt10x", "hinshun/vt10x"},
		} {
			if theirs, ok := r.goBench("BenchmarkCompare/"+other.name, "MB/s"); ok {
				out = append(out, newRow("vt_build_log/switchboard-vt/mb_per_sec_vs_"+other.name, "MB/s", ours, true, "vt_build_log/"+other.name+"/mb_per_sec", theirs).
					labelled(groupAgents, "terminal emulator supervisor/vt, 8 MiB build log, 200×50", other.label))
			}
		}
	}
	return out
}
