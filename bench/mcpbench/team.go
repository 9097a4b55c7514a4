package main

// The team rows (docs/team-mode.md): Switchboard's store on PostgreSQL,
// one instance alone and two instances sharing one database, each row
// beside one instance on bbolt measured in the same run.
//
//   - drain: agents drain a queue with workflow.go's loop (work_await_packet
//     → work_ack → artifact_publish → work_complete); with two instances
//     half the agents are on each, and the packets were created on the
//     first. The goal is claims/s at least the bbolt instance's.
//     One more drain is a control: two instances on one server that share
//     nothing, each on a database of its own with half the packets. No
//     way of sharing one database can do better than that, so it says
//     what this machine allows the shared row.
//   - heartbeat: clients send session_report heartbeats, half to each
//     instance when there are two.
//   - wake-up: an agent long-polls work_await_packet on one instance and
//     a packet is created on the other (or on the same one, the baseline):
//     from the creation's return to the agent's answer.
//
// Each instance is what app/daemon serves, in this process: a registry and
// the HTTP handler over a store handle of its own, so that two instances
// meet only in the database, as two machines would; on PostgreSQL each
// records its heartbeat and LISTENs for the other's signals. The server is
// started for the run with internal/pgtest (initdb in a temporary folder,
// a Unix socket, run as nobody under root) and stopped at the end; it
// keeps fsync and synchronous_commit on, and the run refuses one that
// does not.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-dev/switchboard/internal/pgtest"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// The setups the team rows compare.
const (
	teamBolt = "bbolt"      // one instance on a bbolt file: the baseline
	teamPG   = "postgres"   // one instance on PostgreSQL
	teamPG2  = "postgres-2" // two instances sharing one PostgreSQL database
	// Two instances on one server, each with a database of its own: the
	// drain's control, sharing nothing.
	teamPGApart = "postgres-apart"
)

func teamSetups() []string { return []string{teamBolt, teamPG, teamPG2} }

// teamDrainSetups are the setups drained: teamSetups and the control.
func teamDrainSetups() []string { return append(teamSetups(), teamPGApart) }

// teamInstances is how many instances a setup runs.
func teamInstances(setup string) int {
	if setup == teamPG2 || setup == teamPGApart {
		return 2
	}
	return 1
}

// wakeSettle is how long a wake-up round lets the long poll reach its wait
// before the packet is created: a poll that had not yet looked at the
// queue would claim the packet without waiting, and the round would time
// a claim, not a wake-up. An idle instance reaches the wait in a few
// milliseconds; this leaves ten times that.
const wakeSettle = 50 * time.Millisecond

// teamRun is one setup's drain or heartbeat.
type teamRun struct {
	setup string
	res   wfResult
}

// wakeRun is one setup's wake-up latencies, sorted; across says the packet
// was created on another instance than the one the agent waited on.
type wakeRun struct {
	setup  string
	across bool
	lat    []time.Duration
}

// teamResult is the team section: the PostgreSQL server it ran on and
// its rows, or why it was skipped.
type teamResult struct {
	skipped string
	server  string // version and durability settings, for the table
	agents  int
	packets int
	drains  []teamRun
	beats   []teamRun
	wakes   []wakeRun
}

// measureTeam runs the team rows: the drains, the heartbeats, the
// wake-ups, each setup in turn.
func measureTeam(ctx context.Context, dir string, log *slog.Logger, cfg config) (*teamResult, error) {
	if !postgresInstalled() {
		return &teamResult{agents: cfg.teamAgents, skipped: "no PostgreSQL server installed (make deps-test installs Debian's postgresql)"}, nil
	}
	fmt.Fprintf(os.Stderr, "mcpbench: starting PostgreSQL (internal/pgtest)…\n")
	srv, stop, err := pgtest.Shared()
	if err != nil {
		return nil, err
	}
	defer stop()
	pg := &pgCluster{srv: srv}
	res := &teamResult{agents: cfg.teamAgents, packets: cfg.teamPackets}
	if res.server, err = pg.describe(ctx); err != nil {
		return nil, err
	}

	for _, setup := range teamDrainSetups() {
		fmt.Fprintf(os.Stderr, "mcpbench: team: %d agents draining %d packets, %s…\n", cfg.teamAgents, cfg.teamPackets, setup)
		d, err := teamDrain(ctx, dir, log, pg, setup, cfg.teamAgents, cfg.teamPackets)
		if err != nil {
			return nil, fmt.Errorf("team drain, %s: %w", setup, err)
		}
		res.drains = append(res.drains, teamRun{setup, d})
	}
	for _, setup := range teamSetups() {
		fmt.Fprintf(os.Stderr, "mcpbench: team: session_report heartbeat at concurrency %d, %s…\n", cfg.heartbeatConc, setup)
		h, err := teamHeartbeat(ctx, dir, log, pg, setup, cfg.heartbeatConc, cfg.warmup, cfg.duration)
		if err != nil {
			return nil, fmt.Errorf("team heartbeat, %s: %w", setup, err)
		}
		res.beats = append(res.beats, teamRun{setup, h})
	}
	for _, setup := range teamSetups() {
		fmt.Fprintf(os.Stderr, "mcpbench: team: %d wake-ups, %s…\n", cfg.teamWakeups, setup)
		w, err := teamWake(ctx, dir, log, pg, setup, cfg.teamWakeups)
		if err != nil {
			return nil, fmt.Errorf("team wake-up, %s: %w", setup, err)
		}
		res.wakes = append(res.wakes, w)
	}
	return res, nil
}

