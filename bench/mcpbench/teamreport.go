package main

// The team rows' table, summary rows and JSON rows (team.go measures
// them). Every figure stands beside the same figure of one instance on
// bbolt, measured in the same run.

import (
	"bytes"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// teamLabel names a setup in the tables.
func teamLabel(setup string, agents int) string {
	switch setup {
	case teamBolt:
		return "bbolt, 1 instance"
	case teamPG:
		return "PostgreSQL, 1 instance"
	case teamPG2:
		if agents > 0 {
			return fmt.Sprintf("PostgreSQL, 2 instances (%d+%d)", agents-agents/2, agents/2)
		}
		return "PostgreSQL, 2 instances"
	case teamPGApart:
		if agents > 0 {
			return fmt.Sprintf("PostgreSQL, 2 instances, 2 databases (%d+%d)", agents-agents/2, agents/2)
		}
		return "PostgreSQL, 2 instances, 2 databases"
	}
	return setup
}

// baseRun is the bbolt run among runs.
func baseRun(runs []teamRun) (teamRun, bool) {
	for _, r := range runs {
		if r.setup == teamBolt {
			return r, true
		}
	}
	return teamRun{}, false
}

// printTeam prints the team rows: the drains and heartbeats with their
// rates against the bbolt instance's, then the wake-ups.
func (r *report) printTeam(w io.Writer) {
	t := r.team
	if t == nil || t.skipped != "" {
		return
	}
	fmt.Fprintf(w, "\nTeam mode over loopback HTTP, instances in this process, the store on %s\n(a server started for the run: internal/pgtest, a Unix socket), beside one instance on bbolt:\n", t.server)
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "load\tstore\tconc\ttime\tcalls/s\tclaims/s\tcompletes/s\tp50\tp99\tvs bbolt\t\n")
	row := func(load string, tr teamRun, base teamRun, hasBase bool, perInstance int) {
		c := tr.res.cell
		claims, completes, vs := "-", "-", "-"
		if tr.res.kind == wfDrain {
			claims, completes = fmt.Sprintf("%.0f", tr.res.claimRate()), fmt.Sprintf("%.0f", tr.res.completeRate())
			if hasBase {
				vs = fmt.Sprintf("claims %.2f×", tr.res.claimRate()/base.res.claimRate())
			}
		} else if hasBase {
			vs = fmt.Sprintf("calls %.2f×", c.rate()/base.res.cell.rate())
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t\n",
			load, teamLabel(tr.setup, perInstance), c.conc, fmtDur(c.elapsed), c.rate(), claims, completes, fmtDur(c.p50), fmtDur(c.p99), vs)
	}
	base, ok := baseRun(t.drains)
	for _, d := range t.drains {
		row(fmt.Sprintf("drain %s packets", thousands(t.packets)), d, base, ok, t.agents)
	}
	base, ok = baseRun(t.beats)
	for _, b := range t.beats {
		row("session_report heartbeat", b, base, ok, b.res.cell.conc)
	}
	tw.Flush()
	writeTrimmed(w, buf.String())

	var wbase wakeRun
	for _, wk := range t.wakes {
		if wk.setup == teamBolt {
			wbase = wk
		}
	}
	buf.Reset()
	tw = tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "wake-up\tstore\trounds\tp50\tp99\tmax\tp50 vs bbolt\t\n")
	for _, wk := range t.wakes {
		vs := "-"
		if len(wbase.lat) > 0 && wk.setup != teamBolt {
			vs = fmt.Sprintf("%.2f×", ratio(percentile(wbase.lat, 0.5).Seconds(), percentile(wk.lat, 0.5).Seconds()))
		}
		what := "created on the same instance"
		if wk.across {
			what = "created on the other instance"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n", what, teamLabel(wk.setup, 0), len(wk.lat),
			fmtDur(percentile(wk.lat, 0.5)), fmtDur(percentile(wk.lat, 0.99)), fmtDur(wk.lat[len(wk.lat)-1]), vs)
	}
	tw.Flush()
	writeTrimmed(w, buf.String())
	fmt.Fprintf(w, `drain: the workflow rows' loop on a queue made on the first instance; with two instances the
agents are split over both, each with its session on its own. "2 databases" is the control: two
instances on the same server sharing nothing, each with half the packets in a database of its own,
which no way of sharing one database can beat. heartbeat: clients alternate between
the instances. wake-up: an agent's work_await_packet long-polls on the last instance; %s later a
packet is created on the first (work.create through its registry), timed from the creation's
return to the agent's answer (under 100 rounds, p99 is the slowest). Each instance: its own store
handle, registry and HTTP server, and on PostgreSQL its own instance id, a heartbeat and a LISTEN
for the others' signals. The PostgreSQL server's CPU is not this process's: no column counts it.
`, wakeSettle)
}

