// Command mcpbench measures the throughput of one MCP call, tools/call
// status, over real loopback HTTP, side by side against these servers in
// one run:
//
//   - switchboard: the product as the daemon serves it (store, registry,
//     front layer, go-sdk, bearer token, one fsync'd audit record per call);
//   - go-sdk: a bare stateless go-sdk server with a typed "status" tool, no
//     auth, no audit;
//   - net/http: a handler that decodes the JSON-RPC body with encoding/json
//     and answers a similar result, the loopback limit of this machine;
//   - switchboard-daemon: the real switchboard binary, built for the run
//     and started headless in fresh folders (daemon.go), in a child process;
//   - mcp-go: a bare mark3labs/mcp-go server with the same typed tool,
//     stateless, no auth, no audit, built from the bench-only module
//     bench/peers (peers.go), in a child process.
//
// A server in a child process has its CPU read from /proc/<pid>/stat and
// added to the cells' CPU (and the mcp-go peer reports its allocations), so
// the columns count client and server wherever the server runs; the resident
// set of each child is read idle and after its load.
//
// Each server runs at several client concurrencies for a fixed time after a
// warm-up. The clients run in this process too, so the allocation and CPU
// columns include them; the "client-only" rows measure the same client
// against the net/http server running in a child process, so that the
// client's share can be subtracted. Reference rows give bbolt's rate of
// fsync'd single-Put transactions, the ceiling of any design that commits
// each call on its own, and of bbolt's Batch (many Puts per fsync), the
// ceiling of a group commit. Workflow rows (workflow.go) measure 8 and 32
// agents draining 10,000 packets and session_report heartbeats on
// Switchboard; team rows (team.go) measure the same on PostgreSQL, one
// instance and two sharing a database, and the wake-up of an agent on one
// instance by work created on another, beside one instance on bbolt, on a
// server started for the run; audit rows (audit.go) query and export a log of a million
// records; daemon rows (daemon.go) time the real binary's headless start;
// workspace rows (worktree.go, diffland.go) time an agent's start with a
// worktree on a generated 20,000-file repository, switchboard diff of a
// 5,000-file change and switchboard land of 100-commit packets, each beside
// git doing the same alone; and the Changes view's benchmarks in ./app/
// run when that package has them. Agent CLI rows (agentcli.go) time Start
// agent to the first tool call of Claude Code, Codex and Gemini CLI on the
// stand-in model, beside the supervisor's stand-in agent. Go benchmarks
// (gobench.go) give the supervisor's PTY rows, a confined agent's start
// and output beside an unconfined one's, and the emulator comparison.
// -only runs a subset of these sections.
//
// It prints the detail tables and one summary table of every headline
// figure beside its baseline, and writes the same numbers as JSON rows (see
// [jsonRow]) for tracking across commits.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/switchboard-dev/switchboard/supervisor"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is what the flags select.
type config struct {
	duration      time.Duration
	warmup        time.Duration
	fsyncDuration time.Duration
	conc          []int
	servers       []string
	references    bool
	workflow      bool
	drainAgents   []int
	drainPackets  int
	heartbeatConc int
	team          bool
	teamAgents    int
	teamPackets   int
	teamWakeups   int
	audit         bool
	auditRecords  int
	auditExport   int
	daemon        bool
	daemonStarts  int
	idle          time.Duration
	gobench       bool
	workspace     bool
	wsFiles       int
	wsStarts      int
	wsRuns        int
	diffFiles     int
	diffLines     int
	landCommits   int
	changes       bool
	agentCLIs     bool
	agentCLIStart int
	only          []string
	root          string
	dir           string
	jsonPath      string
	cpuProfile    string
	memProfile    string
	blockProfile  string
}

