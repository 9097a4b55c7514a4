package store

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestClaimOrder(t *testing.T) {
	w := newWorkEnv(t)
	other := w.addRepo(t.TempDir())
	// Created in this order, one second apart; claimed highest priority
	// first, then oldest.
	prios := []int{0, 5, 5, -3, 10, 0, math.MinInt, math.MaxInt, -1}
	ids := make([]string, len(prios))
	for i, pr := range prios {
		ids[i] = w.create(PacketSpec{Title: fmt.Sprint("p", i), Priority: pr}).ID
		w.create(PacketSpec{RepositoryID: other.ID, Priority: math.MaxInt}) // never ours
		w.clock.Add(time.Second)
	}
	want := []string{ids[7], ids[4], ids[1], ids[2], ids[0], ids[5], ids[8], ids[3], ids[6]}

	// Releasing the first claim puts it back with its age: it comes first
	// again rather than behind the packets of its priority.
	first := w.claim("ses_1")
	if first.ID != want[0] {
		t.Fatalf("first claim %s (priority %d), want %s", first.ID, first.Priority, want[0])
	}
	if _, err := w.release(first, "not now"); err != nil {
		t.Fatal(err)
	}
	for i, id := range want {
		p := w.claim(fmt.Sprint("ses_", i))
		if p.ID != id {
			t.Errorf("claim %d: %s (priority %d, seq %d), want %s", i, p.ID, p.Priority, p.Seq, id)
		}
		wantAttempt := 1
		if i == 0 {
			wantAttempt = 2 // claimed, released, claimed again
		}
		if p.Attempt != wantAttempt {
			t.Errorf("claim %d: attempt %d, want %d", i, p.Attempt, wantAttempt)
		}
	}
	if p, ok, err := w.claimFrom(w.repo.ID, "ses_x", time.Minute); ok || err != nil {
		t.Errorf("claim from empty queue = %+v, %v, %v", p, ok, err)
	}

	for _, c := range []struct {
		repo, session string
		d             time.Duration
		code          Code
	}{
		{"repo_unknown", "ses_x", time.Minute, CodeRepoNotRegistered},
		{"", "ses_x", time.Minute, CodeRepoNotRegistered},
		{other.ID, "", time.Minute, CodeInvalidArgument},
		{other.ID, "ses\x00x", time.Minute, CodeInvalidArgument},
		{other.ID, "ses_x", 0, CodeInvalidArgument},
		{other.ID, "ses_x", -time.Second, CodeInvalidArgument},
		{other.ID, "ses_x", MaxLease + 1, CodeInvalidArgument},
	} {
		_, ok, err := w.claimFrom(c.repo, c.session, c.d)
		wantWorkCode(t, err, c.code, fmt.Sprintf("ClaimPacket(%q, %q, %s)", c.repo, c.session, c.d))
		if ok {
			t.Errorf("ClaimPacket(%q, %q, %s) handed out a packet", c.repo, c.session, c.d)
		}
	}
	if _, ok, err := w.claimFrom(other.ID, "ses_x", MaxLease); !ok || err != nil {
		t.Errorf("claim with MaxLease = %v, %v", ok, err)
	}
}

// Every claim gets a new lease id, and every call naming an old one, another
// session or no lease at all is lease_lost.
func TestLeaseFencing(t *testing.T) {
	w := newWorkEnv(t)
	p := w.create(PacketSpec{WriteScope: []string{"**"}, ExpectedArtifacts: []ExpectedArtifact{{Name: "a"}}})
	first := w.claim("ses_a")
	if _, err := w.release(first, "handing back"); err != nil {
		t.Fatal(err)
	}
	second := w.claim("ses_a")
	if second.Lease.ID == first.Lease.ID {
		t.Fatal("second claim reused the lease id")
	}
	if second.Attempt != 2 {
		t.Errorf("attempt %d after release and claim, want 2", second.Attempt)
	}
	type call struct {
		name string
		fn   func(tx *Tx, id, session, lease string) error
	}
	calls := []call{
		{"ack", func(tx *Tx, id, s, l string) error { _, err := tx.AckPacket(id, s, l, time.Minute); return err }},
		{"publish", func(tx *Tx, id, s, l string) error {
			_, err := tx.PublishArtifact(id, s, l, ArtifactSpec{Name: "a", Content: workStr("x")}, nil)
			return err
		}},
		{"complete", func(tx *Tx, id, s, l string) error {
			_, err := tx.CompletePacket(id, &Session{ID: s}, l, Completion{})
			return err
		}},
		{"release", func(tx *Tx, id, s, l string) error { _, err := tx.ReleasePacket(id, s, l, ""); return err }},
	}
	cases := []struct {
		name, id, session, lease string
		code                     Code
	}{
		{"old lease", p.ID, "ses_a", first.Lease.ID, CodeLeaseLost},
		{"other session", p.ID, "ses_b", second.Lease.ID, CodeLeaseLost},
		{"no lease id", p.ID, "ses_a", "", CodeLeaseLost},
		{"made-up lease", p.ID, "ses_a", "lse_00000000000000000000", CodeLeaseLost},
		{"unknown packet", "pkt_nope", "ses_a", second.Lease.ID, CodeNotFound},
	}
	for _, c := range calls {
		for _, k := range cases {
			err := w.do(func(tx *Tx) error { return c.fn(tx, k.id, k.session, k.lease) })
			wantWorkCode(t, err, k.code, c.name+" with "+k.name)
		}
	}
	// The live lease still works, and once the packet is done nothing does.
	if _, err := w.publish(second, ArtifactSpec{Name: "a", Content: workStr("x")}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.complete(second, ""); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		err := w.do(func(tx *Tx) error { return c.fn(tx, p.ID, "ses_a", second.Lease.ID) })
		wantWorkCode(t, err, CodeLeaseLost, c.name+" after complete")
	}
}

