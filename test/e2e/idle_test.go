package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Idle CPU budget of the tray app (issue 6): under 1% of one core with three idle agents,
// with only the tray and with a window open on a terminal that does not change.
const (
	idleBudget  = 0.01
	idleMeasure = 15 * time.Second
	idleSettle  = 2 * time.Second
	// clockTick is USER_HZ, the unit of utime and stime in /proc/PID/stat: 100 on every
	// Linux architecture Go supports.
	clockTick = time.Second / 100
)

// TestIdleCPU runs the real tray app under the virtual display with three idle shell
// agents and measures its CPU time from /proc: with only the tray, then with the Sessions
// window open on a live terminal (a screenshot shows it painted). Each must stay under
// idleBudget. The machine is shared and noisy, so a measurement over budget is taken once
// more before the test fails.
func TestIdleCPU(t *testing.T) {
	trayRequireDesktop(t)
	requireImport(t)
	bin := buildBinary(t)
	base, err := os.MkdirTemp("", "sbidle")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	home := filepath.Join(base, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(trayEnv(base), "SHELL=/bin/sh")
	p, _, menu := trayStartOnBus(t, bin, env, base)

	repo := strings.TrimSpace(mustCLI(t, env, "repo", "add", project(t, home)))
	for range 3 {
		mustCLI(t, env, "agent", "start", "shell", "--repo", repo)
	}

	pid := p.cmd.Process.Pid
	idleWithin(t, p, pid, "tray only")

	// The shells' prompts make the tray say an agent needs you, and Sessions… then opens
	// on that agent's terminal.
	items := trayMenuItems(t, menu)
	label := labelSessions
	for _, it := range items {
		if strings.HasPrefix(it.label, labelSessions) {
			label = it.label
		}
	}
	if !trayClickUntil(t, p, menu, func() bool { return windowID(t, "Switchboard") != "" }, label) {
		t.Fatal("no Sessions window")
	}
	shot(t, "Switchboard", filepath.Join(t.TempDir(), "sessions.png")) // fails if nothing was painted
	idleWithin(t, p, pid, "Sessions window open")

	trayQuit(t, p, menu)
}

// labelSessions starts the tray's Sessions item, which may go on with who needs you.
const labelSessions = "Open Switchboard…"

// idleWithin measures the process's CPU share over idleMeasure after idleSettle, and once
// more when the first figure is over budget; it fails when both are.
func idleWithin(t *testing.T, p *trayProc, pid int, what string) {
	t.Helper()
	for try := 1; ; try++ {
		// Sleeps on purpose, both: the app settles from what came
		// before (an idle app has no moment that says it is idle), then
		// its CPU time is measured over a stretch of wall-clock time,
		// which is the measurement itself.
		time.Sleep(idleSettle)
		p.mustRun(t, "an idle CPU measurement")
		before := cpuTime(t, pid)
		time.Sleep(idleMeasure)
		used := cpuTime(t, pid) - before
		share := float64(used) / float64(idleMeasure)
		t.Logf("%s: %.2f%% of a core (%d ticks in %s)", what, 100*share, used/clockTick, idleMeasure)
		if share < idleBudget {
			return
		}
		if try == 2 {
			t.Fatalf("%s: idle CPU %.2f%% of a core, twice; the budget is %.0f%%", what, 100*share, 100*idleBudget)
		}
	}
}

// cpuTime is the user and system time the process has used so far, from /proc/PID/stat.
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The command name (field 2) is in parentheses and may hold spaces: count fields after
	// its closing one. utime and stime are fields 14 and 15.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		t.Fatalf("/proc/%d/stat: %q", pid, s)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("/proc/%d/stat: %v", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick
}
