package main

// The workspace rows in the summary and the JSON, their goals, and the
// Changes view's Go benchmarks (./app/, when they exist).

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Sections of a run, the names -only matches.
const (
	sectionStatus     = "status"     // tools/call status on every server
	sectionReferences = "references" // client-only and bbolt rows
	sectionWorkflow   = "workflow"
	sectionTeam       = "team" // PostgreSQL, one and two instances (team.go)
	sectionAudit      = "audit"
	sectionDaemon     = "daemon-start"
	sectionGoBench    = "pty-vt" // the supervisor's PTY and emulator benchmarks
	sectionWorktree   = "worktree"
	sectionDiff       = "diff"
	sectionLand       = "land"
	sectionChanges    = "changes" // the Changes view's benchmarks in ./app/
	// Start agent to the first tool call of the real CLIs (agentcli.go).
	sectionAgentCLI = "agentcli"
)

func sectionNames() []string {
	return []string{sectionStatus, sectionReferences, sectionWorkflow, sectionTeam, sectionAudit, sectionDaemon,
		sectionGoBench, sectionWorktree, sectionDiff, sectionLand, sectionChanges, sectionAgentCLI}
}

// want says whether the run includes section: every section without
// -only, else those whose name contains one of its substrings.
func (cfg config) want(section string) bool {
	if len(cfg.only) == 0 {
		return true
	}
	for _, s := range cfg.only {
		if strings.Contains(section, s) {
			return true
		}
	}
	return false
}

// parseOnly splits -only and checks that each part selects a section.
func parseOnly(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		cfg := config{only: []string{f}}
		found := false
		for _, name := range sectionNames() {
			found = found || cfg.want(name)
		}
		if !found {
			return nil, fmt.Errorf("%q matches no section (have %s)", f, strings.Join(sectionNames(), ", "))
		}
		out = append(out, f)
	}
	return out, nil
}

// workspaceGoals are issue 15's goals.
func workspaceGoals() []goal {
	return []goal{
		{"session start to the agent's first output, with a worktree, 20,000 files: under 1.5 s", "worktree_session_start/first_output", false, false, 1500},
		{"Changes view first paint, 5,000 files / 100,000 lines: under 300 ms", "changes_view/first_paint", false, false, 300},
		{"Changes view, one scroll frame: under 16 ms", "changes_view/scroll_frame", false, false, 16},
	}
}

// workspaceRows: the start, diff and landing rows against their git
// baselines, and the Changes view's benchmarks.
func (r *report) workspaceRows() []jsonRow {
	var out []jsonRow
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	rangeOf := func(ds []time.Duration) string {
		lo, hi := spread(ds)
		return fmt.Sprintf("%s (%s–%s)", fmtDur(median(ds)), fmtDur(lo), fmtDur(hi))
	}
	vs := func(name string, ours []time.Duration, bname string, base []time.Duration, label, baseLabel string) jsonRow {
		row := newRow(name, "ms", ms(median(ours)), false, bname, ms(median(base))).labelled(groupWorkspace, label, baseLabel)
		row.display, row.baseDisplay = rangeOf(ours), rangeOf(base)
		return row
	}
	alone := func(name string, d time.Duration) jsonRow { return newRow(name, "ms", ms(d), false, "", 0) }
	ws := r.workspace
	if ws != nil && ws.starts != nil {
		s := ws.starts
		files := thousands(s.files)
		out = append(out,
			vs("worktree_session_start/first_output", s.firstOut, "worktree_session_start/git_worktree_add", s.gitAdd,
				fmt.Sprintf("session start to the agent's first output, with a worktree, %s files", files), "git worktree add alone"),
			vs("worktree_session_start/agent_start_returned", s.launched, "worktree_session_start/git_worktree_add", s.gitAdd,
				fmt.Sprintf("agent.start returned (worktree made, agent launched), %s files", files), "git worktree add alone"),
			alone("worktree_repository/generate", s.generated),
			alone("worktree_repository/register", s.registered))
	}
	if ws != nil && ws.diff != nil {
		d := ws.diff
		what := fmt.Sprintf("%s files / %s lines", thousands(d.files), thousands(d.files*d.lines))
		out = append(out,
			vs("switchboard_diff/cli", d.cli, "switchboard_diff/git_diff_devnull", d.gitDiff,
				fmt.Sprintf("switchboard diff PKT of %s (%.1f MiB, printed to nowhere)", what, float64(d.bytes)/(1<<20)), "git diff > /dev/null"),
			vs("switchboard_diff/work_diff", d.workDiff, "switchboard_diff/git_diff_devnull", d.gitDiff,
				fmt.Sprintf("work.diff of %s on the registry (no CLI, no socket)", what), "git diff > /dev/null"),
			alone("switchboard_diff/work_complete", d.completed))
	}
	if ws != nil && ws.land != nil {
		l := ws.land
		out = append(out,
			vs("work_land/merge", l.land, "work_land/git_merge_no_ff", l.gitMerge,
				fmt.Sprintf("switchboard land PKT of %d commits (merge, checked-out main fast-forwarded)", l.commits), "git merge --no-ff in a scratch worktree"),
			alone("work_land/work_complete", median(l.completed)))
	}
	out = append(out, r.changesRows()...)
	return out
}