func main() {
	// The daemons started here confine their agents with this binary.
	confine.RunHelper(os.Args)
	var (
		cfg        config
		concList   string
		serverList string
		drainList  string
		servePlain bool
		onlyList   string
	)
	flag.DurationVar(&cfg.duration, "duration", 3*time.Second, "measured time of each server × concurrency cell")
	flag.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "warm-up before each cell (connections, caches); not measured")
	flag.DurationVar(&cfg.fsyncDuration, "fsync-duration", 2*time.Second, "measured time of each bbolt reference row")
	flag.StringVar(&concList, "conc", "1,16,64", "client concurrencies, comma-separated")
	flag.StringVar(&serverList, "servers", strings.Join(serverNames(), ","), "servers to measure, comma-separated")
	flag.BoolVar(&cfg.references, "references", true, "also measure the client-only and bbolt reference rows")
	flag.BoolVar(&cfg.workflow, "workflow", true, "also measure the workflow rows: agents draining packets, and session_report heartbeats")
	flag.StringVar(&drainList, "drain-agents", "8,32", "agent counts draining packets in the workflow rows, comma-separated")
	flag.IntVar(&cfg.drainPackets, "drain-packets", 10_000, "packets each drain takes off the queue")
	flag.IntVar(&cfg.heartbeatConc, "heartbeat-conc", 16, "clients sending session_report heartbeats in the workflow rows")
	flag.BoolVar(&cfg.team, "team", true, "also measure the team rows (team.go): drains, heartbeats and wake-ups on PostgreSQL, one instance and two sharing a database, each beside one instance on bbolt")
	flag.IntVar(&cfg.teamAgents, "team-agents", 8, "agents draining packets in the team rows (split evenly over two instances)")
	flag.IntVar(&cfg.teamPackets, "team-packets", 2_000, "packets each team drain takes off the queue")
	flag.IntVar(&cfg.teamWakeups, "team-wakeups", 50, "wake-up rounds of each team row")
	flag.BoolVar(&cfg.audit, "audit", true, "also measure the audit rows: queries and an export over a big log")
	flag.IntVar(&cfg.auditRecords, "audit-records", 1_000_000, "records in the audit rows' log")
	flag.IntVar(&cfg.auditExport, "audit-export", 100_000, "how many of the newest records the audit export reads")
	flag.BoolVar(&cfg.daemon, "daemon", true, "also time the real daemon's headless starts")
	flag.IntVar(&cfg.daemonStarts, "daemon-starts", 5, "headless starts of each kind (fresh data dir, restart) to time")
	flag.DurationVar(&cfg.idle, "idle", time.Second, "how long a child server rests after its first answer before its idle RSS is read")
	flag.BoolVar(&cfg.gobench, "gobench", true, "also run the supervisor's PTY benchmarks (an agent supervised, and confined by bubblewrap), a confined agent's start, and bench/vtcompare with go test, and put their figures in the summary")
	flag.BoolVar(&cfg.workspace, "workspace", true, "also measure the workspace rows (worktree.go, diffland.go): agent start with a worktree, switchboard diff, switchboard land, each beside git alone")
	flag.IntVar(&cfg.wsFiles, "worktree-files", 20_000, "files in the workspace rows' generated repository")
	flag.IntVar(&cfg.wsStarts, "worktree-starts", 5, "agent starts with a worktree to time (and as many git worktree adds)")
	flag.IntVar(&cfg.wsRuns, "workspace-runs", 5, "switchboard diff calls and packets landed to time (and as many git diffs and merges)")
	flag.IntVar(&cfg.diffFiles, "diff-files", 5_000, "files the diff rows' packet changes")
	flag.IntVar(&cfg.diffLines, "diff-lines", 20, "lines changed in each of those files (at most 20)")
	flag.IntVar(&cfg.landCommits, "land-commits", 100, "commits of each packet the landing rows land")
	flag.BoolVar(&cfg.changes, "changes", true, "also run the Changes view's benchmarks in ./app/ (go test -bench Changes, with cgo) when the package has them")
	flag.BoolVar(&cfg.agentCLIs, "agent-clis", true, "also time Start agent to the first tool call of each real agent CLI (test/agents) on the stand-in model, beside the supervisor's stand-in agent (agentcli.go)")
	flag.IntVar(&cfg.agentCLIStart, "agent-cli-starts", 5, "starts of each agent CLI (and of the stand-in agent) to time")
	flag.StringVar(&onlyList, "only", "", "run only the sections whose name contains one of these comma-separated substrings ("+strings.Join(sectionNames(), ", ")+"); default all. Writes no JSON unless -json is given")
	flag.StringVar(&cfg.root, "root", ".", "the repository's root: the daemon and bench/peers are built from it")
	flag.StringVar(&cfg.dir, "dir", "", "parent folder of the temporary databases (default: the system temp dir); put it on the disk you care about")
	flag.StringVar(&cfg.jsonPath, "json", "bench/latest.json", `where to write the JSON rows; "" to skip`)
	flag.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the server and workflow cells (clients included) to this file")
	flag.StringVar(&cfg.memProfile, "memprofile", "", "write an allocation profile of the server and workflow cells to this file")
	flag.StringVar(&cfg.blockProfile, "blockprofile", "", "write a blocking profile of the server and workflow cells to this file (slows them down)")
	flag.BoolVar(&servePlain, "serve-plain", false, "internal: serve the net/http target for the client-only rows and print its URL")
	flag.Parse()

	if servePlain {
		if err := serveChildPlain(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "mcpbench -serve-plain:", err)
			os.Exit(1)
		}
		return
	}
	var err error
	if cfg.conc, err = parseConc(concList); err != nil {
		fatalf("-conc: %v", err)
	}
	if cfg.servers, err = parseServers(serverList); err != nil {
		fatalf("-servers: %v", err)
	}
	if cfg.duration <= 0 || cfg.warmup < 0 || cfg.fsyncDuration <= 0 {
		fatalf("-duration and -fsync-duration must be positive, -warmup not negative")
	}
	if cfg.drainAgents, err = parseConc(drainList); err != nil {
		fatalf("-drain-agents: %v", err)
	}
	if cfg.drainPackets < 1 || cfg.heartbeatConc < 1 || cfg.auditRecords < 1 || cfg.auditExport < 1 || cfg.daemonStarts < 1 {
		fatalf("-drain-packets, -heartbeat-conc, -audit-records, -audit-export and -daemon-starts must be positive")
	}
	if cfg.wsFiles < 1 || cfg.wsStarts < 1 || cfg.wsRuns < 1 || cfg.landCommits < 1 || cfg.diffFiles < 1 || cfg.diffFiles > cfg.wsFiles || cfg.diffLines < 1 || cfg.diffLines > genLines/2 {
		fatalf("-worktree-files, -worktree-starts, -workspace-runs, -land-commits, -diff-files and -diff-lines must be positive, -diff-files at most -worktree-files, -diff-lines at most %d", genLines/2)
	}
	if cfg.agentCLIStart < 1 {
		fatalf("-agent-cli-starts must be positive")
	}
	if cfg.teamAgents < 2 || cfg.teamPackets < 1 || cfg.teamWakeups < 1 {
		fatalf("-team-agents must be at least 2 (one on each instance), -team-packets and -team-wakeups positive")
	}
	if cfg.only, err = parseOnly(onlyList); err != nil {
		fatalf("-only: %v", err)
	}
	if len(cfg.only) > 0 {
		// A subset must not overwrite the full run's JSON by accident.
		explicit := false
		flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "json" })
		if !explicit {
			cfg.jsonPath = ""
		}
	}
	if err := run(context.Background(), cfg); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mcpbench: "+format+"\n", args...)
	os.Exit(1)
}

