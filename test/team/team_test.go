package team

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/pgtest"
	"github.com/switchboard-dev/switchboard/store"
)

// addRepo registers one repository on every instance, by the same name
// with each its own folder, and returns its id (the same on all).
func addRepo(t *testing.T, ins ...*instance) string {
	t.Helper()
	id := ""
	for _, in := range ins {
		dir := filepath.Join(in.home, "app")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, l := range strings.Fields(in.cli("repo", "add", dir, "--name", "app")) {
			if strings.HasPrefix(l, "repo_") {
				got = l
			}
		}
		if got == "" || id != "" && got != id {
			t.Fatalf("repo add on %s gave %q; want one id for all (%q)", in.name, got, id)
		}
		id = got
	}
	return id
}

// startSupervised starts a supervised agent (the shell profile: /bin/sh,
// which does nothing) on in and returns its session.
func startSupervised(t *testing.T, in *instance, repo string) string {
	t.Helper()
	out := in.cli("agent", "start", "shell", "--repo", repo)
	ses, _, _ := strings.Cut(out, "\n") // the session, then lines for people
	if !strings.HasPrefix(ses, "ses_") {
		t.Fatalf("agent start on %s printed %q", in.name, out)
	}
	return ses
}

// agents runs n agents on each instance until the returned stop is called
// (which waits for them).
func agents(ctx context.Context, n int, o agentOpts, rec *recorder, ins ...*instance) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, in := range ins {
		c, id := newClient(in), in.id
		for range n {
			wg.Go(func() { runAgent(ctx, c, id, o, rec) })
		}
	}
	return func() { cancel(); wg.Wait() }
}

// doneCount is how many packets are done in the shared store.
func doneCount(v *view) (n int) {
	v.read(func(tx *store.Tx) error { n = tx.PacketCounts()[store.PacketDone]; return nil })
	return n
}

// sessionStates maps each of ids to its state in the shared store.
func sessionStates(v *view, ids []string) map[string]store.SessionState {
	out := map[string]store.SessionState{}
	v.read(func(tx *store.Tx) error {
		for _, id := range ids {
			s, err := tx.Session(id)
			if err != nil {
				return err
			}
			out[id] = s.State
		}
		return nil
	})
	return out
}

// allPackets lists every packet of repo, a page at a time (a listing
// holds 100 by default, 1000 at most).
func allPackets(tx *store.Tx, repo string) ([]store.Packet, error) {
	var all []store.Packet
	for after := ""; ; {
		page, err := tx.Packets(store.PacketFilter{RepositoryID: repo, Limit: 1000, After: after})
		if err != nil || len(page) < 1000 {
			return append(all, page...), err
		}
		all = append(all, page...)
		after = page[len(page)-1].ID
	}
}

// verifyAudit runs `switchboard audit --verify` on each instance.
func verifyAudit(t *testing.T, ins ...*instance) {
	t.Helper()
	for _, in := range ins {
		out := in.cli("audit", "--verify")
		if !strings.HasPrefix(out, "audit chain OK") {
			t.Errorf("audit --verify on %s printed %q", in.name, out)
		}
	}
}

