package main

// The rows of bench/latest.json: one per figure, each beside its baseline.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// jsonRow is one number of the run, against its baseline when it has one.
// Ratio is ours/baseline for rates and baseline/ours for times and sizes, so
// that higher is always better.
type jsonRow struct {
	Name          string   `json:"name"`
	Value         float64  `json:"value"`
	Unit          string   `json:"unit"`
	BaselineName  *string  `json:"baseline_name"`
	BaselineValue *float64 `json:"baseline_value"`
	Ratio         *float64 `json:"ratio"`

	// label, when set, puts the row in the printed summary, in its group;
	// baseLabel names the baseline there. display and baseDisplay, when
	// set, replace the formatted values (to show a range).
	label, baseLabel     string
	group                int
	display, baseDisplay string
	// printOnly rows are in the printed summary and not in the JSON: a
	// figure that could not be measured (an agent CLI not installed).
	printOnly bool
}

// newRow is a row of value against baseline bv (named bname); rate says
// whether higher values are better. An empty bname makes a row without a
// baseline.
func newRow(name, unit string, v float64, rate bool, bname string, bv float64) jsonRow {
	row := jsonRow{Name: name, Value: round(v), Unit: unit}
	if bname == "" {
		return row
	}
	row.BaselineName, row.BaselineValue = ptr(bname), ptr(round(bv))
	if rate && bv != 0 {
		row.Ratio = ptr(round(v / bv))
	} else if !rate && v > 0 && bv > 0 {
		row.Ratio = ptr(round(bv / v))
	}
	return row
}

// labelled returns row with its summary labels set.
func (row jsonRow) labelled(group int, label, baseLabel string) jsonRow {
	row.group, row.label, row.baseLabel = group, label, baseLabel
	return row
}

// Summary groups, in print order.
const (
	groupStatus = iota
	groupDaemon
	groupWorkflow
	groupTeam
	groupAudit
	groupAgents
	groupWorkspace
	groupAgentCLI
	groupReference
)

// metric is one column of a cell.
type metric struct {
	key  string
	unit string
	// rate metrics are better when higher; the others when lower.
	rate bool
	// server metrics are estimates of the server's share, available only
	// with the client-only rows.
	server bool
	value  func(r *report, c cell) (float64, bool)
}

func metrics() []metric {
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	share := func(f func(serverShare) (float64, bool)) func(*report, cell) (float64, bool) {
		return func(r *report, c cell) (float64, bool) {
			s, ok := r.serverShare(c)
			if !ok {
				return 0, false
			}
			return f(s)
		}
	}
	return []metric{
		{key: "calls_per_sec", unit: "calls/s", rate: true, value: func(_ *report, c cell) (float64, bool) { return c.rate(), true }},
		{key: "p50", unit: "µs", value: func(_ *report, c cell) (float64, bool) { return us(c.p50), true }},
		{key: "p99", unit: "µs", value: func(_ *report, c cell) (float64, bool) { return us(c.p99), true }},
		{key: "allocs_per_call", unit: "allocs/call", value: func(_ *report, c cell) (float64, bool) { return c.allocsPerCall(), !c.memUnknown }},
		{key: "bytes_per_call", unit: "B/call", value: func(_ *report, c cell) (float64, bool) { return c.bytesPerCall(), !c.memUnknown }},
		{key: "cpu_per_call", unit: "µs/call", value: func(_ *report, c cell) (float64, bool) { return us(c.cpuPerCall()), c.hasCPU }},
		{key: "server_allocs_per_call", unit: "allocs/call", server: true, value: share(func(s serverShare) (float64, bool) { return s.allocs, s.hasMem })},
		{key: "server_bytes_per_call", unit: "B/call", server: true, value: share(func(s serverShare) (float64, bool) { return s.bytes, s.hasMem })},
		{key: "server_cpu_per_call", unit: "µs/call", server: true, value: share(func(s serverShare) (float64, bool) { return us(s.cpu), s.hasCPU })},
	}
}

// slug names a server in JSON row names.
func slug(server string) string {
	switch server {
	case serverPlain:
		return "net-http"
	case refUpdate:
		return "update-fsync"
	case refBatch:
		return "batch"
	}
	return server
}

