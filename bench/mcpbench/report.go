package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// report is one run's cells, printed as tables and written as JSON rows.
type report struct {
	cells    []cell        // the servers under test
	refs     []cell        // client-only and bbolt rows
	workflow []wfResult    // the workflow rows, on Switchboard only
	rss      []rssResult   // the child servers' resident sets
	audit    *auditResult  // the audit rows, if measured
	starts   *daemonStarts // the daemon's starts, if measured
	gobench  []goBench     // the PTY and emulator benchmarks, if run
	// workspace is the worktree, diff and landing rows (worktree.go), and
	// changes the Changes view's benchmarks, if run.
	workspace *wsResult
	changes   []goBench
	builds    []string // what was built for the run, and how long it took
	// mcpGoVersion is the mark3labs/mcp-go version of the mcp-go rows.
	mcpGoVersion string
}

func newReport(cells, refs []cell) *report { return &report{cells: cells, refs: refs} }

// find returns the cell of server at conc.
func find(cs []cell, server string, conc int) (cell, bool) {
	for _, c := range cs {
		if c.server == server && c.conc == conc {
			return c, true
		}
	}
	return cell{}, false
}

// serverShare estimates what the server alone spent per call: the cell's
// figures less the client-only row's at the same concurrency.
type serverShare struct {
	allocs, bytes float64
	hasMem        bool
	cpu           time.Duration
	hasCPU        bool
}

func (r *report) serverShare(c cell) (serverShare, bool) {
	client, ok := find(r.refs, clientOnly, c.conc)
	if !ok {
		return serverShare{}, false
	}
	return serverShare{
		allocs: c.allocsPerCall() - client.allocsPerCall(),
		bytes:  c.bytesPerCall() - client.bytesPerCall(),
		hasMem: !c.memUnknown,
		cpu:    c.cpuPerCall() - client.cpuPerCall(),
		hasCPU: c.hasCPU && client.hasCPU,
	}, true
}

// inChild says whether server runs in a child process.
func inChild(server string) bool { return server == serverDaemon || server == serverMCPGo }