// Two instances as two machines on one PostgreSQL database: eight agents,
// four on each one's endpoint, drain 1,000 packets created on the first.
// Each packet is completed exactly once and no lease id is handed out
// twice; every ok complete is in the shared state and the audit log, which
// verifies from both. Then the second instance is killed and started
// again: its startup ends its own supervised session of the run before as
// lost, and the first instance's stays running.
func TestTwoInstancesDrain(t *testing.T) {
	const packets = 1000
	pg := pgtest.Start(t)
	url := pg.CreateDatabase(t, "team")
	a := newInstance(t, "a", url, timing{}) // the defaults: nobody is taken for lost here
	b := newInstance(t, "b", url, timing{})
	a.start()
	b.start()
	if a.id == b.id {
		t.Fatalf("both instances have the id %s", a.id)
	}
	repo := addRepo(t, a, b)
	supA, supB := startSupervised(t, a, repo), startSupervised(t, b, repo)
	v := openView(t, url)

	ids := createPackets(t, a, repo, packets)
	rec := newRecorder()
	begin := time.Now()
	stop := agents(t.Context(), 4, agentOpts{repo: repo, leaseSeconds: 60}, rec, a, b)
	// Done in the database is not yet answered: the agents stop only once
	// each complete has its answer, or a complete whose answer is on its
	// way would be cut off and counted as not answered ok.
	waitFor(t, "1,000 packets done and answered", 2*time.Minute, func() bool { return doneCount(v) == packets && rec.answered() == packets })
	took := time.Since(begin)
	stop()
	rec.check(t)
	records := checkShared(t, v, ids, rec)
	if len(rec.acks) != packets || len(rec.leases) != packets {
		t.Errorf("%d completes answered ok and %d leases handed out; want %d of each (no fault, no retry)", len(rec.acks), len(rec.leases), packets)
	}
	per := map[string]int{}
	for _, k := range rec.acks {
		per[k.instance]++
	}
	if per[a.id] == 0 || per[b.id] == 0 {
		t.Errorf("completes by instance: %v; want both to drain", per)
	}
	verifyAudit(t, a, b)
	t.Logf("%d packets drained by 8 agents on 2 instances in %v (%.0f packets/s; %d on a, %d on b); %d audit records verified",
		packets, took.Round(time.Millisecond), packets/took.Seconds(), per[a.id], per[b.id], records)

	// B's restart ends B's session, not A's.
	b.kill()
	b.start()
	st := sessionStates(v, []string{supA, supB})
	if st[supB] != store.SessionLost || st[supA] != store.SessionRunning {
		t.Errorf("after b's restart: a's supervised session %s is %s (want running), b's %s is %s (want lost)", supA, st[supA], supB, st[supB])
	}
	verifyAudit(t, a, b)
}

// teamKills is how many times TestKillInstanceUnderLoad kills an instance:
// SWITCHBOARD_TEAM_KILLS, default 20.
func teamKills(t *testing.T) int {
	if v := os.Getenv("SWITCHBOARD_TEAM_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("SWITCHBOARD_TEAM_KILLS=%q", v)
		}
		return n
	}
	return 20
}