// teamRows are the team figures as JSON rows, each PostgreSQL figure
// against the bbolt instance's.
func (r *report) teamRows() []jsonRow {
	t := r.team
	if t == nil {
		return nil
	}
	if t.skipped != "" {
		return []jsonRow{jsonRow{Name: fmt.Sprintf("team_drain/%s/c%d/claims_per_sec", teamPG2, t.agents), printOnly: true, display: t.skipped}.
			labelled(groupTeam, "team: claims on PostgreSQL, one and two instances", "")}
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	var out []jsonRow
	runs := func(runs []teamRun, prefix, key, unit, what string, value func(wfResult) float64) {
		base, hasBase := baseRun(runs)
		for _, tr := range runs {
			c := tr.res.cell
			name := fmt.Sprintf("%s/%s/c%d/%s", prefix, tr.setup, c.conc, key)
			label := fmt.Sprintf("team: %s, %s", what, teamLabel(tr.setup, c.conc))
			if tr.setup == teamBolt || !hasBase {
				out = append(out, newRow(name, unit, value(tr.res), true, "", 0).labelled(groupTeam, label, ""))
				continue
			}
			bname := fmt.Sprintf("%s/%s/c%d/%s", prefix, teamBolt, base.res.cell.conc, key)
			out = append(out, newRow(name, unit, value(tr.res), true, bname, value(base.res)).labelled(groupTeam, label, "1 bbolt instance"))
		}
	}
	runs(t.drains, "team_drain", "claims_per_sec", "claims/s",
		fmt.Sprintf("claims, %d agents draining %s packets", t.agents, thousands(t.packets)), wfResult.claimRate)
	runs(t.beats, "team_heartbeat", "calls_per_sec", "calls/s", "session_report heartbeats over HTTP",
		func(w wfResult) float64 { return w.cell.rate() })
	// The detail of each run, without a summary line.
	for _, set := range [][]teamRun{t.drains, t.beats} {
		for _, tr := range set {
			c := tr.res.cell
			prefix := fmt.Sprintf("team_drain/%s/c%d/", tr.setup, c.conc)
			if tr.res.kind != wfDrain {
				prefix = fmt.Sprintf("team_heartbeat/%s/c%d/", tr.setup, c.conc)
			} else {
				out = append(out, newRow(prefix+"completes_per_sec", "completes/s", tr.res.completeRate(), true, "", 0))
			}
			out = append(out,
				newRow(prefix+"p50", "µs", us(c.p50), false, "", 0),
				newRow(prefix+"p99", "µs", us(c.p99), false, "", 0))
		}
	}

	var wbase *wakeRun
	for i, wk := range t.wakes {
		if wk.setup == teamBolt {
			wbase = &t.wakes[i]
		}
	}
	for _, wk := range t.wakes {
		where := "same"
		if wk.across {
			where = "across"
		}
		for _, p := range []struct {
			key string
			q   float64
		}{{"p50", 0.50}, {"p99", 0.99}} {
			name := fmt.Sprintf("team_wakeup/%s/%s/%s", wk.setup, where, p.key)
			label := fmt.Sprintf("team: wake-up %s, work created on the same instance, %s (%d rounds)", p.key, teamLabel(wk.setup, 0), len(wk.lat))
			if wk.across {
				label = fmt.Sprintf("team: wake-up %s, work created on the other instance, %s (%d rounds)", p.key, teamLabel(wk.setup, 0), len(wk.lat))
			}
			if wbase == nil || wk.setup == teamBolt {
				out = append(out, newRow(name, "µs", us(percentile(wk.lat, p.q)), false, "", 0).labelled(groupTeam, label, ""))
				continue
			}
			bname := fmt.Sprintf("team_wakeup/%s/same/%s", teamBolt, p.key)
			out = append(out, newRow(name, "µs", us(percentile(wk.lat, p.q)), false, bname, us(percentile(wbase.lat, p.q))).
				labelled(groupTeam, label, "1 bbolt instance, same instance"))
		}
	}
	return out
}