func run(ctx context.Context, cfg config) error {
	begun := time.Now()
	dir, err := os.MkdirTemp(cfg.dir, "mcpbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// Server errors (a failed commit) are worth seeing; the per-request
	// debug noise of net/http is not.
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	fmt.Fprintf(os.Stderr, "mcpbench: %s, GOMAXPROCS=%d, %d CPUs, databases in %s\n",
		runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), dir)

	// The binaries of the child servers, built first so that a failed
	// build stops the run before anything is measured.
	env := &runEnv{dir: dir, log: log}
	status := cfg.want(sectionStatus)
	if !status {
		cfg.servers = nil
	}
	if slices.Contains(cfg.servers, serverMCPGo) {
		fmt.Fprintf(os.Stderr, "mcpbench: building bench/peers…\n")
		if env.peers, err = buildPeers(cfg.root, dir); err != nil {
			return err
		}
	}
	// The confined rows start their agents through it too: it is the
	// sandbox helper a person's agents run through.
	if slices.Contains(cfg.servers, serverDaemon) || cfg.daemon && cfg.want(sectionDaemon) || cfg.gobench && cfg.want(sectionGoBench) {
		fmt.Fprintf(os.Stderr, "mcpbench: building the switchboard binary (cgo)…\n")
		if env.daemon, err = buildDaemon(cfg.root, dir); err != nil {
			return err
		}
	}

	stopProfiles, err := startProfiles(cfg)
	if err != nil {
		return err
	}
	var cells []cell
	var rss []rssResult
	if status {
		if cells, rss, err = measureServers(ctx, cfg, env); err != nil {
			stopProfiles()
			return err
		}
	}
	var wf []wfResult
	if cfg.workflow && cfg.want(sectionWorkflow) {
		if wf, err = measureWorkflow(ctx, dir, log, cfg.drainAgents, cfg.drainPackets, cfg.heartbeatConc, cfg.warmup, cfg.duration); err != nil {
			stopProfiles()
			return err
		}
	}
	if err := stopProfiles(); err != nil {
		return err
	}

	var team *teamResult
	if cfg.team && cfg.want(sectionTeam) {
		if team, err = measureTeam(ctx, dir, log, cfg); err != nil {
			return fmt.Errorf("team rows: %w", err)
		}
		if team.skipped != "" {
			fmt.Fprintf(os.Stderr, "mcpbench: team rows skipped: %s\n", team.skipped)
		}
	}

	var audit *auditResult
	if cfg.audit && cfg.want(sectionAudit) {
		a, err := measureAudit(ctx, dir, log, cfg.auditRecords, cfg.auditExport)
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		audit = &a
	}
	var starts *daemonStarts
	if cfg.daemon && cfg.want(sectionDaemon) {
		fmt.Fprintf(os.Stderr, "mcpbench: %d headless starts of the daemon, fresh and again…\n", cfg.daemonStarts)
		s, err := measureDaemonStarts(ctx, env.daemon.path, cfg.daemonStarts)
		if err != nil {
			return fmt.Errorf("daemon starts: %w", err)
		}
		starts = &s
	}

	var refs []cell
	if cfg.references && cfg.want(sectionReferences) {
		fmt.Fprintf(os.Stderr, "mcpbench: client-only rows (net/http server in a child process)…\n")
		child, err := startChildPlain()
		if err != nil {
			return fmt.Errorf("start the client-only target: %w", err)
		}
		for _, c := range cfg.conc {
			res, err := measure(ctx, child, c, cfg.warmup, cfg.duration)
			if err != nil {
				child.close()
				return err
			}
			refs = append(refs, res)
		}
		if err := child.close(); err != nil {
			return fmt.Errorf("stop the client-only target: %w", err)
		}
		fmt.Fprintf(os.Stderr, "mcpbench: bbolt references…\n")
		fs, err := measureFsync(dir, cfg.warmup, cfg.fsyncDuration)
		if err != nil {
			return err
		}
		refs = append(refs, fs)
		for _, c := range cfg.conc {
			if c < 2 {
				continue // a batch of one is the row above
			}
			b, err := measureBatch(dir, c, cfg.warmup, cfg.fsyncDuration)
			if err != nil {
				return err
			}
			refs = append(refs, b)
		}
	}

	var gb []goBench
	if cfg.gobench && cfg.want(sectionGoBench) {
		fmt.Fprintf(os.Stderr, "mcpbench: the supervisor's PTY and confined-start benchmarks and bench/vtcompare (go test)…\n")
		// The helper a person's agents start through: the small one
		// beside the binary, as make build lays it.
		helper := filepath.Join(filepath.Dir(env.daemon.path), supervisor.HelperName)
		if gb, err = runGoBenches(cfg.root, helper); err != nil {
			return err
		}
	}

	var ws *wsResult
	if cfg.workspace && (cfg.want(sectionWorktree) || cfg.want(sectionDiff) || cfg.want(sectionLand)) {
		if ws, err = measureWorkspace(ctx, dir, cfg, log); err != nil {
			return fmt.Errorf("workspace rows: %w", err)
		}
	}
	var changes []goBench
	if cfg.changes && cfg.want(sectionChanges) {
		fmt.Fprintf(os.Stderr, "mcpbench: the Changes view's benchmarks (go test -bench Changes ./app/)…\n")
		var skipped string
		if changes, skipped, err = runChangesBenches(cfg.root); err != nil {
			return err
		}
		if skipped != "" {
			fmt.Fprintf(os.Stderr, "mcpbench: Changes view rows skipped: %s\n", skipped)
		}
	}

	var agents *agentCLIResult
	if cfg.agentCLIs && cfg.want(sectionAgentCLI) {
		if agents, err = measureAgentCLIs(ctx, dir, cfg, log); err != nil {
			return fmt.Errorf("agent CLI rows: %w", err)
		}
	}

	r := newReport(cells, refs)
	r.agentCLI = agents
	r.workspace = ws
	r.changes = changes
	r.gobench = gb
	r.workflow = wf
	r.team = team
	r.rss = rss
	r.audit = audit
	r.starts = starts
	r.builds = env.builds()
	r.mcpGoVersion = env.peers.mcpGoVersion
	r.printTable(os.Stdout)
	if cfg.jsonPath != "" {
		if err := r.writeJSON(cfg.jsonPath); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "mcpbench: wrote %s\n", cfg.jsonPath)
	}
	fmt.Fprintf(os.Stderr, "mcpbench: done in %v\n", time.Since(begun).Round(time.Second))
	return nil
}