// One instance SIGKILLed again and again under load, the other running on:
// each time the survivor takes it for lost after the grace, ends its
// sessions (its agents' and a supervised one) as lost and puts their leases
// back in the queue, where the survivor's agents take them; the killed
// instance starts again from the same data folder and its agents report
// ready to it. Leases last two minutes, so only the sweep can have given
// them back. At the end the queue drains, and every complete an agent was
// answered ok for is in the shared state and the audit log.
func TestKillInstanceUnderLoad(t *testing.T) {
	kills := teamKills(t)
	const backlog = 120 // queued packets topped up before each round
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, seed>>32))
	t.Logf("seed %d", seed)
	pg := pgtest.Start(t)
	url := pg.CreateDatabase(t, "team")
	tm := timing{heartbeat: 100 * time.Millisecond, grace: 600 * time.Millisecond}
	a := newInstance(t, "a", url, tm) // survives
	b := newInstance(t, "b", url, tm) // killed
	a.start()
	b.start()
	repo := addRepo(t, a, b)
	v := openView(t, url)
	rec := newRecorder()
	o := agentOpts{repo: repo, leaseSeconds: 120}
	stopA := agents(t.Context(), 4, o, rec, a)
	defer stopA()

	var ids []string
	begin := time.Now()
	released, lostSessions := 0, 0
	for round := range kills {
		if round > 0 {
			b.start()
		}
		var queued int
		v.read(func(tx *store.Tx) error { queued = tx.PacketCounts()[store.PacketQueued]; return nil })
		if queued < backlog {
			ids = append(ids, createPackets(t, a, repo, backlog-queued)...)
		}
		// What the agents were answered so far is of the rounds before
		// (b's agents before the kill ended, answered after the last
		// wait): the wait below counts what comes next.
		for len(rec.acked) > 0 {
			<-rec.acked
		}
		for len(rec.claimed) > 0 {
			<-rec.claimed
		}
		sup := startSupervised(t, b, repo)
		stopB := agents(t.Context(), 4, o, rec, b)
		// The kill lands after a few of B's completes, in the middle
		// of its agents' calls: just after one of them was handed a
		// lease (one not completed yet: the claim may have waited in
		// rec.claimed), which the sweep must then give back. A's agents
		// drain the queue meanwhile, the whole backlog before b's are
		// ready when b starts slowly (a loaded machine: its process,
		// its token, the supervised agent's start): each half backlog
		// they complete is queued again, so b's agents always find
		// work, and only a b that serves nothing fails the wait. 30 s
		// bounds that: b's four agents need well under a second for 11
		// packets here, a few on a machine loaded by the PostgreSQL
		// suites.
		outstanding := func(k ack) bool {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			_, done := rec.acks[k.packet]
			return !done
		}
		want := 2 + rng.IntN(10)
		deadline := time.After(30 * time.Second)
		waiting := time.Now()
		onA := 0
		for got, leased := 0, false; got < want || !leased; {
			select {
			case k := <-rec.acked:
				if k.instance == b.id {
					got++
				} else if onA++; onA%(backlog/2) == 0 {
					ids = append(ids, createPackets(t, a, repo, backlog/2)...)
				}
			case k := <-rec.claimed:
				leased = got >= want && k.instance == b.id && outstanding(k)
			case <-deadline:
				counts := map[store.PacketState]int{}
				v.read(func(tx *store.Tx) error { counts = tx.PacketCounts(); return nil })
				t.Fatalf("kill %d: b's agents completed %d of %d packets and took a lease after them (%v) in 30 s; a's completed %d meanwhile (%v); the shared store holds %v",
					round+1, got, want, leased, onA, time.Since(waiting).Round(time.Millisecond), counts)
			}
		}
		killed := time.Now()
		b.kill()
		stopB()
		rec.mu.Lock()
		ours := append(slices.Clone(rec.sessions[b.id]), sup)
		rec.sessions[b.id] = nil
		rec.mu.Unlock()

		waitFor(t, "a takes b for lost", 15*time.Second, func() bool {
			var lost bool
			v.read(func(tx *store.Tx) error {
				in, _, err := tx.Instance(b.id)
				lost = in.LostAt != nil && in.LostAt.After(killed.Add(-time.Second))
				return err
			})
			return lost
		})
		// Every session b ran is lost, and holds no lease.
		for id, st := range sessionStates(v, ours) {
			if st != store.SessionLost {
				t.Errorf("kill %d: b's session %s is %s after a's sweep; want lost", round+1, id, st)
			}
		}
		v.read(func(tx *store.Tx) error {
			ps, err := allPackets(tx, repo)
			for _, p := range ps {
				if p.Lease != nil && slices.Contains(ours, p.Lease.SessionID) {
					t.Errorf("kill %d: packet %s is still leased to b's lost session %s", round+1, p.ID, p.Lease.SessionID)
				}
				for _, h := range p.History {
					if h.To == store.PacketQueued && h.From != "" && slices.Contains(ours, h.SessionID) {
						released++
					}
				}
			}
			return err
		})
		lostSessions += len(ours)
		if t.Failed() {
			t.FailNow()
		}
	}
	b.start()
	stopB := agents(t.Context(), 4, o, rec, b)
	waitFor(t, "the queue drained", 2*time.Minute, func() bool { return doneCount(v) == len(ids) })
	stopB()
	stopA()
	rec.check(t)
	records := checkShared(t, v, ids, rec)
	verifyAudit(t, a, b)
	onB := 0
	for _, k := range rec.acks {
		if k.instance == b.id {
			onB++
		}
	}
	t.Logf("%d kills survived in %v: %d ok completes checked against the shared state and the audit log (%d on the killed instance), "+
		"%d packets, %d leases handed out, each once; %d sessions of the killed instance ended as lost by the survivor, %d of their leases put back; %d audit records verified",
		kills, time.Since(begin).Round(100*time.Millisecond), len(rec.acks), onB, len(ids), len(rec.leases), lostSessions, released, records)
}

