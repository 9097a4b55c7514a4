package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// report is one run's cells, printed as a table and written as JSON rows.
type report struct {
	cells    []cell     // the servers under test
	refs     []cell     // client-only and bbolt rows
	workflow []wfResult // the workflow rows, on Switchboard only
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
		cpu:    c.cpuPerCall() - client.cpuPerCall(),
		hasCPU: c.hasCPU && client.hasCPU,
	}, true
}

func (r *report) printTable(w io.Writer) {
	fmt.Fprintf(w, "MCP tools/call status over loopback HTTP — %s, GOMAXPROCS=%d, %s/%s\n\n",
		runtime.Version(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH)
	// Names are padded here so that they read left-aligned while the
	// numbers align right.
	width := 0
	for _, c := range append(append([]cell(nil), r.cells...), r.refs...) {
		width = max(width, utf8.RuneCountInString(c.server))
	}
	pad := func(s string) string { return s + strings.Repeat(" ", width-utf8.RuneCountInString(s)) }
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tconc\tcalls/s\tp50\tp99\tallocs/call\tbytes/call\tCPU/call\t≈srv allocs\t≈srv bytes\t≈srv CPU\tcalls/s vs go-sdk\t\n", pad("server"))
	row := func(c cell) {
		share, ok := r.serverShare(c)
		ok = ok && isServer(c.server)
		vs := "-"
		if c.server == serverSwitchboard {
			if sdk, found := find(r.cells, serverSDK, c.conc); found {
				vs = fmt.Sprintf("%.3f×", c.rate()/sdk.rate())
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			pad(c.server), c.conc, c.rate(), fmtDur(c.p50), fmtDur(c.p99),
			c.allocsPerCall(), fmtBytes(c.bytesPerCall()), cpuCell(c.cpuPerCall(), c.hasCPU),
			ifOK(ok, fmt.Sprintf("%.0f", share.allocs)), ifOK(ok, fmtBytes(share.bytes)), ifOK(ok && share.hasCPU, fmtDur(share.cpu)),
			vs)
	}
	for _, c := range r.cells {
		row(c)
	}
	if len(r.refs) > 0 {
		fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t\t\t\t")
		for _, c := range r.refs {
			row(c)
		}
	}
	tw.Flush()
	for line := range strings.Lines(buf.String()) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}

	fmt.Fprintln(w, `
allocs/call, bytes/call and CPU/call count the whole process, the in-process clients included;
the client-only rows are the same clients against the net/http server in a child process, and
the ≈srv columns are a row less the client-only row of its concurrency. bbolt rows: one
transaction (Update) or one batch member (Batch) per "call", a 420-byte Put each.`)

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
	if fs, ok := find(r.refs, refUpdate, 1); ok {
		// A design that commits each call in a transaction of its own
		// cannot pass the first rate; the batch rows bound a group commit.
		fmt.Fprintf(w, "\nOne fsync'd bbolt Update here: %.0f/s (p50 %s). Switchboard's rate against it:\n", fs.rate(), fmtDur(fs.p50))
		for _, c := range r.cells {
			if c.server == serverSwitchboard {
				fmt.Fprintf(w, "  c=%-3d %.0f calls/s = %.2f× the single-Update rate\n", c.conc, c.rate(), c.rate()/fs.rate())
			}
		}
	}
}

// printWorkflow prints the workflow rows, each call's rate set beside the
// fsync'd single-Update rate.
func (r *report) printWorkflow(w io.Writer) {
	if len(r.workflow) == 0 {
		return
	}
	fs, hasFsync := find(r.refs, refUpdate, 1)
	fmt.Fprintln(w, "\nWorkflow calls on Switchboard over loopback HTTP, each an audited transaction:")
	width := len("load")
	for _, wf := range r.workflow {
		width = max(width, utf8.RuneCountInString(wfLabel(wf.kind)))
	}
	pad := func(s string) string { return s + strings.Repeat(" ", width-utf8.RuneCountInString(s)) }
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tconc\tcalls/s\tclaims/s\tcompletes/s\tp50\tp99\tallocs/call\tCPU/call\tcalls/s vs 1 fsync'd Update\t\n", pad("load"))
	for _, wf := range r.workflow {
		c := wf.cell
		claims, completes := "-", "-"
		if wf.kind == wfDrain {
			claims, completes = fmt.Sprintf("%.0f", wf.claimRate()), fmt.Sprintf("%.0f", wf.completeRate())
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t\n",
			pad(wfLabel(wf.kind)), c.conc, c.rate(), claims, completes, fmtDur(c.p50), fmtDur(c.p99),
			c.allocsPerCall(), cpuCell(c.cpuPerCall(), c.hasCPU), ifOK(hasFsync, fmt.Sprintf("%.2f×", c.rate()/fs.rate())))
	}
	tw.Flush()
	for line := range strings.Lines(buf.String()) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
	fmt.Fprintln(w, `drain: agents with a session each run work_await_packet → work_ack → artifact_publish (inline)
→ work_complete on one repository's queue; every call counts. heartbeat: session_report
kind heartbeat (a report, a trace event and an audit record per call).`)
}

func wfLabel(kind string) string {
	switch kind {
	case wfDrain:
		return "drain (await→ack→publish→complete)"
	case wfHeartbeat:
		return "session_report heartbeat"
	}
	return kind
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
}

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
		{key: "allocs_per_call", unit: "allocs/call", value: func(_ *report, c cell) (float64, bool) { return c.allocsPerCall(), true }},
		{key: "bytes_per_call", unit: "B/call", value: func(_ *report, c cell) (float64, bool) { return c.bytesPerCall(), true }},
		{key: "cpu_per_call", unit: "µs/call", value: func(_ *report, c cell) (float64, bool) { return us(c.cpuPerCall()), c.hasCPU }},
		{key: "server_allocs_per_call", unit: "allocs/call", server: true, value: share(func(s serverShare) (float64, bool) { return s.allocs, true })},
		{key: "server_bytes_per_call", unit: "B/call", server: true, value: share(func(s serverShare) (float64, bool) { return s.bytes, true })},
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
// SDK, the bare SDK with plain net/http. The others stand alone.
func baselineOf(server string) (string, bool) {
	switch server {
	case serverSwitchboard:
		return serverSDK, true
	case serverSDK:
		return serverPlain, true
	}
	return "", false
}

func (r *report) rows() []jsonRow {
	var out []jsonRow
	name := func(c cell, key string) string {
		prefix := "mcp_tools_call_status"
		if c.server == refUpdate || c.server == refBatch {
			prefix = "bbolt_put" // one 420-byte Put per "call"
		}
		return fmt.Sprintf("%s/%s/c%d/%s", prefix, slug(c.server), c.conc, key)
	}
	for _, c := range append(append([]cell(nil), r.cells...), r.refs...) {
		for _, m := range metrics() {
			if m.server && !isServer(c.server) {
				continue
			}
			v, ok := m.value(r, c)
			if !ok {
				continue
			}
			row := jsonRow{Name: name(c, m.key), Value: round(v), Unit: m.unit}
			if bname, ok := baselineOf(c.server); ok {
				if b, ok := find(r.cells, bname, c.conc); ok {
					if bv, ok := m.value(r, b); ok {
						n := name(b, m.key)
						row.BaselineName, row.BaselineValue = &n, ptr(round(bv))
						if m.rate && bv != 0 {
							row.Ratio = ptr(round(v / bv))
						} else if !m.rate && v > 0 && bv > 0 {
							row.Ratio = ptr(round(bv / v))
						}
					}
				}
			}
			out = append(out, row)
		}
	}
	return append(out, r.workflowRows()...)
}

// workflowRows are the workflow measurements as JSON rows. Rates of calls
// have the run's fsync'd single-Update rate as their baseline: the ratio is
// how many such transactions' worth of calls were committed per second.
func (r *report) workflowRows() []jsonRow {
	fsName := fmt.Sprintf("bbolt_put/%s/c1/calls_per_sec", slug(refUpdate))
	fs, hasFsync := find(r.refs, refUpdate, 1)
	var out []jsonRow
	for _, wf := range r.workflow {
		c := wf.cell
		prefix := fmt.Sprintf("mcp_workflow_drain/switchboard/c%d/", c.conc)
		if wf.kind == wfHeartbeat {
			prefix = fmt.Sprintf("mcp_tools_call_session_report_heartbeat/switchboard/c%d/", c.conc)
		}
		calls := jsonRow{Name: prefix + "calls_per_sec", Value: round(c.rate()), Unit: "calls/s"}
		if hasFsync {
			calls.BaselineName, calls.BaselineValue = ptr(fsName), ptr(round(fs.rate()))
			calls.Ratio = ptr(round(c.rate() / fs.rate()))
		}
		if wf.kind == wfDrain {
			out = append(out,
				jsonRow{Name: prefix + "claims_per_sec", Value: round(wf.claimRate()), Unit: "claims/s"},
				jsonRow{Name: prefix + "completes_per_sec", Value: round(wf.completeRate()), Unit: "completes/s"})
		}
		us := func(d time.Duration) float64 { return round(float64(d) / float64(time.Microsecond)) }
		out = append(out, calls,
			jsonRow{Name: prefix + "p50", Value: us(c.p50), Unit: "µs"},
			jsonRow{Name: prefix + "p99", Value: us(c.p99), Unit: "µs"},
			jsonRow{Name: prefix + "allocs_per_call", Value: round(c.allocsPerCall()), Unit: "allocs/call"})
		if c.hasCPU {
			out = append(out, jsonRow{Name: prefix + "cpu_per_call", Value: us(c.cpuPerCall()), Unit: "µs/call"})
		}
	}
	return out
}

func isServer(name string) bool {
	return name == serverSwitchboard || name == serverSDK || name == serverPlain
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
