package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// The team rows, small: a PostgreSQL server started for the test, every
// setup drained, beaten and woken, and the rows and goals they make.
func TestTeamRowsSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	if !postgresInstalled() {
		t.Skip("no PostgreSQL server installed")
	}
	cfg := config{teamAgents: 4, teamPackets: 40, teamWakeups: 3, heartbeatConc: 4, warmup: 50 * time.Millisecond, duration: 300 * time.Millisecond}
	res, err := measureTeam(context.Background(), t.TempDir(), slog.New(slog.DiscardHandler), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.skipped != "" || len(res.drains) != 4 || len(res.beats) != 3 || len(res.wakes) != 3 {
		t.Fatalf("team result: %+v", res)
	}
	for _, d := range res.drains {
		if d.res.claims != cfg.teamPackets || d.res.completes != cfg.teamPackets {
			t.Errorf("%s: %d claims, %d completes of %d packets", d.setup, d.res.claims, d.res.completes, cfg.teamPackets)
		}
	}
	r := &report{team: res}
	have := map[string]bool{}
	for _, row := range r.rows() {
		have[row.Name] = row.Ratio != nil
	}
	for _, name := range []string{
		"team_drain/postgres/c4/claims_per_sec", "team_drain/postgres-2/c4/claims_per_sec", "team_drain/postgres-apart/c4/claims_per_sec",
		"team_heartbeat/postgres-2/c4/calls_per_sec", "team_wakeup/postgres-2/across/p50",
	} {
		if !have[name] {
			t.Errorf("no row %s beside the bbolt instance's", name)
		}
	}
	var out bytes.Buffer
	r.printTable(&out)
	for _, want := range []string{"fsync=on, synchronous_commit=on", "PostgreSQL, 2 instances (2+2)", "PostgreSQL, 2 instances, 2 databases (2+2)", "created on the other instance"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
}
