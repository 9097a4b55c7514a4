// Command mcpbench measures the throughput of one MCP call, tools/call
// status, over real loopback HTTP, side by side against three servers in one
// run:
//
//   - switchboard: the product as the daemon serves it (store, registry,
//     front layer, go-sdk, bearer token, one fsync'd audit record per call);
//   - go-sdk: a bare stateless go-sdk server with a typed "status" tool, no
//     auth, no audit;
//   - net/http: a handler that decodes the JSON-RPC body with encoding/json
//     and answers a similar result, the loopback limit of this machine.
//
// Each server runs at several client concurrencies for a fixed time after a
// warm-up. The clients run in this process too, so the allocation and CPU
// columns include them; the "client-only" rows measure the same client
// against the net/http server running in a child process, so that the
// client's share can be subtracted. Reference rows give bbolt's rate of
// fsync'd single-Put transactions, the ceiling of any design that commits
// each call on its own, and of bbolt's Batch (many Puts per fsync), the
// ceiling of a group commit. Workflow rows (workflow.go) measure agents
// draining packets and session_report heartbeats on Switchboard.
//
// It prints one table and writes the same numbers as JSON rows (see
// [jsonRow]) for tracking across commits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
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
	drainAgents   int
	heartbeatConc int
	dir           string
	jsonPath      string
	cpuProfile    string
	memProfile    string
	blockProfile  string
}

func main() {
	var (
		cfg        config
		concList   string
		serverList string
		servePlain bool
	)
	flag.DurationVar(&cfg.duration, "duration", 3*time.Second, "measured time of each server × concurrency cell")
	flag.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "warm-up before each cell (connections, caches); not measured")
	flag.DurationVar(&cfg.fsyncDuration, "fsync-duration", 2*time.Second, "measured time of each bbolt reference row")
	flag.StringVar(&concList, "conc", "1,16,64", "client concurrencies, comma-separated")
	flag.StringVar(&serverList, "servers", strings.Join(serverNames(), ","), "servers to measure, comma-separated")
	flag.BoolVar(&cfg.references, "references", true, "also measure the client-only and bbolt reference rows")
	flag.BoolVar(&cfg.workflow, "workflow", true, "also measure the workflow rows: agents draining packets, and session_report heartbeats")
	flag.IntVar(&cfg.drainAgents, "drain-agents", 8, "agents draining packets in the workflow rows")
	flag.IntVar(&cfg.heartbeatConc, "heartbeat-conc", 16, "clients sending session_report heartbeats in the workflow rows")
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
	if cfg.drainAgents < 1 || cfg.heartbeatConc < 1 {
		fatalf("-drain-agents and -heartbeat-conc must be positive")
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

	var cells []cell
	stopProfiles, err := startProfiles(cfg)
	if err != nil {
		return err
	}
	for _, name := range cfg.servers {
		t, err := startTarget(name, dir, log)
		if err != nil {
			stopProfiles()
			return fmt.Errorf("start %s: %w", name, err)
		}
		for _, c := range cfg.conc {
			fmt.Fprintf(os.Stderr, "mcpbench: %s at concurrency %d…\n", name, c)
			res, err := measure(ctx, t, c, cfg.warmup, cfg.duration)
			if err != nil {
				t.close()
				stopProfiles()
				return err
			}
			cells = append(cells, res)
		}
		if err := t.close(); err != nil {
			stopProfiles()
			return fmt.Errorf("stop %s: %w", name, err)
		}
	}
	var wf []wfResult
	if cfg.workflow {
		if wf, err = measureWorkflow(ctx, dir, log, cfg.drainAgents, cfg.heartbeatConc, cfg.warmup, cfg.duration); err != nil {
			stopProfiles()
			return err
		}
	}
	if err := stopProfiles(); err != nil {
		return err
	}

	var refs []cell
	if cfg.references {
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

	r := newReport(cells, refs)
	r.workflow = wf
	r.printTable(os.Stdout)
	if cfg.jsonPath != "" {
		if err := r.writeJSON(cfg.jsonPath); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "mcpbench: wrote %s\n", cfg.jsonPath)
	}
	return nil
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