func TestLeaseExpiry(t *testing.T) {
	w := newWorkEnv(t)
	p := w.create(PacketSpec{MaxAttempts: 2})
	long := w.create(PacketSpec{Priority: -1})

	c := w.claim("ses_a")
	if c.ID != p.ID {
		t.Fatalf("claimed %s", c.ID)
	}
	if l, ok, err := w.claimFrom(w.repo.ID, "ses_b", time.Hour); err != nil || !ok || l.ID != long.ID {
		t.Fatalf("claim long = %+v, %v, %v", l, ok, err)
	}
	mustView(t, w.db, func(tx *Tx) error {
		if next, ok := tx.NextLeaseExpiry(); !ok || !next.Equal(c.Lease.ExpiresAt) {
			t.Errorf("NextLeaseExpiry = %v, %v; want %v", next, ok, c.Lease.ExpiresAt)
		}
		return nil
	})

	w.clock.Add(5*time.Minute - time.Nanosecond)
	if got := w.expire(); len(got) != 0 {
		t.Errorf("expired before time: %+v", got)
	}
	w.clock.Add(time.Nanosecond) // now == ExpiresAt: expired
	if _, err := w.ack(c, time.Minute); CodeOf(err) != CodeLeaseLost {
		t.Errorf("ack at expiry = %v, want lease_lost", err)
	}
	got := w.expire()
	if len(got) != 1 || got[0].ID != p.ID || got[0].State != PacketQueued || got[0].Lease != nil || got[0].Attempt != 1 {
		t.Fatalf("ExpireLeases = %+v", got)
	}
	if r := got[0].History[len(got[0].History)-1]; r.Reason != "lease expired" || r.SessionID != "ses_a" || r.From != PacketClaimed {
		t.Errorf("expiry transition %+v", r)
	}
	if w.get(long.ID).State != PacketClaimed {
		t.Error("a lease not yet expired was touched")
	}
	if got := w.expire(); len(got) != 0 {
		t.Errorf("second ExpireLeases = %+v", got)
	}

	// The second attempt, acked, expires too: MaxAttempts is used up.
	c2 := w.claim("ses_c")
	if c2.ID != p.ID || c2.Attempt != 2 {
		t.Fatalf("re-claim %+v", c2)
	}
	if _, err := w.ack(c2, time.Minute); err != nil {
		t.Fatal(err)
	}
	w.clock.Add(time.Hour)
	got = w.expire()
	if len(got) != 2 || got[0].ID != p.ID || got[1].ID != long.ID {
		t.Fatalf("ExpireLeases = %+v, want both, earliest first", got)
	}
	if got[0].State != PacketFailed || got[0].Attempt != 2 || got[1].State != PacketQueued || got[1].Attempt != 1 {
		t.Errorf("after expiry: %s attempt %d, %s attempt %d", got[0].State, got[0].Attempt, got[1].State, got[1].Attempt)
	}
	mustView(t, w.db, func(tx *Tx) error {
		if next, ok := tx.NextLeaseExpiry(); ok {
			t.Errorf("NextLeaseExpiry = %v with no lease", next)
		}
		return nil
	})
	if _, err := w.complete(c2, ""); CodeOf(err) != CodeLeaseLost {
		t.Errorf("complete on failed packet = %v", err)
	}
}

