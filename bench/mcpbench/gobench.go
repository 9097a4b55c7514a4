package main

// The agents' rows, folded into the summary: the supervisor's PTY
// benchmarks (`go test -bench 'PTY$|ScreenLag' ./supervisor/`), a confined
// agent's output and start beside an unconfined one's (`-bench
// 'PTYConfined$'`, `'ConfinedStart$'`) and the emulator comparison (`go
// test -bench . ` in bench/vtcompare, a module of its own), run here as `go
// test` commands whose output goes to stderr as it comes and whose metrics
// are read from their benchmark lines.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
)

// goBench is one benchmark result line: its name without the -GOMAXPROCS
// suffix, and its figures by unit (ns/op, MB/s, and custom metrics); or a
// benchmark that skipped, with the reason it gave.
type goBench struct {
	name    string
	metrics map[string]float64
	skipped string
}

// runGoBenches runs the PTY benchmarks, the confined agent's start and
// output, and the emulator comparison from the repository at root. The
// confined agents start through helper, the switchboard binary built for
// the run, as a person's do (the test binary would start faster: it loads
// no GUI libraries and runs no GUI package's init). The supervisor's run
// verbosely: a benchmark that skips (no bubblewrap) says why only then.
// Each confined benchmark runs more iterations than BenchmarkPTY's five:
// 30 starts give a p90 that is not the slowest start, and on this shared
// machine (load average 5–9) five floods of each gave a confined ratio of
// 0.83 where twenty gave 1.00 and 1.01.
func runGoBenches(root, helper string) ([]goBench, error) {
	env := []string{"CGO_ENABLED=0", "SWITCHBOARD_BENCH_HELPER=" + helper}
	var res []goBench
	for _, run := range []struct{ bench, times string }{
		{"PTY$|ScreenLag", "5x"},
		{"PTYConfined$", "10x"},
		{"ConfinedStart$", "30x"},
	} {
		got, err := runGoBenchEnv(root, env, "-v", "-bench", run.bench, "-benchtime", run.times, "./supervisor/")
		if err != nil {
			return nil, fmt.Errorf("supervisor benchmarks %s: %w", run.bench, err)
		}
		res = append(res, got...)
	}
	vt, err := runGoBench(filepath.Join(root, "bench", "vtcompare"), "-bench", ".", "-benchtime", "3x")
	if err != nil {
		return nil, fmt.Errorf("bench/vtcompare: %w", err)
	}
	return append(res, vt...), nil
}

var (
	procsSuffix = regexp.MustCompile(`-\d+$`)
	// logPrefix is where a test's log line says it came from.
	logPrefix = regexp.MustCompile(`^\S+\.go:\d+: `)
)

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
	return parseGoBench(&out), nil
}

// parseGoBench reads go test's benchmark lines, and with -v the benchmarks
// that skipped and why.
func parseGoBench(out io.Reader) []goBench {
	var res []goBench
	var logged []string // what the running benchmark logged (-v)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		// -v: "BenchmarkX", its log lines indented, "--- SKIP: BenchmarkX".
		if name, ok := strings.CutPrefix(line, "--- SKIP: "); ok {
			why := strings.Join(logged, "; ")
			if why == "" {
				why = "skipped"
			}
			res = append(res, goBench{name: strings.Fields(name + " ?")[0], skipped: why})
			continue
		}
		if strings.HasPrefix(line, "    ") {
			logged = append(logged, logPrefix.ReplaceAllString(strings.TrimSpace(line), ""))
			continue
		}
		f := strings.Fields(line)
		if len(f) == 1 && strings.HasPrefix(f[0], "Benchmark") {
			logged = nil
		}
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
	return res
}

func (r *report) goBench(name, unit string) (float64, bool) {
	for _, b := range r.gobench {
		if b.name == name && b.skipped == "" {
			v, ok := b.metrics[unit]
			return v, ok
		}
	}
	return 0, false
}

// notMeasured says why benchmark name has no figures in this run: the
// reason it skipped with, or that it did not run.
func (r *report) notMeasured(name string) string {
	for _, b := range r.gobench {
		if b.name == name && b.skipped != "" {
			return "skipped: " + b.skipped
		}
	}
	if runtime.GOOS != "linux" {
		return "not measured: agents are confined on Linux only"
	}
	return "not measured in this run"
}