// baselineOf is what a server is compared with: Switchboard with the bare
// go-sdk server, the real daemon with the bare mcp-go server (both child
// processes), the bare servers with plain net/http. The others stand alone.
// Switchboard's rows against mcp-go are extra rows (see rows).
func baselineOf(server string) (string, bool) {
	switch server {
	case serverSwitchboard:
		return serverSDK, true
	case serverDaemon:
		return serverMCPGo, true
	case serverSDK, serverMCPGo:
		return serverPlain, true
	}
	return "", false
}

// cellName is the JSON name of one metric of a cell.
func cellName(c cell, key string) string {
	prefix := "mcp_tools_call_status"
	if c.server == refUpdate || c.server == refBatch {
		prefix = "bbolt_put" // one 420-byte Put per "call"
	}
	return fmt.Sprintf("%s/%s/c%d/%s", prefix, slug(c.server), c.conc, key)
}

// cellRow is metric m of cell c against the same metric of base, if found.
func (r *report) cellRow(c cell, m metric, name string, base string) (jsonRow, bool) {
	v, ok := m.value(r, c)
	if !ok {
		return jsonRow{}, false
	}
	if b, found := find(r.cells, base, c.conc); found && base != "" {
		if bv, ok := m.value(r, b); ok {
			return newRow(name, m.unit, v, m.rate, cellName(b, m.key), bv), true
		}
	}
	return newRow(name, m.unit, v, m.rate, "", 0), true
}

func (r *report) rows() []jsonRow {
	var out []jsonRow
	for _, c := range append(append([]cell(nil), r.cells...), r.refs...) {
		for _, m := range metrics() {
			if m.server && !isServer(c.server) {
				continue
			}
			base, _ := baselineOf(c.server)
			row, ok := r.cellRow(c, m, cellName(c, m.key), base)
			if !ok {
				continue
			}
			if m.key == "calls_per_sec" && c.server == refUpdate {
				row = row.labelled(groupReference, "bbolt: fsync'd Updates of one 420-byte Put, one after another", "")
				row.display = fmtValue(row.Value, "Updates/s")
			}
			if m.key == "calls_per_sec" && c.server == refBatch {
				row = row.labelled(groupReference, fmt.Sprintf("bbolt: Batch of %d goroutines, one Put each (group commit's ceiling)", c.conc), "")
				row.display = fmtValue(row.Value, "Puts/s")
			}
			if m.key == "calls_per_sec" && row.BaselineName != nil {
				switch c.server {
				case serverSwitchboard:
					row = row.labelled(groupStatus, statusLabel(c), "bare go-sdk")
				case serverDaemon:
					row = row.labelled(groupStatus, statusLabel(c), "bare mcp-go †")
				}
			}
			out = append(out, row)
		}
		if c.server == serverSwitchboard {
			// Switchboard against mcp-go too: the comparison.
			for _, m := range metrics() {
				row, ok := r.cellRow(c, m, cellName(c, m.key+"_vs_mcp-go"), serverMCPGo)
				if !ok || row.BaselineName == nil {
					continue
				}
				if m.key == "calls_per_sec" {
					row = row.labelled(groupStatus, statusLabel(c), "bare mcp-go †")
				}
				out = append(out, row)
			}
		}
	}
	out = append(out, r.workflowRows()...)
	out = append(out, r.teamRows()...)
	out = append(out, r.auditRows()...)
	out = append(out, r.daemonRows()...)
	out = append(out, r.goBenchRows()...)
	out = append(out, r.workspaceRows()...)
	out = append(out, r.agentCLIRows()...)
	return out
}

// statusLabel names a status cell in the summary.
func statusLabel(c cell) string {
	who := "Switchboard (in process)"
	if c.server == serverDaemon {
		who = "switchboard daemon †"
	}
	return fmt.Sprintf("tools/call status, %s, %s", clients(c.conc), who)
}

func clients(n int) string {
	if n == 1 {
		return "1 client"
	}
	return fmt.Sprintf("%d clients", n)
}