func TestAckRenews(t *testing.T) {
	w := newWorkEnv(t)
	w.create(PacketSpec{})
	c, _, err := w.claimFrom(w.repo.ID, "ses_a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var last Packet
	for i := range 5 {
		w.clock.Add(50 * time.Second) // past the first expiry by the second round
		a, err := w.ack(c, time.Minute)
		if err != nil {
			t.Fatalf("ack %d: %v", i, err)
		}
		if a.State != PacketInProgress || a.Lease.ID != c.Lease.ID || !a.Lease.ExpiresAt.Equal(w.clock.Now().Add(time.Minute)) ||
			!a.Lease.ClaimedAt.Equal(c.Lease.ClaimedAt) {
			t.Errorf("ack %d: %+v lease %+v", i, a, *a.Lease)
		}
		if got := w.expire(); len(got) != 0 {
			t.Errorf("ack %d: a renewed lease expired", i)
		}
		last = a
	}
	// Renewals are not transitions: queued, claimed, in_progress.
	if len(last.History) != 3 {
		t.Errorf("history %v", historyStates(last))
	}
	if _, err := w.publish(c, ArtifactSpec{Name: "x", Content: workStr("ok")}); err != nil {
		t.Errorf("publish on a renewed lease: %v", err)
	}
	w.clock.Add(time.Minute)
	if _, err := w.ack(c, time.Minute); CodeOf(err) != CodeLeaseLost {
		t.Errorf("ack after expiry = %v", err)
	}
	for _, d := range []time.Duration{0, -1, MaxLease + 1} {
		_, err := w.ack(c, d)
		wantWorkCode(t, err, CodeInvalidArgument, fmt.Sprint("ack for ", d))
	}
}

func TestCompleteNeedsArtifacts(t *testing.T) {
	w := newWorkEnv(t)
	w.create(PacketSpec{ExpectedArtifacts: []ExpectedArtifact{{Name: "a"}, {Name: "b"}, {Name: "c"}}})
	c := w.claim("ses_a")
	if _, err := w.complete(c, ""); CodeOf(err) != CodeArtifactsMissing || !strings.Contains(err.Error(), "a, b, c") {
		t.Errorf("complete with none = %v", err)
	}
	first, err := w.publish(c, ArtifactSpec{Name: "b", Kind: "text", Content: workStr("one")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.complete(c, "")
	if CodeOf(err) != CodeArtifactsMissing || !strings.HasSuffix(err.Error(), "needs a, c") {
		t.Errorf("complete with b = %v", err)
	}
	// Publishing a name again replaces the artifact.
	w.clock.Add(time.Second)
	second, err := w.publish(c, ArtifactSpec{Name: "b", Content: workStr("two")})
	if err != nil {
		t.Fatal(err)
	}
	if second.ID == first.ID {
		t.Error("republish kept the artifact id")
	}
	arts := w.artifacts(c.ID)
	if len(arts) != 1 || arts[0].ID != second.ID || *arts[0].Content != "two" || arts[0].Kind != "" || !arts[0].CreatedAt.Equal(w.clock.Now()) {
		t.Errorf("after republish: %+v", arts)
	}
	for _, n := range []string{"a", "c", "extra"} {
		if _, err := w.publish(c, ArtifactSpec{Name: n, Content: workStr(n)}); err != nil {
			t.Fatal(err)
		}
	}
	done, err := w.complete(c, "")
	if err != nil || done.State != PacketDone || done.Lease != nil {
		t.Errorf("complete = %+v, %v", done, err)
	}
	if len(w.artifacts(c.ID)) != 4 {
		t.Errorf("artifacts %+v", w.artifacts(c.ID))
	}
	// A packet expecting nothing completes at once.
	w.create(PacketSpec{})
	if _, err := w.complete(w.claim("ses_b"), ""); err != nil {
		t.Errorf("complete with nothing expected: %v", err)
	}
}

func TestReleaseSessionLeases(t *testing.T) {
	w := newWorkEnv(t)
	other := w.addRepo(t.TempDir())
	for range 3 {
		w.create(PacketSpec{})
	}
	w.create(PacketSpec{RepositoryID: other.ID})
	a1 := w.claim("ses_a")
	a2 := w.claim("ses_a")
	if _, err := w.ack(a2, time.Minute); err != nil {
		t.Fatal(err)
	}
	a3, _, err := w.claimFrom(other.ID, "ses_a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// "ses_a" is a prefix of "ses_ab": the index must not confuse them.
	b := w.claim("ses_ab")

	var got []Packet
	if err := w.do(func(tx *Tx) error {
		got, err = tx.ReleaseSessionLeases("ses_a", "session exited")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range got {
		ids = append(ids, p.ID)
		if p.State != PacketQueued || p.Lease != nil || p.Attempt != 1 || p.History[len(p.History)-1].Reason != "session exited" {
			t.Errorf("released %+v", p)
		}
	}
	slices.Sort(ids)
	want := []string{a1.ID, a2.ID, a3.ID}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("released %v, want %v", ids, want)
	}
	if w.get(b.ID).State != PacketClaimed {
		t.Error("another session's lease was released")
	}
	if err := w.do(func(tx *Tx) error {
		got, err = tx.ReleaseSessionLeases("ses_a", "")
		return err
	}); err != nil || len(got) != 0 {
		t.Errorf("second release = %+v, %v", got, err)
	}
	if _, err := w.complete(a1, ""); CodeOf(err) != CodeLeaseLost {
		t.Errorf("complete after session release = %v", err)
	}
	err = w.do(func(tx *Tx) error { _, err := tx.ReleaseSessionLeases("", ""); return err })
	wantWorkCode(t, err, CodeInvalidArgument, "ReleaseSessionLeases(\"\")")
}

// The claim must never hand out a packet that is not queued, even when the
// index says otherwise: it reports the broken index instead.
func TestClaimRefusesStaleQueueEntry(t *testing.T) {
	w := newWorkEnv(t)
	p := w.create(PacketSpec{})
	c := w.claim("ses_a")
	err := w.db.Update(context.Background(), func(tx *Tx) error {
		if err := tx.tx.Bucket(bucketPacketQueue).Put(queueKey(p.RepositoryID, p.Priority, p.Seq), []byte(p.ID)); err != nil {
			return err
		}
		_, ok, err := tx.ClaimPacket(w.repo.ID, "ses_b", time.Minute)
		if ok {
			t.Error("claimed a packet that is not queued")
		}
		return err
	})
	if err == nil || CodeOf(err) != CodeInternal {
		t.Errorf("claim through a stale entry = %v, want an internal error", err)
	}
	if got := w.get(p.ID); got.Lease == nil || got.Lease.ID != c.Lease.ID {
		t.Errorf("packet changed: %+v", got)
	}
	mustView(t, w.db, func(tx *Tx) error { checkWorkIndexes(t, tx); return nil })
}

// Eight claimers, each claim its own Update, drain a queue of 500: every
// packet is claimed exactly once and no lease id is handed out twice.
func TestClaimConcurrent(t *testing.T) {
	const packets, claimers = 500, 8
	w := newWorkEnv(t)
	mustUpdate(t, w.db, func(tx *Tx) error {
		for i := range packets {
			if _, err := tx.CreatePacket(PacketSpec{RepositoryID: w.repo.ID, Title: fmt.Sprint("p", i), Priority: i % 7}); err != nil {
				return err
			}
		}
		return nil
	})
	type claim struct{ pkt, lease, session string }
	results := make([][]claim, claimers)
	var wg sync.WaitGroup
	for g := range claimers {
		session := fmt.Sprint("ses_", g)
		wg.Go(func() {
			for n := 0; ; n++ {
				var p Packet
				var ok bool
				err := w.db.Update(context.Background(), func(tx *Tx) error {
					var err error
					if p, ok, err = tx.ClaimPacket(w.repo.ID, session, time.Minute); err != nil {
						return err
					}
					// Every tenth claim of each claimer: checking all 500
					// packets after each of 500 claims costs half a minute
					// under -race and adds nothing the other tests miss.
					if n%10 == 0 {
						checkWorkIndexes(t, tx)
					}
					return nil
				})
				if err != nil {
					t.Errorf("%s: claim: %v", session, err)
					return
				}
				if !ok {
					return
				}
				results[g] = append(results[g], claim{p.ID, p.Lease.ID, session})
			}
		})
	}
	wg.Wait()
	byPacket := map[string]claim{}
	leases := map[string]bool{}
	for _, rs := range results {
		for _, c := range rs {
			if prev, dup := byPacket[c.pkt]; dup {
				t.Errorf("packet %s claimed by %s and %s", c.pkt, prev.session, c.session)
			}
			byPacket[c.pkt] = c
			if leases[c.lease] {
				t.Errorf("lease %s handed out twice", c.lease)
			}
			leases[c.lease] = true
		}
	}
	if len(byPacket) != packets {
		t.Errorf("%d packets claimed, want %d", len(byPacket), packets)
	}
	mustView(t, w.db, func(tx *Tx) error {
		checkWorkIndexes(t, tx)
		if c := tx.PacketCounts(); c[PacketClaimed] != packets || c[PacketQueued] != 0 {
			t.Errorf("PacketCounts = %v", c)
		}
		for _, c := range byPacket {
			p, err := tx.Packet(c.pkt)
			if err != nil || p.Lease == nil || p.Lease.ID != c.lease || p.Lease.SessionID != c.session || p.Attempt != 1 {
				t.Errorf("packet %s: %+v, %v; claimed with %+v", c.pkt, p, err, c)
			}
		}
		return nil
	})
}