// goBenchRows: the supervised PTY rate against a bare creack/pty copy of
// the same child, and a confined agent's against the same agent
// unconfined; a confined agent's start against an unconfined one's; the
// screen's lag; and our emulator against the two others on the same
// stream. A confined figure that could not be measured is a printed row
// saying why, and no JSON.
func (r *report) goBenchRows() []jsonRow {
	var out []jsonRow
	if sup, ok := r.goBench("BenchmarkPTY", "supervised-MB/s"); ok {
		if bare, ok := r.goBench("BenchmarkPTY", "bare-MB/s"); ok {
			out = append(out, newRow("pty_output/supervised/mb_per_sec", "MB/s", sup, true, "pty_output/bare_creack_pty/mb_per_sec", bare).
				labelled(groupAgents, "agent output via the supervisor (recording, emulator, subscriber)", "bare creack/pty copy"))
		}
	}
	out = append(out, r.confinedRows()...)
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

// confinedRows: issue 29's two figures, each beside the same agent started
// unconfined by the same supervisor in the same run: PTY throughput, and
// the start to the agent's first line on the screen (median and p90, and
// their difference, which the goal reads).
func (r *report) confinedRows() []jsonRow {
	const ptyLabel = "the same, agent confined by bubblewrap (helper: switchboard-sandbox)"
	var out []jsonRow
	conf, ok1 := r.goBench("BenchmarkPTYConfined", "confined-MB/s")
	unconf, ok2 := r.goBench("BenchmarkPTYConfined", "unconfined-MB/s")
	if ok1 && ok2 {
		out = append(out, newRow("pty_output/confined/mb_per_sec", "MB/s", conf, true, "pty_output/unconfined/mb_per_sec", unconf).
			labelled(groupAgents, ptyLabel, "unconfined, same run"))
	} else {
		out = append(out, jsonRow{Name: "pty_output/confined/mb_per_sec", printOnly: true, display: r.notMeasured("BenchmarkPTYConfined")}.
			labelled(groupAgents, ptyLabel, ""))
	}

	const bench = "BenchmarkConfinedStart"
	startLabel := "agent start to its first line on screen, confined by bubblewrap (helper: switchboard-sandbox): median (p90)"
	m := map[string]float64{}
	for _, unit := range []string{"confined-ms", "confined-p90-ms", "unconfined-ms", "unconfined-p90-ms", "overhead-ms", "overhead-p90-ms", "starts"} {
		v, ok := r.goBench(bench, unit)
		if !ok {
			return append(out, jsonRow{Name: "agent_start/confined/first_output/p50", printOnly: true, display: r.notMeasured(bench)}.
				labelled(groupAgents, startLabel, ""))
		}
		m[unit] = v
	}
	startLabel = fmt.Sprintf("agent start to its first line on screen, confined by bubblewrap (helper: switchboard-sandbox), %.0f starts: median (p90)", m["starts"])
	withP90 := func(p50, p90 float64) string {
		return fmt.Sprintf("%s (p90 %s)", fmtValue(p50, "ms"), fmtValue(p90, "ms"))
	}
	start := newRow("agent_start/confined/first_output/p50", "ms", m["confined-ms"], false, "agent_start/unconfined/first_output/p50", m["unconfined-ms"]).
		labelled(groupAgents, startLabel, "unconfined, in turns")
	start.display = withP90(m["confined-ms"], m["confined-p90-ms"])
	start.baseDisplay = withP90(m["unconfined-ms"], m["unconfined-p90-ms"])
	over := newRow("agent_start/confined/overhead/p50", "ms", m["overhead-ms"], false, "", 0).
		labelled(groupAgents, "the same, confined minus unconfined: median (p90)", "")
	plus := func(v float64) string {
		if v >= 0 {
			return "+" + fmtValue(v, "ms")
		}
		return fmtValue(v, "ms")
	}
	over.display = fmt.Sprintf("%s (p90 %s)", plus(m["overhead-ms"]), plus(m["overhead-p90-ms"]))
	return append(out, start,
		newRow("agent_start/confined/first_output/p90", "ms", m["confined-p90-ms"], false, "agent_start/unconfined/first_output/p90", m["unconfined-p90-ms"]),
		over,
		newRow("agent_start/confined/overhead/p90", "ms", m["overhead-p90-ms"], false, "", 0))
}