// runEnv is what starting the servers needs.
type runEnv struct {
	dir    string
	log    *slog.Logger
	peers  peerBinaries
	daemon daemonBinary
}

// builds names what was built for the run and how long it took.
func (e *runEnv) builds() []string {
	var out []string
	if e.peers.mcpGo != "" {
		out = append(out, fmt.Sprintf("bench/peers/mcpgo (mark3labs/mcp-go %s) %s", e.peers.mcpGoVersion, e.peers.built.Round(100*time.Millisecond)))
	}
	if e.daemon.path != "" {
		out = append(out, fmt.Sprintf("switchboard binary (cgo) %s", e.daemon.built.Round(100*time.Millisecond)))
	}
	return out
}

// rssResult is a child server's resident set: idle (after its first
// answer and a rest) and after its load, with its peak.
type rssResult struct {
	server             string
	idle, loaded, peak uint64
}

// measureServers starts every server, then loads them at each concurrency
// in turn, each server's cell right after the others' at the same
// concurrency, so that the shared machine's drift weighs on all of them
// alike; the cells come back in table order. A server in a child process
// also has its resident set read: idle (after one call and a rest) before
// any load, and after all of its cells.
func measureServers(ctx context.Context, cfg config, env *runEnv) ([]cell, []rssResult, error) {
	var targets []*target
	var rss []rssResult
	closeAll := func() error {
		var errs []error
		for _, t := range targets {
			if err := t.close(); err != nil {
				errs = append(errs, fmt.Errorf("stop %s: %w", t.name, err))
			}
		}
		return errors.Join(errs...)
	}
	fail := func(err error) ([]cell, []rssResult, error) {
		closeAll()
		return nil, nil, err
	}
	for _, name := range cfg.servers {
		t, err := startTarget(ctx, name, env)
		if err != nil {
			return fail(fmt.Errorf("start %s: %w", name, err))
		}
		targets = append(targets, t)
	}
	for _, t := range targets {
		if t.pid == 0 {
			continue
		}
		client := newClient(1)
		err := newWorker(client, t, 1).call(ctx)
		client.CloseIdleConnections()
		if err != nil {
			return fail(fmt.Errorf("%s: first call: %w", t.name, err))
		}
		time.Sleep(cfg.idle)
		r := rssResult{server: t.name}
		r.idle, _, _ = childRSS(t.pid)
		rss = append(rss, r)
	}
	var cells []cell
	for _, c := range cfg.conc {
		for _, t := range targets {
			fmt.Fprintf(os.Stderr, "mcpbench: %s at concurrency %d…\n", t.name, c)
			res, err := measure(ctx, t, c, cfg.warmup, cfg.duration)
			if err != nil {
				return fail(err)
			}
			cells = append(cells, res)
		}
	}
	for i := range rss {
		for _, t := range targets {
			if t.name == rss[i].server {
				rss[i].loaded, rss[i].peak, _ = childRSS(t.pid)
			}
		}
	}
	if err := closeAll(); err != nil {
		return nil, nil, err
	}
	order := func(server string) int { return slices.Index(cfg.servers, server) }
	slices.SortStableFunc(cells, func(a, b cell) int {
		return cmp.Or(cmp.Compare(order(a.server), order(b.server)), cmp.Compare(a.conc, b.conc))
	})
	return cells, rss, nil
}

// startProfiles starts the profiles cfg asks for and returns the function
// that stops them and writes them out.
func startProfiles(cfg config) (stop func() error, err error) {
	var cpu *os.File
	if cfg.cpuProfile != "" {
		if cpu, err = os.Create(cfg.cpuProfile); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, err
		}
	}
	if cfg.blockProfile != "" {
		runtime.SetBlockProfileRate(1)
	}
	stopped := false
	return func() error {
		if stopped {
			return nil
		}
		stopped = true
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpu.Close())
		}
		if cfg.memProfile != "" {
			errs = append(errs, writeProfile("allocs", cfg.memProfile))
		}
		if cfg.blockProfile != "" {
			errs = append(errs, writeProfile("block", cfg.blockProfile))
			runtime.SetBlockProfileRate(0)
		}
		return errors.Join(errs...)
	}, nil
}

func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func parseConc(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseServers(s string) ([]string, error) {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(serverNames(), f) {
			return nil, fmt.Errorf("unknown server %q (have %s)", f, strings.Join(serverNames(), ", "))
		}
		out = append(out, f)
	}
	return out, nil
}
