package main

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestGoalCheck(t *testing.T) {
	rate := goal{what: "rate", row: "r", ratio: true, atLeast: true, limit: 2}
	latency := goal{what: "latency", row: "l", limit: 5000}
	rows := []jsonRow{
		newRow("r", "calls/s", 9000, true, "base", 4000),     // 2.25×
		newRow("l", "µs", 4999, false, "", 0),                // under 5 ms
		newRow("r-low", "calls/s", 7000, true, "base", 4000), // 1.75×
		newRow("l-high", "µs", 5000, false, "", 0),
		newRow("r-nobase", "calls/s", 9000, true, "", 0),
	}
	for _, tc := range []struct {
		t                goal
		row              string
		wantMet, wantHas bool
	}{
		{rate, "r", true, true},
		{rate, "r-low", false, true},
		{rate, "r-nobase", false, false}, // a ratio goal needs a baseline
		{rate, "missing", false, false},
		{latency, "l", true, true},
		{latency, "l-high", false, true}, // the limit itself is not under it
	} {
		tg := tc.t
		tg.row = tc.row
		if _, met, has := tg.check(rows); met != tc.wantMet || has != tc.wantHas {
			t.Errorf("%s on row %q: met %v, measured %v; want %v, %v", tg.what, tc.row, met, has, tc.wantMet, tc.wantHas)
		}
	}
}

// Every goal names a row of the last full run (bench/latest.json, which
// make bench writes): a renamed row must not turn a goal into "not
// measured" unnoticed.
func TestGoalsNameRows(t *testing.T) {
	var out bytes.Buffer
	printGoals(&out, nil)
	if got := strings.Count(out.String(), "not measured"); got != len(goals()) {
		t.Fatalf("with no rows, %d of %d goals say not measured:\n%s", got, len(goals()), out.String())
	}
	b, err := os.ReadFile("../latest.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []jsonRow
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	for _, tg := range goals() {
		if strings.HasPrefix(tg.row, "changes_view/") && !slices.ContainsFunc(rows, func(r jsonRow) bool { return strings.HasPrefix(r.Name, "changes_view/") }) {
			// The Changes view's rows come from benchmarks in ./app/,
			// which a tree may not have yet (mcpbench skips them then).
			continue
		}
		if strings.Contains(tg.row, "/confined/") && !slices.ContainsFunc(rows, func(r jsonRow) bool { return strings.Contains(r.Name, "/confined/") }) {
			// The confined rows need bubblewrap: a run where it cannot
			// make a sandbox writes none (its summary says why), and so
			// did every run before the rows were added.
			continue
		}
		if _, _, measured := tg.check(rows); !measured {
			t.Errorf("goal %q reads row %q, which bench/latest.json does not have (with a ratio, if it needs one)", tg.what, tg.row)
		}
	}
}
