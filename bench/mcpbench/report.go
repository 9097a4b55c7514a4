package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"runtime"
	"slices"
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
	team     *teamResult   // the team rows (team.go), if run
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
	// agentCLI is the agent CLI rows (agentcli.go), if run.
	agentCLI *agentCLIResult
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
		r.printTeam(w)
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
	r.printTeam(w)
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