// The database stopped for ten seconds under load and started again: the
// instances keep running (no restart), every call in the gap is answered
// store_unavailable as HTTP 503, the load completes once the server is
// back, nothing acknowledged is lost, neither instance takes the other
// for lost (both were silent through no fault of their own), and the
// instances hear each other's signals again (the LISTEN connection came
// back by itself).
func TestDatabaseStopUnderLoad(t *testing.T) {
	const (
		packets = 600
		gap     = 10 * time.Second
	)
	pg := pgtest.Start(t)
	url := pg.CreateDatabase(t, "team")
	// A grace far below the gap: were the sweep to count the gap as
	// silence, each would end the other's sessions.
	tm := timing{heartbeat: 200 * time.Millisecond, grace: time.Second}
	a := newInstance(t, "a", url, tm)
	b := newInstance(t, "b", url, tm)
	a.start()
	b.start()
	repo := addRepo(t, a, b)
	v := openView(t, url)
	ids := createPackets(t, a, repo, packets)
	rec := newRecorder()
	// Short leases: a claim whose answer the gap cut off is given back
	// by expiry once the server is back.
	stop := agents(t.Context(), 4, agentOpts{repo: repo, leaseSeconds: 5, retryUnavailable: true}, rec, a, b)
	defer stop()
	for got := 0; got < packets/4; got++ {
		select {
		case <-rec.acked:
		case <-time.After(30 * time.Second):
			t.Fatalf("only %d packets completed in 30 s", got)
		}
	}
	rec.mu.Lock()
	before := rec.unavailable
	rec.mu.Unlock()
	stopped := time.Now()
	pg.Stop()
	// The gap is the scenario itself: ten seconds of no database.
	select {
	case <-time.After(gap):
	case <-t.Context().Done():
	}
	rec.mu.Lock()
	during := rec.unavailable - before
	rec.mu.Unlock()
	pg.Start()
	back := time.Now()
	waitFor(t, "the load completes", 2*time.Minute, func() bool { return doneCount(v) == packets })
	drained := time.Since(back)
	stop()
	rec.check(t)
	records := checkShared(t, v, ids, rec)
	if during == 0 {
		t.Errorf("no store_unavailable answer in the %v gap", gap)
	}
	if rec.slowest > 3*time.Second {
		t.Errorf("a store_unavailable answer took %v; want calls to fail within a few seconds", rec.slowest)
	}
	for _, in := range []*instance{a, b} {
		select {
		case <-in.proc.done:
			t.Errorf("%s exited: %v", in.name, in.proc.err)
		default:
		}
	}
	rec.mu.Lock()
	all := append(slices.Clone(rec.sessions[a.id]), rec.sessions[b.id]...)
	rec.mu.Unlock()
	for id, st := range sessionStates(v, all) {
		if st != store.SessionRunning {
			t.Errorf("session %s is %s after the database came back; want running (no instance is lost)", id, st)
		}
	}

	// An agent waiting on b wakes when a creates work: b listens again.
	cb := newClient(b)
	ready, err := cb.call(t.Context(), "session_report", map[string]any{"kind": "ready", "repository_id": repo})
	if err != nil || !ready.ok {
		t.Fatalf("session_report on b: %+v %v", ready, err)
	}
	var r struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(ready.result, &r); err != nil || r.SessionID == "" {
		t.Fatalf("session_report on b: %s %v", ready.result, err)
	}
	sid := r.SessionID
	woke := make(chan answer, 1)
	go func() {
		an, _ := cb.call(t.Context(), "work_await_packet", map[string]any{"repository_id": repo, "session_id": sid, "wait_seconds": 30})
		woke <- an
	}()
	// The poll parks before the packet exists, or it finds it at once:
	// either way it must not wait out its 30 s.
	created := time.Now()
	ids = append(ids, createPackets(t, a, repo, 1)...)
	select {
	case an := <-woke:
		if !an.ok || !strings.Contains(string(an.result), ids[len(ids)-1]) {
			t.Errorf("the poll on b answered %+v; want the packet made on a", an)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("an agent waiting on b did not hear of the packet made on a within 10 s: b's LISTEN did not come back")
	}
	wake := time.Since(created)
	verifyAudit(t, a, b)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	t.Logf("database stopped %v under load (stopped at %s): %d store_unavailable answers (HTTP 503) in the gap, %d in all; the load completed %v after the server was back; "+
		"the slowest took %v; %d ok completes checked, %d completes retried and found done or expired; %d audit records verified; wake-up across instances afterwards %v",
		gap, stopped.Format(time.TimeOnly), during, rec.unavailable, drained.Round(time.Millisecond), rec.slowest.Round(time.Millisecond), len(rec.acks), rec.maybe, records, wake.Round(time.Millisecond))
}