// postgresInstalled mirrors pgtest's search for the server's programs, so
// that a machine without them skips the section instead of failing the
// whole run (make bench installs what make run needs, not the server).
func postgresInstalled() bool {
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl"); len(m) > 0 {
		return true
	}
	_, err := exec.LookPath("pg_ctl")
	return err == nil
}

// pgCluster is the run's server, on which each row makes a database.
type pgCluster struct {
	srv *pgtest.Server
	n   int
}

// describe returns the server's version and durability settings, and
// refuses a server that would not make each commit durable: the rows
// compare with bbolt, which fsyncs every commit.
func (pg *pgCluster) describe(ctx context.Context) (string, error) {
	conn, err := pgx.Connect(ctx, pg.srv.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	var version, fsync, syncCommit string
	err = conn.QueryRow(ctx, `SELECT current_setting('server_version'), current_setting('fsync'), current_setting('synchronous_commit')`).
		Scan(&version, &fsync, &syncCommit)
	if err != nil {
		return "", fmt.Errorf("read PostgreSQL's settings: %w", err)
	}
	if fsync != "on" || syncCommit != "on" {
		return "", fmt.Errorf("PostgreSQL runs with fsync=%s, synchronous_commit=%s: the rows need both on", fsync, syncCommit)
	}
	return fmt.Sprintf("PostgreSQL %s, fsync=%s, synchronous_commit=%s", version, fsync, syncCommit), nil
}

// database makes a fresh database for one row and returns its URL.
func (pg *pgCluster) database(ctx context.Context) (string, error) {
	pg.n++
	name := fmt.Sprintf("team%d", pg.n)
	conn, err := pgx.Connect(ctx, pg.srv.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return pg.srv.URL(name), nil
}

// teamEnv is one row's instances, serving one repository: repoIDs[i] is
// its id on instance i, the same id on instances sharing a database.
type teamEnv struct {
	instances []*target
	repoIDs   []string
}

func (e *teamEnv) close() error {
	var errs []error
	for _, t := range e.instances {
		errs = append(errs, t.close())
	}
	return errors.Join(errs...)
}

// startTeam starts setup's instances on a fresh database (a bbolt file in
// dir, or a new PostgreSQL database; teamPGApart, one for each instance)
// with the repository name registered on each, in a folder of its own, as
// each machine would; queue, when not nil, runs in the same transaction
// on the first instance, or on each for teamPGApart.
func startTeam(ctx context.Context, dir string, log *slog.Logger, pg *pgCluster, setup, name string, queue func(tx *store.Tx, repoID string) error) (*teamEnv, error) {
	env := &teamEnv{}
	fail := func(err error) (*teamEnv, error) {
		env.close()
		return nil, err
	}
	var url string
	for i := range teamInstances(setup) {
		if setup != teamBolt && (i == 0 || setup == teamPGApart) {
			var err error
			if url, err = pg.database(ctx); err != nil {
				return fail(err)
			}
		}
		repoDir := filepath.Join(dir, fmt.Sprintf("team-%s-%s-%d", name, setup, i))
		if err := os.MkdirAll(repoDir, 0o700); err != nil {
			return fail(err)
		}
		register := func(tx *store.Tx) error {
			repo, _, err := tx.RegisterRepository(name, repoDir)
			if err != nil {
				return err
			}
			env.repoIDs = append(env.repoIDs, repo.ID)
			if queue != nil && (i == 0 || setup == teamPGApart) {
				return queue(tx, repo.ID)
			}
			return nil
		}
		var t *target
		var err error
		if setup == teamBolt {
			t, err = startSwitchboardWith(filepath.Join(dir, fmt.Sprintf("team-%s.db", name)), log, register)
		} else {
			var db *store.DB
			// An instance id of its own, as each daemon keeps in its data
			// folder: sessions and tokens are the instance's.
			if db, err = store.OpenPostgres(url, store.Options{Instance: store.NewInstanceID()}); err != nil {
				return fail(err)
			}
			t, err = serveSwitchboard(db, log, register, true)
		}
		if err != nil {
			return fail(fmt.Errorf("instance %d: %w", i+1, err))
		}
		env.instances = append(env.instances, t)
	}
	return env, nil
}

// teamDrain drains packets queued on the first instance (on each, half of
// them, for teamPGApart) with agents split evenly over setup's instances.
func teamDrain(ctx context.Context, dir string, log *slog.Logger, pg *pgCluster, setup string, agents, packets int) (wfResult, error) {
	n := 0 // the instance queuing: teamPGApart's second takes the rest
	env, err := startTeam(ctx, dir, log, pg, setup, "drain", func(tx *store.Tx, repoID string) error {
		share := packets
		if setup == teamPGApart {
			share = packets/2 + n*(packets%2)
		}
		n++
		return queuePackets(tx, repoID, share)
	})
	if err != nil {
		return wfResult{}, err
	}
	targets := make([]*target, agents)
	repoIDs := make([]string, agents)
	for i := range targets {
		// The first half on the first instance, the rest on the second.
		j := i * len(env.instances) / agents
		targets[i], repoIDs[i] = env.instances[j], env.repoIDs[j]
	}
	res, err := runDrain(ctx, targets, repoIDs, packets)
	if cerr := env.close(); err == nil && cerr != nil {
		err = fmt.Errorf("stop the instances: %w", cerr)
	}
	return res, err
}

// teamHeartbeat loads setup's instances with conc clients sending
// session_report heartbeats, alternating between the instances.
func teamHeartbeat(ctx context.Context, dir string, log *slog.Logger, pg *pgCluster, setup string, conc int, warmup, dur time.Duration) (wfResult, error) {
	env, err := startTeam(ctx, dir, log, pg, setup, "heartbeat", nil)
	if err != nil {
		return wfResult{}, err
	}
	c, err := measureWith(ctx, env.instances[0], conc, warmup, dur, func(client *http.Client, id int) (*worker, error) {
		t := env.instances[(id-1)%len(env.instances)]
		return heartbeatWorker(ctx, client, t, env.repoIDs[0], id, false)
	})
	if cerr := env.close(); err == nil && cerr != nil {
		err = fmt.Errorf("stop the instances: %w", cerr)
	}
	return wfResult{kind: wfHeartbeat, cell: c}, err
}

// teamWake times rounds of wake-ups: an agent long-polls on the last of
// setup's instances and a packet is created on the first (the same one
// when there is one), through its registry, as the GUI or the CLI create
// work.
func teamWake(ctx context.Context, dir string, log *slog.Logger, pg *pgCluster, setup string, rounds int) (wakeRun, error) {
	env, err := startTeam(ctx, dir, log, pg, setup, "wake", nil)
	if err != nil {
		return wakeRun{}, err
	}
	from, on := env.instances[0], env.instances[len(env.instances)-1]
	lat, err := wakeRounds(ctx, from, on, env.repoIDs[0], rounds)
	if cerr := env.close(); err == nil && cerr != nil {
		err = fmt.Errorf("stop the instances: %w", cerr)
	}
	return wakeRun{setup: setup, across: from != on, lat: lat}, err
}

// wakeRounds is teamWake's loop; the latencies come back sorted.
func wakeRounds(ctx context.Context, from, on *target, repoID string, rounds int) ([]time.Duration, error) {
	client := newClient(1)
	defer client.CloseIdleConnections()
	agent := &wfClient{client: client, t: on}
	ses, err := agent.ready(ctx, repoID)
	if err != nil {
		return nil, err
	}
	create, err := json.Marshal(map[string]any{"repository_id": repoID, "title": "wake", "instructions": "wake up"})
	if err != nil {
		return nil, err
	}
	type answer struct {
		id  string
		at  time.Time
		err error
	}
	lat := make([]time.Duration, 0, rounds)
	for i := range rounds {
		got := make(chan answer, 1)
		go func() {
			var r struct {
				Packet *struct {
					ID string `json:"id"`
				} `json:"packet"`
			}
			err := agent.call(ctx, "work_await_packet", map[string]any{"repository_id": repoID, "session_id": ses, "wait_seconds": 30}, &r)
			a := answer{at: time.Now(), err: err}
			if r.Packet != nil {
				a.id = r.Packet.ID
			}
			got <- a
		}()
		select {
		case <-time.After(wakeSettle):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		res := from.reg.Invoke(ctx, mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, "work.create", create)
		created := time.Now()
		if res.Err != nil {
			return nil, fmt.Errorf("round %d: work.create: %w", i+1, res.Err)
		}
		pr, ok := res.Value.(mcpserver.PacketResult)
		if !ok {
			return nil, fmt.Errorf("round %d: work.create answered %T", i+1, res.Value)
		}
		want := pr.Packet.ID
		select {
		case a := <-got:
			switch {
			case a.err != nil:
				return nil, fmt.Errorf("round %d: %w", i+1, a.err)
			case a.id != want:
				return nil, fmt.Errorf("round %d: the agent got packet %q, not %s", i+1, a.id, want)
			}
			lat = append(lat, a.at.Sub(created))
		case <-time.After(10 * time.Second):
			return nil, fmt.Errorf("round %d: the waiting agent was not woken within 10 s", i+1)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	slices.Sort(lat)
	return lat, nil
}