// workflowRows are the workflow measurements as JSON rows. Rates have the
// rate of fsync'd single-Put Updates measured around the row as their
// baseline: the ratio is how many such transactions' worth were committed
// per second.
func (r *report) workflowRows() []jsonRow {
	var out []jsonRow
	for _, wf := range r.workflow {
		c := wf.cell
		prefix := fmt.Sprintf("mcp_workflow_drain/switchboard/c%d/", c.conc)
		switch wf.kind {
		case wfHeartbeat:
			prefix = fmt.Sprintf("mcp_tools_call_session_report_heartbeat/switchboard/c%d/", c.conc)
		case wfHeartbeatDirect:
			prefix = fmt.Sprintf("registry_session_report_heartbeat/switchboard/c%d/", c.conc)
		}
		fsName := prefix + "fsync_updates_per_sec"
		vsFsync := func(name, unit string, v float64) jsonRow {
			row := newRow(name, unit, v, true, fsName, wf.fsync.rate())
			row.baseDisplay = fmtValue(wf.fsync.rate(), "Updates/s")
			return row
		}
		calls := vsFsync(prefix+"calls_per_sec", "calls/s", c.rate())
		if wf.kind == wfDrain {
			out = append(out,
				vsFsync(prefix+"claims_per_sec", "claims/s", wf.claimRate()).
					labelled(groupWorkflow, fmt.Sprintf("claims, %d agents draining %s packets", c.conc, thousands(wf.packets)), "fsync'd bbolt Updates around it"),
				vsFsync(prefix+"completes_per_sec", "completes/s", wf.completeRate()).
					labelled(groupWorkflow, fmt.Sprintf("completes, %d agents draining %s packets", c.conc, thousands(wf.packets)), "fsync'd bbolt Updates around it"),
				newRow(prefix+"drain_time", "ms", float64(c.elapsed)/float64(time.Millisecond), false, "", 0))
		} else if wf.kind == wfHeartbeatDirect {
			calls = calls.labelled(groupWorkflow, fmt.Sprintf("session.report heartbeats, %d callers in process", c.conc), "fsync'd bbolt Updates around it")
		} else {
			calls = calls.labelled(groupWorkflow, fmt.Sprintf("session_report heartbeats, %s over HTTP", clients(c.conc)), "fsync'd bbolt Updates around it")
		}
		us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
		out = append(out, calls,
			newRow(fsName, "Updates/s", wf.fsync.rate(), true, "", 0),
			newRow(prefix+"p50", "µs", us(c.p50), false, "", 0),
			newRow(prefix+"p99", "µs", us(c.p99), false, "", 0),
			newRow(prefix+"allocs_per_call", "allocs/call", c.allocsPerCall(), false, "", 0))
		if c.hasCPU {
			out = append(out, newRow(prefix+"cpu_per_call", "µs/call", us(c.cpuPerCall()), false, "", 0))
		}
	}
	return out
}

// auditRows: each query's latency over MCP against the same query on the
// store, and the export rates.
func (r *report) auditRows() []jsonRow {
	a := r.audit
	if a == nil {
		return nil
	}
	size := fmt.Sprintf("%dk", a.records/1000)
	if a.records >= 1_000_000 && a.records%1_000_000 == 0 {
		size = fmt.Sprintf("%dm", a.records/1_000_000)
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	var out []jsonRow
	out = append(out, newRow(fmt.Sprintf("audit_fill/%s/records_per_sec", size), "records/s", float64(a.records)/a.fill.Seconds(), true, "", 0).
		labelled(groupAudit, fmt.Sprintf("audit log of %s records built (AppendAudit, 50,000 a transaction)", thousands(a.records)), ""))
	for _, q := range a.queries {
		slug := strings.ReplaceAll(q.name, " ", "_")
		for _, p := range []struct {
			key string
			q   float64
		}{{"p50", 0.50}, {"p99", 0.99}} {
			mcp, st := sorted(q.mcp), sorted(q.onStore)
			name := fmt.Sprintf("audit_query/%s/%s/%s", size, slug, p.key)
			row := newRow(name, "µs", us(percentile(mcp, p.q)), false, fmt.Sprintf("audit_query/%s/%s/store/%s", size, slug, p.key), us(percentile(st, p.q)))
			if p.key == "p50" {
				row = row.labelled(groupAudit, fmt.Sprintf("audit_query %s (%d rows) of %s, p50 over MCP", q.name, q.matched, thousands(a.records)), "QueryAudit on the store")
			}
			out = append(out, row)
		}
	}
	out = append(out, newRow(fmt.Sprintf("audit_export/%s/records_per_sec", size), "records/s", a.export.rate(), true, fmt.Sprintf("audit_export/%s/store/records_per_sec", size), a.exportStore.rate()).
		labelled(groupAudit, fmt.Sprintf("export of the newest %s records to JSONL over MCP (pages of %d)", thousands(a.export.records), auditExportPage), "the same from the store"))
	return out
}

// thousands formats n with commas.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func sorted(ds []time.Duration) []time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s
}