// changesRows are the Changes view's benchmarks from ./app/ (a change of
// 5,000 files and 100,000 lines): the first paint beside git diff to
// /dev/null when the diff rows ran, a scroll frame beside the same window
// repainted with nothing changed (BenchmarkChangesRepaint), the parts
// without the test driver's software painter, and every other figure
// they report as a row of its own.
func (r *report) changesRows() []jsonRow {
	var out []jsonRow
	nsOp := map[string]float64{}
	for _, b := range r.changes {
		key := strings.ToLower(strings.TrimPrefix(b.name, "BenchmarkChanges"))
		for _, unit := range slices.Sorted(maps.Keys(b.metrics)) {
			v := b.metrics[unit]
			if unit == "ns/op" {
				nsOp[b.name] = v / 1e6
				continue
			}
			out = append(out, newRow("changes_view/"+key+"/"+strings.ReplaceAll(unit, "/", "_per_"), unit, v, false, "", 0))
		}
	}
	if len(nsOp) == 0 {
		return out
	}
	msRow := func(name string, v float64, label string, bname string, bv float64, baseLabel string) jsonRow {
		row := newRow(name, "ms", v, false, bname, bv).labelled(groupWorkspace, label, baseLabel)
		row.display = fmtValue(v, "ms")
		if bname != "" {
			row.baseDisplay = fmtValue(bv, "ms")
		}
		return row
	}
	if v, ok := nsOp["BenchmarkChangesFirstPaint"]; ok {
		label := "Changes view first paint, 5,000 files / 100,000 lines (software painter)"
		if ws := r.workspace; ws != nil && ws.diff != nil {
			git := float64(median(ws.diff.gitDiff)) / 1e6
			out = append(out, msRow("changes_view/first_paint", v, label, "switchboard_diff/git_diff_devnull", git, "git diff > /dev/null"))
		} else {
			out = append(out, msRow("changes_view/first_paint", v, label, "", 0, ""))
		}
	}
	if v, ok := nsOp["BenchmarkChangesBuild"]; ok {
		out = append(out, msRow("changes_view/build", v, "Changes view built: parse, rows, first layout (no painter)", "", 0, ""))
	}
	if v, ok := nsOp["BenchmarkChangesScroll"]; ok {
		label := "Changes view, one scroll step and its frame (software painter)"
		if base, ok := nsOp["BenchmarkChangesRepaint"]; ok {
			out = append(out, msRow("changes_view/scroll_frame", v, label, "changes_view/repaint", base, "the frame repainted, nothing changed"))
		} else {
			out = append(out, msRow("changes_view/scroll_frame", v, label, "", 0, ""))
		}
	}
	if v, ok := nsOp["BenchmarkChangesScrollLayout"]; ok {
		out = append(out, msRow("changes_view/scroll_layout", v, "Changes view, one scroll step without the painter", "", 0, ""))
	}
	for _, b := range r.changes {
		switch b.name {
		case "BenchmarkChangesFirstPaint", "BenchmarkChangesBuild", "BenchmarkChangesScroll", "BenchmarkChangesScrollLayout":
		default:
			if v, ok := nsOp[b.name]; ok {
				out = append(out, newRow("changes_view/"+strings.ToLower(strings.TrimPrefix(b.name, "BenchmarkChanges")), "ms", v, false, "", 0))
			}
		}
	}
	return out
}

// runChangesBenches runs the Changes view's benchmarks in ./app/ when the
// package has any: a tree without them is skipped, with why, before the
// GUI package (cgo, Fyne) is compiled.
func runChangesBenches(root string) ([]goBench, string, error) {
	files, err := filepath.Glob(filepath.Join(root, "app", "*_test.go"))
	if err != nil {
		return nil, "", err
	}
	found := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, "", err
		}
		found = found || strings.Contains(string(b), "func BenchmarkChanges")
	}
	if !found {
		return nil, "no BenchmarkChanges* in ./app/ in this tree", nil
	}
	// The GUI package needs cgo, whatever the Makefile set for the rest.
	res, err := runGoBenchEnv(root, []string{"CGO_ENABLED=1"}, "-bench", "Changes", "-benchtime", "5x", "./app/")
	if err != nil {
		return nil, "", fmt.Errorf("go test -bench Changes ./app/: %w", err)
	}
	if len(res) == 0 {
		return nil, "go test -bench Changes ./app/ ran no benchmark", nil
	}
	return res, "", nil
}
