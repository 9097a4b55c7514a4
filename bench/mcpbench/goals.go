package main

import (
	"bytes"
	"fmt"
	"io"
	"text/tabwriter"
)

// goal is one of the project's performance goals, read off this run's
// JSON rows, so that a run says by itself which it met.
type goal struct {
	what string
	row  string // the JSON row's name
	// ratio compares the row's ratio to its baseline with limit; otherwise
	// its value.
	ratio bool
	// atLeast: the figure must be limit or more; otherwise under limit.
	atLeast bool
	limit   float64
}

func goals() []goal {
	return append([]goal{
		{"tools/call status, 16 clients: at least 1.0× the bare go-sdk's calls/s", "mcp_tools_call_status/switchboard/c16/calls_per_sec", true, true, 1},
		{"tools/call status, 64 clients: at least 1.0× the bare go-sdk's calls/s", "mcp_tools_call_status/switchboard/c64/calls_per_sec", true, true, 1},
		{"tools/call status, 1 client: p99 under 5 ms", "mcp_tools_call_status/switchboard/c1/p99", false, false, 5000},
		{"heartbeats, 16 clients over HTTP: at least 2× the fsync'd Updates/s", "mcp_tools_call_session_report_heartbeat/switchboard/c16/calls_per_sec", true, true, 2},
		{"heartbeats, 16 callers in process: at least 2× the fsync'd Updates/s", "registry_session_report_heartbeat/switchboard/c16/calls_per_sec", true, true, 2},
		{"team: claims/s, 8 agents on two PostgreSQL instances: at least 1.0× one bbolt instance's", "team_drain/postgres-2/c8/claims_per_sec", true, true, 1},
		{"team: wake-up across instances, p50 under 50 ms", "team_wakeup/postgres-2/across/p50", false, false, 50_000},
		{"audit filter (1 record in 100) over 1,000,000: p99 under 200 ms", "audit_query/1m/outcome=capability_missing/p99", false, false, 200_000},
		{"agent output via the supervisor: at least 0.8 of the bare PTY copy", "pty_output/supervised/mb_per_sec", true, true, 0.8},
		{"screen shows a 10 MB burst's last line: worst lag under 1 s", "pty_screen_lag/worst", false, false, 1000},
		{"agent output, confined by bubblewrap: at least 0.95 of the same agent unconfined", "pty_output/confined/mb_per_sec", true, true, 0.95},
		{"agent start, confined by bubblewrap: under 50 ms more than unconfined (median)", "agent_start/confined/overhead/p50", false, false, 50},
	}, workspaceGoals()...)
}

// check finds t's figure in rows and says whether it meets t.
func (t goal) check(rows []jsonRow) (figure string, met, measured bool) {
	for _, row := range rows {
		if row.Name != t.row {
			continue
		}
		v, shown := row.Value, fmtValue(row.Value, row.Unit)
		if t.ratio {
			if row.Ratio == nil {
				return "", false, false
			}
			v, shown = *row.Ratio, fmt.Sprintf("%.2f× (%s)", *row.Ratio, shown)
		}
		if t.atLeast {
			return shown, v >= t.limit, true
		}
		return shown, v < t.limit, true
	}
	return "", false, false
}

// printGoals prints each goal with this run's figure and whether it
// was met. The losses over 100 kills and the fuzz targets have commands of
// their own (make soak, make fuzz).
func printGoals(w io.Writer, rows []jsonRow) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "goal\tthis run\t\t\n")
	for _, t := range goals() {
		figure, met, measured := t.check(rows)
		verdict := "met"
		switch {
		case !measured:
			figure, verdict = "-", "not measured in this run"
		case !met:
			verdict = "NOT met"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", t.what, figure, verdict)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nGoals (zero lost calls over 100 kills: make soak; no fuzz crash: make fuzz FUZZTIME=10m):")
	writeTrimmed(w, buf.String())
}