// daemonRows: the headless starts against `switchboard --version`, and the
// child servers' resident sets, the daemon's against mcp-go's.
func (r *report) daemonRows() []jsonRow {
	var out []jsonRow
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	rangeOf := func(ds []time.Duration) string {
		lo, hi := spread(ds)
		return fmt.Sprintf("%s (%s–%s)", fmtDur(median(ds)), fmtDur(lo), fmtDur(hi))
	}
	if s := r.starts; s != nil {
		for _, k := range []struct {
			key, label string
			ds         []time.Duration
		}{
			{"start_to_endpoint/fresh", "headless start to endpoint ready, empty data dir", s.freshReady},
			{"start_to_first_answer/fresh", "headless start to first status answered, empty data dir", s.freshAnswer},
			{"start_to_endpoint/restart", "headless start to endpoint ready, same data dir again", s.restartReady},
			{"start_to_first_answer/restart", "headless start to first status answered, same data dir again", s.restartAnswer},
		} {
			row := newRow("switchboard_daemon/"+k.key, "ms", ms(median(k.ds)), false, "switchboard_daemon/version_exec", ms(median(s.version)))
			row = row.labelled(groupDaemon, k.label, "switchboard --version")
			row.display, row.baseDisplay = rangeOf(k.ds), rangeOf(s.version)
			out = append(out, row)
		}
	}
	rssOf := func(server string) (rssResult, bool) {
		for _, x := range r.rss {
			if x.server == server {
				return x, true
			}
		}
		return rssResult{}, false
	}
	mib := func(b uint64) float64 { return float64(b) / (1 << 20) }
	d, hasD := rssOf(serverDaemon)
	g, hasG := rssOf(serverMCPGo)
	for _, k := range []struct {
		key, label string
		v          func(rssResult) uint64
	}{
		{"rss_idle", "RSS idle", func(x rssResult) uint64 { return x.idle }},
		{"rss_after_load", "RSS after the status load", func(x rssResult) uint64 { return x.loaded }},
		{"rss_peak", "peak RSS (VmHWM)", func(x rssResult) uint64 { return x.peak }},
	} {
		switch {
		case hasD && hasG:
			out = append(out, newRow("switchboard_daemon/"+k.key, "MiB", mib(k.v(d)), false, "mcp-go/"+k.key, mib(k.v(g))).
				labelled(groupDaemon, k.label+", headless daemon †", "bare mcp-go †"))
		case hasD:
			out = append(out, newRow("switchboard_daemon/"+k.key, "MiB", mib(k.v(d)), false, "", 0).
				labelled(groupDaemon, k.label+", headless daemon †", ""))
		case hasG:
			out = append(out, newRow("mcp-go/"+k.key, "MiB", mib(k.v(g)), false, "", 0))
		}
	}
	return out
}

func isServer(name string) bool {
	return name == serverSwitchboard || name == serverSDK || name == serverPlain || name == serverDaemon || name == serverMCPGo
}

func ptr[T any](v T) *T { return &v }

// round keeps three decimals: enough for every unit here, and stable diffs.
func round(v float64) float64 { return math.Round(v*1000) / 1000 }

func (r *report) writeJSON(path string) error {
	rows := slices.DeleteFunc(r.rows(), func(row jsonRow) bool { return row.printOnly })
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
