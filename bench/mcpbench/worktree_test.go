package main

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

func TestOnly(t *testing.T) {
	for _, tc := range []struct {
		only    string
		want    []string
		wantErr bool
	}{
		{"", sectionNames(), false},
		{"worktree", []string{sectionWorktree}, false},
		{"diff, land", []string{sectionDiff, sectionLand}, false},
		{"daemon", []string{sectionDaemon}, false},
		{"team", []string{sectionTeam}, false},
		{"nothing-like-it", nil, true},
	} {
		only, err := parseOnly(tc.only)
		if (err != nil) != tc.wantErr {
			t.Errorf("parseOnly(%q): %v", tc.only, err)
			continue
		}
		if err != nil {
			continue
		}
		cfg := config{only: only}
		var got []string
		for _, s := range sectionNames() {
			if cfg.want(s) {
				got = append(got, s)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("-only %q runs %v, want %v", tc.only, got, tc.want)
		}
	}
}

// The workspace rows, small: a generated repository, agents started with
// worktrees until their first output, a packet's diff through the CLI and
// work.diff, packets landed through the CLI, and the rows and the goal
// they make.
func TestWorkspaceRowsSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon and agents")
	}
	t.Setenv("SHELL", "/bin/sh")
	ctx := context.Background()
	dir := t.TempDir()
	cfg := config{wsFiles: 300, wsStarts: 2, wsRuns: 2, diffFiles: 40, diffLines: 3, landCommits: 4}
	ws, err := measureWorkspace(ctx, dir, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if ws.starts == nil || len(ws.starts.firstOut) != 2 || len(ws.starts.gitAdd) != 2 ||
		ws.diff == nil || len(ws.diff.cli) != 2 || ws.diff.bytes == 0 ||
		ws.land == nil || len(ws.land.land) != 2 || len(ws.land.gitMerge) != 2 {
		t.Fatalf("measured %+v %+v %+v", ws.starts, ws.diff, ws.land)
	}
	// Two packets of four commits landed by merge: each landing one merge
	// commit on main beside its four.
	out, err := gitcmd.Run(ctx, dir+"/workspace/repo", "rev-list", "--count", "main")
	if err != nil || strings.TrimSpace(string(out)) != "11" {
		t.Errorf("main has %q commits, %v: want 1 + 2×(4+1)", out, err)
	}
	r := &report{workspace: ws}
	rows := r.rows()
	names := map[string]bool{}
	for _, row := range rows {
		names[row.Name] = true
	}
	for _, want := range []string{"worktree_session_start/first_output", "switchboard_diff/cli", "work_land/merge"} {
		if !names[want] {
			t.Errorf("no row %s in %v", want, names)
		}
	}
	if _, _, measured := workspaceGoals()[0].check(rows); !measured {
		t.Error("the start goal finds no figure")
	}
}

// The Changes view's benchmarks become the rows the goals read: the first
// paint beside git diff when the diff rows ran, a scroll frame beside the
// repaint; none at all when ./app/ had none.
func TestChangesRows(t *testing.T) {
	if rows := (&report{}).changesRows(); len(rows) != 0 {
		t.Errorf("no benchmarks made rows %v", rows)
	}
	r := &report{
		workspace: &wsResult{diff: &diffResult{gitDiff: []time.Duration{200 * time.Millisecond}}},
		changes: []goBench{
			{name: "BenchmarkChangesFirstPaint", metrics: map[string]float64{"ns/op": 250e6, "MB/s": 40}},
			{name: "BenchmarkChangesScroll", metrics: map[string]float64{"ns/op": 12e6, "worst-ms": 20}},
			{name: "BenchmarkChangesRepaint", metrics: map[string]float64{"ns/op": 10e6}},
		},
	}
	rows := r.changesRows()
	byName := map[string]jsonRow{}
	for _, row := range rows {
		byName[row.Name] = row
	}
	if p := byName["changes_view/first_paint"]; p.Value != 250 || p.BaselineValue == nil || *p.BaselineValue != 200 {
		t.Errorf("first paint row %+v", p)
	}
	if s := byName["changes_view/scroll_frame"]; s.Value != 12 || s.BaselineName == nil || *s.BaselineName != "changes_view/repaint" {
		t.Errorf("scroll row %+v", s)
	}
	if _, ok := byName["changes_view/scroll/worst-ms"]; !ok {
		t.Errorf("no worst-ms row in %v", byName)
	}
	for _, g := range workspaceGoals()[1:] {
		if _, met, measured := g.check(rows); !measured || !met {
			t.Errorf("goal %q: met %v measured %v", g.what, met, measured)
		}
	}
}