func (r *report) printTable(w io.Writer) {
	title := "MCP tools/call status over loopback HTTP"
	if len(r.cells)+len(r.refs) == 0 {
		title = "mcpbench"
	}
	fmt.Fprintf(w, "%s — %s, GOMAXPROCS=%d, %s/%s\n",
		title, runtime.Version(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH)
	if len(r.builds) > 0 {
		fmt.Fprintf(w, "built for this run: %s\n", strings.Join(r.builds, ", "))
	}
	if len(r.cells)+len(r.refs) == 0 {
		// -only left the status cells out: the other tables alone.
		r.printWorkflow(w)
		r.printSummary(w)
		printGoals(w, r.rows())
		return
	}
	fmt.Fprintln(w)
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	all := append(append([]cell(nil), r.cells...), r.refs...)
	width := 0
	for _, c := range all {
		width = max(width, utf8.RuneCountInString(displayServer(c.server)))
	}
	pad := func(s string) string { return s + strings.Repeat(" ", width-utf8.RuneCountInString(s)) }
	fmt.Fprintf(tw, "%s\tconc\tcalls/s\tp50\tp99\tallocs/call\tbytes/call\tCPU/call\t≈srv allocs\t≈srv bytes\t≈srv CPU\tcalls/s vs go-sdk\tvs mcp-go\t\n", pad("server"))
	row := func(c cell) {
		share, ok := r.serverShare(c)
		ok = ok && isServer(c.server)
		vs := func(base string) string {
			if c.server == base || !isServer(c.server) {
				return "-"
			}
			if b, found := find(r.cells, base, c.conc); found {
				return fmt.Sprintf("%.3f×", c.rate()/b.rate())
			}
			return "-"
		}
		mem := !c.memUnknown
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			pad(displayServer(c.server)), c.conc, c.rate(), fmtDur(c.p50), fmtDur(c.p99),
			ifOK(mem, fmt.Sprintf("%.0f", c.allocsPerCall())), ifOK(mem, fmtBytes(c.bytesPerCall())), cpuCell(c.cpuPerCall(), c.hasCPU),
			ifOK(ok && mem, fmt.Sprintf("%.0f", share.allocs)), ifOK(ok && mem, fmtBytes(share.bytes)), ifOK(ok && share.hasCPU, fmtDur(share.cpu)),
			vs(serverSDK), vs(serverMCPGo))
	}
	for _, c := range r.cells {
		row(c)
	}
	if len(r.refs) > 0 {
		fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t\t\t\t\t")
		for _, c := range r.refs {
			row(c)
		}
	}
	tw.Flush()
	writeTrimmed(w, buf.String())

	fmt.Fprintln(w, `
allocs/call, bytes/call and CPU/call count client and server: the clients run in this process;
a server in a child process (†) has its CPU read from /proc/<pid>/stat and added, and mcp-go
reports its allocations (the real daemon does not: "-"). The client-only rows are the same
clients against the net/http server in a child process, and the ≈srv columns are a row less the
client-only row of its concurrency. The servers' cells run concurrency by concurrency, every
server in turn, so that the shared machine's drift weighs on all of them alike. bbolt rows: one
transaction (Update) or one batch member (Batch) per "call", a 420-byte Put each.`)
	if r.mcpGoVersion != "" {
		fmt.Fprintf(w, `mcp-go is mark3labs/mcp-go %s with its defaults: stateless Streamable HTTP answers the same
request as the other servers (no initialize, no session id), and checks no schema (go-sdk
validates arguments and result against theirs).
`, r.mcpGoVersion)
	}

	var lines []string
	for _, c := range r.cells {
		if c.server != serverSwitchboard {
			continue
		}
		sdk, ok := find(r.cells, serverSDK, c.conc)
		if !ok {
			continue
		}
		l := fmt.Sprintf("  c=%-3d calls/s %.3f×  p50 %.3f×  p99 %.3f×  allocs/call %.3f×  bytes/call %.3f×",
			c.conc, c.rate()/sdk.rate(), ratio(sdk.p50.Seconds(), c.p50.Seconds()), ratio(sdk.p99.Seconds(), c.p99.Seconds()),
			ratio(sdk.allocsPerCall(), c.allocsPerCall()), ratio(sdk.bytesPerCall(), c.bytesPerCall()))
		if a, ok := r.serverShare(c); ok {
			if b, ok := r.serverShare(sdk); ok {
				l += fmt.Sprintf("  ≈srv allocs %.3f×  ≈srv bytes %.3f×", ratio(b.allocs, a.allocs), ratio(b.bytes, a.bytes))
			}
		}
		lines = append(lines, l)
	}
	if len(lines) > 0 {
		fmt.Fprintln(w, "\nSwitchboard relative to bare go-sdk (rates ours/theirs, times and sizes theirs/ours: higher is better):")
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
	r.printWorkflow(w)
	r.printSummary(w)
	printGoals(w, r.rows())
}

// displayServer is a server's name in the tables: † marks a child process.
func displayServer(server string) string {
	if inChild(server) {
		return server + " †"
	}
	return server
}

// writeTrimmed writes tabwriter output without its trailing padding.
func writeTrimmed(w io.Writer, s string) {
	for line := range strings.Lines(s) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
}

// printWorkflow prints the workflow rows, each rate set beside the fsync'd
// single-Update rate.
func (r *report) printWorkflow(w io.Writer) {
	if len(r.workflow) == 0 {
		return
	}
	fmt.Fprintln(w, "\nWorkflow calls on Switchboard over loopback HTTP, each an audited transaction:")
	width := len("load")
	for _, wf := range r.workflow {
		width = max(width, utf8.RuneCountInString(wfLabel(wf)))
	}
	pad := func(s string) string { return s + strings.Repeat(" ", width-utf8.RuneCountInString(s)) }
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tconc\ttime\tcalls/s\tclaims/s\tcompletes/s\tp50\tp99\tallocs/call\tCPU/call\tfsync'd Updates/s around it\tvs it\t\n", pad("load"))
	for _, wf := range r.workflow {
		c := wf.cell
		claims, completes := "-", "-"
		vs := fmt.Sprintf("calls %.2f×", c.rate()/wf.fsync.rate())
		if wf.kind == wfDrain {
			claims, completes = fmt.Sprintf("%.0f", wf.claimRate()), fmt.Sprintf("%.0f", wf.completeRate())
			vs = fmt.Sprintf("claims %.2f×", wf.claimRate()/wf.fsync.rate())
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.0f\t%s\t%s\t%s\t%s\t%.0f\t%s\t%.0f\t%s\t\n",
			pad(wfLabel(wf)), c.conc, fmtDur(c.elapsed), c.rate(), claims, completes, fmtDur(c.p50), fmtDur(c.p99),
			c.allocsPerCall(), cpuCell(c.cpuPerCall(), c.hasCPU), wf.fsync.rate(), vs)
	}
	tw.Flush()
	writeTrimmed(w, buf.String())
	fmt.Fprintln(w, `drain: agents with a session each run work_await_packet → work_ack → artifact_publish (inline)
→ work_complete on one repository's queue until it is empty; every call but the last (empty)
await counts; claims/s runs to the last claim, completes/s and calls/s to the last complete.
heartbeat: session_report kind heartbeat (a report, a trace event and an audit record per call);
in process: the same calls from goroutines calling the registry, as the GUI and the supervisor
do (no HTTP, no JSON-RPC): what the group commit does when the transport costs nothing.`)
}

func wfLabel(wf wfResult) string {
	switch wf.kind {
	case wfDrain:
		return fmt.Sprintf("drain %d packets", wf.packets)
	case wfHeartbeat:
		return "session_report heartbeat"
	case wfHeartbeatDirect:
		return "session.report heartbeat in process"
	}
	return wf.kind
}

// printSummary prints the rows that carry a label: each headline figure of
// the run beside its baseline, measured in the same run.
func (r *report) printSummary(w io.Writer) {
	var rows []jsonRow
	for _, row := range r.rows() {
		if row.label != "" {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return
	}
	slices.SortStableFunc(rows, func(a, b jsonRow) int { return cmp.Compare(a.group, b.group) })
	fmt.Fprintln(w, "\nSide by side, every figure measured in this run (ratio: ours/baseline for rates, baseline/ours\nfor times and sizes, so higher is better; † a child process):")
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "what\tours\tbaseline\tratio\t\n")
	group := -1
	for _, row := range rows {
		if row.group != group {
			if group != -1 {
				fmt.Fprintln(tw, "\t\t\t\t")
			}
			group = row.group
		}
		ours := row.display
		if ours == "" {
			ours = fmtValue(row.Value, row.Unit)
		}
		base, rt := "-", "-"
		if row.BaselineName != nil {
			bv := row.baseDisplay
			if bv == "" {
				bv = fmtValue(*row.BaselineValue, row.Unit)
			}
			base = row.baseLabel + ": " + bv
		}
		if row.Ratio != nil {
			rt = fmt.Sprintf("%.2f×", *row.Ratio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", row.label, ours, base, rt)
	}
	tw.Flush()
	writeTrimmed(w, buf.String())
	fmt.Fprintln(w, `Start times: median of the starts (min–max). RSS from /proc/<pid>/status: idle is 1 s after
the first answer, after load is after the status cells at every concurrency.`)
}

// fmtValue formats a row's value in its unit.
func fmtValue(v float64, unit string) string {
	switch unit {
	case "µs":
		return fmtDur(time.Duration(v * float64(time.Microsecond)))
	case "ms":
		return fmtDur(time.Duration(v * float64(time.Millisecond)))
	case "MiB":
		return fmt.Sprintf("%.1f MiB", v)
	case "MB/s":
		return fmt.Sprintf("%.1f MB/s", v)
	}
	if v >= 100 {
		return fmt.Sprintf("%.0f %s", v, unit)
	}
	return fmt.Sprintf("%.3g %s", v, unit)
}

func ifOK(ok bool, s string) string {
	if !ok {
		return "-"
	}
	return s
}

func cpuCell(d time.Duration, ok bool) string { return ifOK(ok, fmtDur(d)) }

func ratio(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return num / den
}

func fmtDur(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + fmtDur(-d)
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func fmtBytes(b float64) string {
	if b < 0 {
		return "-" + fmtBytes(-b)
	}
	if b < 1024 {
		return fmt.Sprintf("%.0fB", b)
	}
	return fmt.Sprintf("%.1fKiB", b/1024)
}

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
	groupAudit
	groupAgents
	groupWorkspace
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
	out = append(out, r.auditRows()...)
	out = append(out, r.daemonRows()...)
	out = append(out, r.goBenchRows()...)
	out = append(out, r.workspaceRows()...)
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
	b, err := json.MarshalIndent(r.rows(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
