package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// checkWorkIndexes holds every work index to the packets it is derived
// from: the queue has exactly the queued packets under their keys, the
// expiry and session indexes exactly the leases, the order index every
// packet, the counters the number of packets in each state. It also checks
// the invariants of each packet and that artifacts belong to packets.
func checkWorkIndexes(t testing.TB, tx *Tx) {
	t.Helper()
	want := map[string]map[string]string{
		"packet_queue": {}, "packet_order": {}, "lease_expiry": {}, "leases_by_session": {},
	}
	counts := map[PacketState]int{}
	leaseIDs := map[string]string{}
	var earliest time.Time
	seqs := map[uint64]string{}
	err := tx.tx.Bucket(bucketPackets).ForEach(func(k, v []byte) error {
		var p Packet
		if err := json.Unmarshal(v, &p); err != nil {
			t.Errorf("packet %s: %v", k, err)
			return nil
		}
		switch {
		case string(k) != p.ID:
			t.Errorf("packet under key %s has id %s", k, p.ID)
		case !p.State.Valid():
			t.Errorf("packet %s: state %q", p.ID, p.State)
		case p.State.leased() != (p.Lease != nil):
			t.Errorf("packet %s: state %s with lease %+v", p.ID, p.State, p.Lease)
		case p.Attempt < 0 || p.MaxAttempts < 1:
			t.Errorf("packet %s: attempt %d of %d", p.ID, p.Attempt, p.MaxAttempts)
		case len(p.History) == 0 || len(p.History) > maxPacketHistory:
			t.Errorf("packet %s: %d history entries", p.ID, len(p.History))
		case p.History[len(p.History)-1].To != p.State:
			t.Errorf("packet %s: state %s, last transition to %s", p.ID, p.State, p.History[len(p.History)-1].To)
		case p.UpdatedAt.Before(p.CreatedAt):
			t.Errorf("packet %s: updated %v before created %v", p.ID, p.UpdatedAt, p.CreatedAt)
		}
		if other, dup := seqs[p.Seq]; dup {
			t.Errorf("packets %s and %s share seq %d", p.ID, other, p.Seq)
		}
		seqs[p.Seq] = p.ID
		counts[p.State]++
		want["packet_order"][string(u64(p.Seq))] = p.ID
		if p.State == PacketQueued {
			want["packet_queue"][string(queueKey(p.RepositoryID, p.Priority, p.Seq))] = p.ID
		}
		if l := p.Lease; l != nil {
			if !strings.HasPrefix(l.ID, "lse_") || l.SessionID == "" || !l.ExpiresAt.After(l.ClaimedAt) {
				t.Errorf("packet %s: lease %+v", p.ID, *l)
			}
			if other, dup := leaseIDs[l.ID]; dup {
				t.Errorf("packets %s and %s share lease %s", p.ID, other, l.ID)
			}
			leaseIDs[l.ID] = p.ID
			want["lease_expiry"][string(expiryKey(l.ExpiresAt, p.ID))] = l.ID
			want["leases_by_session"][string(leaseBySessionKey(l.SessionID, p.ID))] = l.ID
			if earliest.IsZero() || l.ExpiresAt.Before(earliest) {
				earliest = l.ExpiresAt
			}
		}
		return nil
	})
	if err != nil {
		t.Errorf("walk packets: %v", err)
	}
	for name, entries := range want {
		got := workBucketContents(t, tx, name)
		for k, v := range entries {
			if g, ok := got[k]; !ok {
				t.Errorf("%s: missing entry %x -> %s", name, k, v)
			} else if g != v {
				t.Errorf("%s: entry %x -> %s, want %s", name, k, g, v)
			}
		}
		for k, v := range got {
			if _, ok := entries[k]; !ok {
				t.Errorf("%s: stray entry %x -> %s", name, k, v)
			}
		}
	}
	gotCounts := tx.PacketCounts()
	for _, s := range packetStates {
		if gotCounts[s] != counts[s] {
			t.Errorf("PacketCounts[%s] = %d, packets say %d", s, gotCounts[s], counts[s])
		}
	}
	for k := range workBucketContents(t, tx, "packet_counts") {
		if !PacketState(k).Valid() {
			t.Errorf("packet_counts: stray key %q", k)
		}
	}
	next, ok := tx.NextLeaseExpiry()
	if ok != !earliest.IsZero() || !next.Equal(earliest) {
		t.Errorf("NextLeaseExpiry = %v, %v; leases say %v", next, ok, earliest)
	}
	for k, v := range workBucketContents(t, tx, "artifacts") {
		var a Artifact
		if err := json.Unmarshal([]byte(v), &a); err != nil {
			t.Errorf("artifact %q: %v", k, err)
			continue
		}
		if k != string(artifactKey(a.PacketID, a.Name)) {
			t.Errorf("artifact %s under key %q", a.ID, k)
		}
		if tx.tx.Bucket(bucketPackets).Get([]byte(a.PacketID)) == nil {
			t.Errorf("artifact %s of missing packet %s", a.ID, a.PacketID)
		}
	}
}

func workBucketContents(t testing.TB, tx *Tx, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := tx.tx.Bucket([]byte(name)).ForEach(func(k, v []byte) error {
		out[string(k)] = string(v)
		return nil
	}); err != nil {
		t.Errorf("walk %s: %v", name, err)
	}
	return out
}

// workEnv is a database with one registered repository in a real folder and
// a settable clock.
type workEnv struct {
	t     *testing.T
	db    *DB
	clock *fakeClock
	repo  Repository
}

func newWorkEnv(t *testing.T) *workEnv {
	t.Helper()
	clock := newFakeClock()
	w := &workEnv{t: t, db: openTestDB(t, Options{Now: clock.Now}), clock: clock}
	w.repo = w.addRepo(t.TempDir())
	return w
}

func (w *workEnv) addRepo(dir string) Repository {
	w.t.Helper()
	var r Repository
	mustUpdate(w.t, w.db, func(tx *Tx) error {
		var err error
		r, _, err = tx.RegisterRepository("", dir)
		return err
	})
	return r
}

// do runs fn in an Update and checks the work indexes: inside the
// transaction when fn succeeded (what it wrote), after it when fn failed
// (what the rollback left).
func (w *workEnv) do(fn func(tx *Tx) error) error {
	w.t.Helper()
	err := w.db.Update(func(tx *Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		checkWorkIndexes(w.t, tx)
		return nil
	})
	if err != nil {
		mustView(w.t, w.db, func(tx *Tx) error { checkWorkIndexes(w.t, tx); return nil })
	}
	return err
}

func (w *workEnv) pkt(fn func(tx *Tx) (Packet, error)) (Packet, error) {
	w.t.Helper()
	var p Packet
	err := w.do(func(tx *Tx) error {
		var err error
		p, err = fn(tx)
		return err
	})
	return p, err
}

func (w *workEnv) create(spec PacketSpec) Packet {
	w.t.Helper()
	if spec.RepositoryID == "" {
		spec.RepositoryID = w.repo.ID
	}
	if spec.Title == "" {
		spec.Title = "a packet"
	}
	p, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.CreatePacket(spec) })
	if err != nil {
		w.t.Fatalf("CreatePacket: %v", err)
	}
	return p
}

func (w *workEnv) claimFrom(repoID, session string, d time.Duration) (Packet, bool, error) {
	w.t.Helper()
	var p Packet
	var ok bool
	err := w.do(func(tx *Tx) error {
		var err error
		p, ok, err = tx.ClaimPacket(repoID, session, d)
		return err
	})
	return p, ok, err
}

// claim claims from the env's repository with a five-minute lease and
// fails the test when nothing comes.
func (w *workEnv) claim(session string) Packet {
	w.t.Helper()
	p, ok, err := w.claimFrom(w.repo.ID, session, 5*time.Minute)
	if err != nil || !ok {
		w.t.Fatalf("ClaimPacket(%s) = %v, %v", session, ok, err)
	}
	return p
}

func (w *workEnv) ack(p Packet, d time.Duration) (Packet, error) {
	w.t.Helper()
	return w.pkt(func(tx *Tx) (Packet, error) { return tx.AckPacket(p.ID, p.Lease.SessionID, p.Lease.ID, d) })
}

func (w *workEnv) publish(p Packet, a ArtifactSpec) (Artifact, error) {
	w.t.Helper()
	var art Artifact
	err := w.do(func(tx *Tx) error {
		var err error
		art, err = tx.PublishArtifact(p.ID, p.Lease.SessionID, p.Lease.ID, a, "")
		return err
	})
	return art, err
}

func (w *workEnv) complete(p Packet, summary string) (Packet, error) {
	w.t.Helper()
	return w.pkt(func(tx *Tx) (Packet, error) { return tx.CompletePacket(p.ID, p.Lease.SessionID, p.Lease.ID, summary) })
}

func (w *workEnv) release(p Packet, reason string) (Packet, error) {
	w.t.Helper()
	return w.pkt(func(tx *Tx) (Packet, error) { return tx.ReleasePacket(p.ID, p.Lease.SessionID, p.Lease.ID, reason) })
}

func (w *workEnv) verdict(id string, v Verdict, notes string) (Packet, error) {
	w.t.Helper()
	return w.pkt(func(tx *Tx) (Packet, error) { return tx.ReviewVerdict(id, v, notes) })
}

func (w *workEnv) expire() []Packet {
	w.t.Helper()
	var out []Packet
	if err := w.do(func(tx *Tx) error {
		var err error
		out, err = tx.ExpireLeases()
		return err
	}); err != nil {
		w.t.Fatalf("ExpireLeases: %v", err)
	}
	return out
}

func (w *workEnv) get(id string) Packet {
	w.t.Helper()
	var p Packet
	mustView(w.t, w.db, func(tx *Tx) error {
		var err error
		p, err = tx.Packet(id)
		return err
	})
	return p
}

func (w *workEnv) artifacts(id string) []Artifact {
	w.t.Helper()
	var out []Artifact
	mustView(w.t, w.db, func(tx *Tx) error {
		var err error
		out, err = tx.Artifacts(id)
		return err
	})
	return out
}

func wantWorkCode(t *testing.T, err error, code Code, what string) {
	t.Helper()
	if got := CodeOf(err); got != code {
		t.Errorf("%s: code %q (%v), want %q", what, got, err, code)
	}
}

func workStr(s string) *string { return &s }

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func writeRepoFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func historyStates(p Packet) []PacketState {
	var out []PacketState
	for _, h := range p.History {
		out = append(out, h.To)
	}
	return out
}

func TestWorkBucketsExist(t *testing.T) {
	db := openTestDB(t, Options{})
	mustView(t, db, func(tx *Tx) error {
		for _, name := range workBuckets {
			if tx.tx.Bucket(name) == nil {
				t.Errorf("bucket %s missing after Open", name)
			}
		}
		checkWorkIndexes(t, tx)
		return nil
	})
}

func TestWorkHappyPath(t *testing.T) {
	w := newWorkEnv(t)
	created := w.clock.Now()
	p := w.create(PacketSpec{
		Title:             "  Fix the parser  ",
		Instructions:      "Make the parser accept trailing commas.",
		ExpectedArtifacts: []ExpectedArtifact{{Name: "summary", Kind: "markdown"}, {Name: "patch", Kind: "diff"}},
		WriteScope:        []string{"./out//", "docs//*.md"},
		Priority:          2,
		ReviewRequired:    true,
	})
	if !regexp.MustCompile(`^pkt_[0-9a-f]{20}$`).MatchString(p.ID) {
		t.Errorf("packet id %q", p.ID)
	}
	if p.Title != "Fix the parser" || p.State != PacketQueued || p.Attempt != 0 || p.MaxAttempts != DefaultMaxAttempts ||
		p.Lease != nil || !p.CreatedAt.Equal(created) || !p.UpdatedAt.Equal(created) || p.RepositoryID != w.repo.ID {
		t.Errorf("created packet %+v", p)
	}
	if !slices.Equal(p.WriteScope, []string{"out/**", "docs/*.md"}) {
		t.Errorf("write scope %q, want cleaned", p.WriteScope)
	}

	w.clock.Add(time.Second)
	c := w.claim("ses_a")
	if c.ID != p.ID || c.State != PacketClaimed || c.Attempt != 1 || c.Lease == nil {
		t.Fatalf("claimed %+v", c)
	}
	if !regexp.MustCompile(`^lse_[0-9a-f]{20}$`).MatchString(c.Lease.ID) || c.Lease.SessionID != "ses_a" ||
		!c.Lease.ClaimedAt.Equal(w.clock.Now()) || !c.Lease.ExpiresAt.Equal(w.clock.Now().Add(5*time.Minute)) {
		t.Errorf("lease %+v", *c.Lease)
	}
	if _, ok, err := w.claimFrom(w.repo.ID, "ses_b", time.Minute); ok || err != nil {
		t.Errorf("second claim on a one-packet queue = %v, %v", ok, err)
	}

	w.clock.Add(time.Second)
	a, err := w.ack(c, 10*time.Minute)
	if err != nil || a.State != PacketInProgress || a.Lease.ID != c.Lease.ID || !a.Lease.ExpiresAt.Equal(w.clock.Now().Add(10*time.Minute)) {
		t.Fatalf("ack = %+v, %v", a, err)
	}

	writeRepoFile(t, filepath.Join(w.repo.Path, "out", "fix.diff"), "--- a\n+++ b\n")
	inline, err := w.publish(a, ArtifactSpec{Name: "summary", Content: workStr("# Done\n")})
	if err != nil {
		t.Fatalf("publish inline: %v", err)
	}
	if !strings.HasPrefix(inline.ID, "art_") || inline.Kind != "markdown" || inline.SHA256 != sha256Hex("# Done\n") ||
		inline.Size != 7 || inline.Path != "" || *inline.Content != "# Done\n" || inline.SessionID != "ses_a" || inline.LeaseID != c.Lease.ID {
		t.Errorf("inline artifact %+v", inline)
	}
	byPath, err := w.publish(a, ArtifactSpec{Name: "patch", Path: "out/fix.diff", SHA256: strings.ToUpper(sha256Hex("x")), Size: 12})
	if err != nil {
		t.Fatalf("publish path: %v", err)
	}
	if byPath.Path != "out/fix.diff" || byPath.SHA256 != sha256Hex("x") || byPath.Size != 12 || byPath.Content != nil || byPath.Kind != "diff" {
		t.Errorf("path artifact %+v", byPath)
	}

	w.clock.Add(time.Second)
	done, err := w.complete(a, "parser fixed")
	if err != nil || done.State != PacketInReview || done.Lease != nil || done.Summary != "parser fixed" {
		t.Fatalf("complete = %+v, %v", done, err)
	}
	if _, err := w.complete(a, "again"); CodeOf(err) != CodeLeaseLost {
		t.Errorf("complete twice: %v, want lease_lost", err)
	}

	w.clock.Add(time.Second)
	v, err := w.verdict(p.ID, VerdictApprove, "good")
	if err != nil || v.State != PacketDone || v.ReviewNotes != "good" || !v.UpdatedAt.Equal(w.clock.Now()) {
		t.Fatalf("approve = %+v, %v", v, err)
	}
	if got, want := historyStates(v), []PacketState{PacketQueued, PacketClaimed, PacketInProgress, PacketInReview, PacketDone}; !slices.Equal(got, want) {
		t.Errorf("history %v, want %v", got, want)
	}
	if h := v.History[1]; h.SessionID != "ses_a" || h.From != PacketQueued || !h.At.Equal(created.Add(time.Second)) {
		t.Errorf("claim transition %+v", h)
	}
	if got := w.get(p.ID); !got.UpdatedAt.Equal(v.UpdatedAt) || got.State != PacketDone {
		t.Errorf("Packet() = %+v", got)
	}
	arts := w.artifacts(p.ID)
	if len(arts) != 2 || arts[0].Name != "patch" || arts[1].Name != "summary" || *arts[1].Content != "# Done\n" {
		t.Errorf("Artifacts = %+v", arts)
	}
	mustView(t, w.db, func(tx *Tx) error {
		if got := tx.PacketCounts(); got[PacketDone] != 1 || got[PacketQueued] != 0 || len(got) != len(packetStates) {
			t.Errorf("PacketCounts = %v", got)
		}
		if _, err := tx.Packet("pkt_nope"); CodeOf(err) != CodeNotFound {
			t.Errorf("Packet(unknown) = %v", err)
		}
		if _, err := tx.Artifacts("pkt_nope"); CodeOf(err) != CodeNotFound {
			t.Errorf("Artifacts(unknown) = %v", err)
		}
		return nil
	})
}

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
			_, err := tx.PublishArtifact(id, s, l, ArtifactSpec{Name: "a", Content: workStr("x")}, "")
			return err
		}},
		{"complete", func(tx *Tx, id, s, l string) error { _, err := tx.CompletePacket(id, s, l, ""); return err }},
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

func TestReviewVerdicts(t *testing.T) {
	for _, c := range []struct {
		verdict Verdict
		want    PacketState
	}{
		{VerdictApprove, PacketDone},
		{VerdictRequestChanges, PacketQueued},
		{VerdictReject, PacketFailed},
	} {
		t.Run(string(c.verdict), func(t *testing.T) {
			w := newWorkEnv(t)
			p := w.create(PacketSpec{ReviewRequired: true})
			if _, err := w.verdict(p.ID, c.verdict, "n"); CodeOf(err) != CodeInvalidState {
				t.Errorf("verdict on queued packet = %v", err)
			}
			cl := w.claim("ses_a")
			if _, err := w.verdict(p.ID, c.verdict, "n"); CodeOf(err) != CodeInvalidState {
				t.Errorf("verdict on claimed packet = %v", err)
			}
			if _, err := w.complete(cl, "did it"); err != nil {
				t.Fatal(err)
			}
			if _, err := w.verdict(p.ID, "maybe", ""); CodeOf(err) != CodeInvalidArgument {
				t.Errorf("unknown verdict = %v", err)
			}
			if _, err := w.verdict("pkt_nope", c.verdict, ""); CodeOf(err) != CodeNotFound {
				t.Errorf("verdict on unknown packet = %v", err)
			}
			v, err := w.verdict(p.ID, c.verdict, "use the helper in util.go")
			if err != nil || v.State != c.want || v.ReviewNotes != "use the helper in util.go" {
				t.Fatalf("verdict = %+v, %v", v, err)
			}
			if r := v.History[len(v.History)-1]; r.Reason != string(c.verdict)+": use the helper in util.go" || r.From != PacketInReview {
				t.Errorf("verdict transition %+v", r)
			}
			if _, err := w.verdict(p.ID, c.verdict, ""); CodeOf(err) != CodeInvalidState {
				t.Errorf("second verdict = %v", err)
			}
			if c.verdict == VerdictRequestChanges {
				again := w.claim("ses_b")
				if again.ID != p.ID || again.ReviewNotes != "use the helper in util.go" || again.Attempt != 2 {
					t.Errorf("next claim after request_changes: %+v", again)
				}
			}
		})
	}
}

func TestPublishWriteScope(t *testing.T) {
	w := newWorkEnv(t)
	repo := w.repo.Path
	outside := t.TempDir()
	writeRepoFile(t, filepath.Join(outside, "secret.txt"), "secret")
	writeRepoFile(t, filepath.Join(repo, "out", "ok.txt"), "ok")
	writeRepoFile(t, filepath.Join(repo, "out", "sub", "inner.txt"), "inner")
	writeRepoFile(t, filepath.Join(repo, "src", "main.go"), "package main")
	for link, target := range map[string]string{
		"out/esc":      filepath.Join(outside, "secret.txt"), // a file outside
		"out/escdir":   outside,                              // a folder outside
		"out/dangling": filepath.Join(outside, "nothing"),    // a link to nowhere
		"out/up":       "../..",                              // relative, climbing out
		"out/inner":    filepath.Join(repo, "out", "sub"),    // inside: fine
		"out/rel":      "sub",                                // relative, inside: fine
	} {
		if err := os.Symlink(target, filepath.Join(repo, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	p := w.create(PacketSpec{WriteScope: []string{"out/**", "docs/*.md"}})
	c := w.claim("ses_a")
	h := sha256Hex("content")
	cases := []struct {
		path     string
		sha      string
		code     Code
		wantPath string
	}{
		{path: "out/ok.txt", wantPath: "out/ok.txt"},
		{path: "./out//ok.txt", wantPath: "out/ok.txt"},
		{path: "out/sub/../ok.txt", wantPath: "out/ok.txt"},
		{path: "out/new/deeper/file.txt", wantPath: "out/new/deeper/file.txt"}, // not there yet
		{path: "out/inner/inner.txt", wantPath: "out/inner/inner.txt"},
		{path: "out/inner/later.txt", wantPath: "out/inner/later.txt"},
		{path: "out/rel/inner.txt", wantPath: "out/rel/inner.txt"},
		{path: "docs/readme.md", wantPath: "docs/readme.md"},
		{path: "docs/sub/readme.md", code: CodeWriteScopeViolation}, // * stops at /
		{path: "docs/readme.txt", code: CodeWriteScopeViolation},
		{path: "src/main.go", code: CodeWriteScopeViolation},
		{path: "out/../src/main.go", code: CodeWriteScopeViolation},
		{path: "../outside.txt", code: CodeWriteScopeViolation},
		{path: "out/../../x", code: CodeWriteScopeViolation},
		{path: "..", code: CodeWriteScopeViolation},
		{path: "/etc/passwd", code: CodeWriteScopeViolation},
		{path: filepath.Join(repo, "out", "ok.txt"), code: CodeWriteScopeViolation}, // absolute, even inside
		{path: `C:\out\ok.txt`, code: CodeWriteScopeViolation},
		{path: `\out\ok.txt`, code: CodeWriteScopeViolation},
		{path: "out/esc", code: CodeWriteScopeViolation},
		{path: "out/escdir/secret.txt", code: CodeWriteScopeViolation},
		{path: "out/escdir/new/file.txt", code: CodeWriteScopeViolation},
		{path: "out/dangling", code: CodeWriteScopeViolation},
		{path: "out/dangling/x", code: CodeWriteScopeViolation},
		{path: "out/up/secret", code: CodeWriteScopeViolation},
		{path: "out/ok.txt/x", code: CodeWriteScopeViolation}, // under a file: cannot be checked
		{path: ".", code: CodeInvalidArgument},
		{path: "out/ok.txt", sha: "abc", code: CodeInvalidArgument},
		{path: "out/ok.txt", sha: strings.Repeat("g", 64), code: CodeInvalidArgument},
		{path: "out/ok.txt", sha: "-", code: CodeInvalidArgument},
		{path: "out/x\x00y", code: CodeInvalidArgument},
	}
	for _, k := range cases {
		s := h
		if k.sha != "" {
			s = k.sha
			if s == "-" {
				s = ""
			}
		}
		a, err := w.publish(c, ArtifactSpec{Name: "n", Path: k.path, SHA256: s})
		wantWorkCode(t, err, k.code, fmt.Sprintf("publish %q", k.path))
		if err == nil && a.Path != k.wantPath {
			t.Errorf("publish %q: stored path %q, want %q", k.path, a.Path, k.wantPath)
		}
		if err != nil && strings.Contains(err.Error(), outside) {
			t.Errorf("publish %q: denial names the host folder: %v", k.path, err)
		}
	}
	for _, bad := range []ArtifactSpec{
		{Name: "n", Path: "out/ok.txt", SHA256: h, Content: workStr("x")},
		{Name: "n"},
		{Name: "", Content: workStr("x")},
		{Name: "n\x00", Content: workStr("x")},
		{Name: "n", Path: "out/ok.txt", SHA256: h, Size: -1},
	} {
		_, err := w.publish(c, bad)
		wantWorkCode(t, err, CodeInvalidArgument, fmt.Sprintf("publish %+v", bad))
	}

	// A packet with no write scope takes no path at all.
	w.create(PacketSpec{Priority: -1})
	none := w.claim("ses_b")
	if _, err := w.publish(none, ArtifactSpec{Name: "n", Path: "out/ok.txt", SHA256: h}); CodeOf(err) != CodeWriteScopeViolation {
		t.Errorf("publish with no write scope = %v", err)
	}

	// The repository reached through a symbolic link: paths inside still
	// pass, the escape is still caught.
	linked := filepath.Join(t.TempDir(), "repo-link")
	if err := os.Symlink(repo, linked); err != nil {
		t.Fatal(err)
	}
	for path, code := range map[string]Code{"out/ok.txt": "", "out/esc": CodeWriteScopeViolation} {
		err := w.do(func(tx *Tx) error {
			_, err := tx.PublishArtifact(p.ID, "ses_a", c.Lease.ID, ArtifactSpec{Name: "n", Path: path, SHA256: h}, linked)
			return err
		})
		wantWorkCode(t, err, code, "publish through linked repository "+path)
	}
}

func TestWriteScopeGlobs(t *testing.T) {
	w := newWorkEnv(t)
	for _, c := range []struct {
		glob, want string
		code       Code
	}{
		{glob: "src/*.go", want: "src/*.go"},
		{glob: "./src//*.go", want: "src/*.go"},
		{glob: "src/", want: "src/**"},
		{glob: "src/**/", want: "src/**"},
		{glob: "src", want: "src"},
		{glob: "**", want: "**"},
		{glob: "**/*.md", want: "**/*.md"},
		{glob: "a/[bc]/d?", want: "a/[bc]/d?"},
		{glob: "", code: CodeInvalidArgument},
		{glob: ".", code: CodeInvalidArgument},
		{glob: "./", code: CodeInvalidArgument},
		{glob: "/abs/*", code: CodeInvalidArgument},
		{glob: `\abs`, code: CodeInvalidArgument},
		{glob: `C:\x`, code: CodeInvalidArgument},
		{glob: "c:/x", code: CodeInvalidArgument},
		{glob: "../x", code: CodeInvalidArgument},
		{glob: "a/../b", code: CodeInvalidArgument},
		{glob: "a/..", code: CodeInvalidArgument},
		{glob: "a/[", code: CodeInvalidArgument},
		{glob: "a**", code: CodeInvalidArgument},
		{glob: "a/**b/c", code: CodeInvalidArgument},
	} {
		got, err := CleanWriteScopeGlob(c.glob)
		wantWorkCode(t, err, c.code, fmt.Sprintf("CleanWriteScopeGlob(%q)", c.glob))
		if err == nil && got != c.want {
			t.Errorf("CleanWriteScopeGlob(%q) = %q, want %q", c.glob, got, c.want)
		}
		if c.code != "" {
			_, err := w.pkt(func(tx *Tx) (Packet, error) {
				return tx.CreatePacket(PacketSpec{RepositoryID: w.repo.ID, Title: "t", WriteScope: []string{"ok/*", c.glob}})
			})
			wantWorkCode(t, err, c.code, fmt.Sprintf("CreatePacket with glob %q", c.glob))
		}
	}
	for _, c := range []struct {
		globs []string
		path  string
		want  bool
	}{
		{[]string{"**"}, "a/b/c", true},
		{[]string{"**"}, "a", true},
		{[]string{"docs/**"}, "docs", true},
		{[]string{"docs/**"}, "docs/a/b.md", true},
		{[]string{"docs/**"}, "docsx/a", false},
		{[]string{"**/*.md"}, "c.md", true},
		{[]string{"**/*.md"}, "a/b/c.md", true},
		{[]string{"**/*.md"}, "a/b/c.go", false},
		{[]string{"a/**/b"}, "a/b", true},
		{[]string{"a/**/b"}, "a/x/y/b", true},
		{[]string{"a/**/b"}, "a/x/y/c", false},
		{[]string{"a/**/**/b"}, "a/b", true},
		{[]string{"a/**/b/**"}, "a/x/b/y/z", true},
		{[]string{"*.go"}, "a/b.go", false},
		{[]string{"*.go"}, "b.go", true},
		{[]string{"src/*"}, "src/a/b", false},
		{[]string{"src/*"}, "src", false},
		{[]string{"src"}, "src", true},
		{[]string{"src"}, "src/a", false},
		{[]string{"x", "src/?.go"}, "src/a.go", true},
		{nil, "a", false},
	} {
		if got := MatchWriteScope(c.globs, c.path); got != c.want {
			t.Errorf("MatchWriteScope(%q, %q) = %v, want %v", c.globs, c.path, got, c.want)
		}
	}
}

func TestPublishInlineLimit(t *testing.T) {
	w := newWorkEnv(t)
	w.create(PacketSpec{})
	c := w.claim("ses_a")
	full := strings.Repeat("x", MaxInlineArtifact)
	a, err := w.publish(c, ArtifactSpec{Name: "big", Content: &full, SHA256: sha256Hex(full)})
	if err != nil || a.Size != MaxInlineArtifact || a.SHA256 != sha256Hex(full) {
		t.Errorf("publish exactly 1 MiB = %+v, %v", a.Size, err)
	}
	if arts := w.artifacts(c.ID); len(arts) != 1 || *arts[0].Content != full {
		t.Error("1 MiB content did not round-trip")
	}
	for name, spec := range map[string]ArtifactSpec{
		"one byte over": {Name: "big", Content: workStr(full + "x")},
		"not UTF-8":     {Name: "bin", Content: workStr("\xff\xfe")},
		"wrong sha256":  {Name: "h", Content: workStr("abc"), SHA256: sha256Hex("abd")},
	} {
		_, err := w.publish(c, spec)
		wantWorkCode(t, err, CodeInvalidArgument, name)
	}
	empty, err := w.publish(c, ArtifactSpec{Name: "empty", Content: workStr("")})
	if err != nil || empty.Size != 0 || empty.SHA256 != sha256Hex("") || empty.Content == nil {
		t.Errorf("publish empty content = %+v, %v", empty, err)
	}
}

// packetIn makes a packet and brings it to state s. Claims use session
// "ses_<state>"; the packet is alone in its repository.
func (w *workEnv) packetIn(s PacketState) Packet {
	w.t.Helper()
	repo := w.addRepo(w.t.TempDir())
	p := w.create(PacketSpec{RepositoryID: repo.ID, ReviewRequired: s == PacketInReview, MaxAttempts: 1})
	if s == PacketQueued {
		return p
	}
	if s == PacketCancelled {
		p, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.CancelPacket(p.ID, "") })
		if err != nil {
			w.t.Fatal(err)
		}
		return p
	}
	p, ok, err := w.claimFrom(repo.ID, "ses_"+string(s), time.Minute)
	if err != nil || !ok {
		w.t.Fatalf("claim: %v %v", ok, err)
	}
	var err2 error
	switch s {
	case PacketClaimed:
	case PacketInProgress:
		p, err2 = w.ack(p, time.Minute)
	case PacketInReview, PacketDone:
		p, err2 = w.complete(p, "")
	case PacketFailed:
		// MaxAttempts 1: the first expiry fails it.
		lease := *p.Lease
		w.clock.Add(time.Minute)
		w.expire()
		p = w.get(p.ID)
		p.Lease = &lease // remembered so callers can try the dead lease
		w.clock.Add(-time.Minute)
	}
	if err2 != nil {
		w.t.Fatal(err2)
	}
	if got := w.get(p.ID).State; got != s {
		w.t.Fatalf("packetIn(%s) made a %s packet", s, got)
	}
	return p
}

func TestCancelAndRequeue(t *testing.T) {
	for _, s := range packetStates {
		t.Run(string(s), func(t *testing.T) {
			w := newWorkEnv(t)

			p := w.packetIn(s)
			got, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.CancelPacket(p.ID, "not needed") })
			if s.Terminal() {
				wantWorkCode(t, err, CodeInvalidState, "cancel "+string(s))
			} else if err != nil || got.State != PacketCancelled || got.Lease != nil ||
				got.History[len(got.History)-1].Reason != "not needed" {
				t.Errorf("cancel %s = %+v, %v", s, got, err)
			}
			if p.Lease != nil && err == nil {
				if _, err := w.ack(p, time.Minute); CodeOf(err) != CodeLeaseLost {
					t.Errorf("ack after cancel = %v", err)
				}
				if _, ok, _ := w.claimFrom(p.RepositoryID, "ses_x", time.Minute); ok {
					t.Error("a cancelled packet was claimed")
				}
			}

			q := w.packetIn(s)
			got, err = w.pkt(func(tx *Tx) (Packet, error) { return tx.RequeuePacket(q.ID, "try again") })
			switch s {
			case PacketFailed, PacketCancelled, PacketClaimed, PacketInProgress:
				if err != nil || got.State != PacketQueued || got.Attempt != 0 || got.Lease != nil {
					t.Fatalf("requeue %s = %+v, %v", s, got, err)
				}
				if q.Lease != nil {
					if _, err := w.complete(q, ""); CodeOf(err) != CodeLeaseLost {
						t.Errorf("complete with the lease from before the requeue = %v", err)
					}
				}
				again, ok, err := w.claimFrom(q.RepositoryID, "ses_y", time.Minute)
				if err != nil || !ok || again.ID != q.ID || again.Attempt != 1 {
					t.Errorf("claim after requeue = %+v, %v, %v", again, ok, err)
				}
			default:
				wantWorkCode(t, err, CodeInvalidState, "requeue "+string(s))
			}
		})
	}
	w := newWorkEnv(t)
	for name, fn := range map[string]func(tx *Tx) (Packet, error){
		"cancel":  func(tx *Tx) (Packet, error) { return tx.CancelPacket("pkt_nope", "") },
		"requeue": func(tx *Tx) (Packet, error) { return tx.RequeuePacket("pkt_nope", "") },
	} {
		_, err := w.pkt(fn)
		wantWorkCode(t, err, CodeNotFound, name+" unknown packet")
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

func TestCreatePacketValidation(t *testing.T) {
	w := newWorkEnv(t)
	ok := func(s PacketSpec) PacketSpec {
		if s.RepositoryID == "" {
			s.RepositoryID = w.repo.ID
		}
		return s
	}
	for _, c := range []struct {
		name string
		spec PacketSpec
		code Code
	}{
		{"unregistered repository", PacketSpec{RepositoryID: "repo_nope", Title: "t"}, CodeRepoNotRegistered},
		{"no title", ok(PacketSpec{}), CodeInvalidArgument},
		{"blank title", ok(PacketSpec{Title: " \t"}), CodeInvalidArgument},
		{"long title", ok(PacketSpec{Title: strings.Repeat("t", maxPacketTitle+1)}), CodeInvalidArgument},
		{"title not UTF-8", ok(PacketSpec{Title: "\xff"}), CodeInvalidArgument},
		{"max attempts 101", ok(PacketSpec{Title: "t", MaxAttempts: 101}), CodeInvalidArgument},
		{"max attempts -1", ok(PacketSpec{Title: "t", MaxAttempts: -1}), CodeInvalidArgument},
		{"unnamed artifact", ok(PacketSpec{Title: "t", ExpectedArtifacts: []ExpectedArtifact{{Kind: "x"}}}), CodeInvalidArgument},
		{"artifact twice", ok(PacketSpec{Title: "t", ExpectedArtifacts: []ExpectedArtifact{{Name: "a"}, {Name: "a"}}}), CodeInvalidArgument},
		{"artifact name with NUL", ok(PacketSpec{Title: "t", ExpectedArtifacts: []ExpectedArtifact{{Name: "a\x00"}}}), CodeInvalidArgument},
		{"too many globs", ok(PacketSpec{Title: "t", WriteScope: slices.Repeat([]string{"a"}, maxPacketListItems+1)}), CodeInvalidArgument},
		{"instructions too long", ok(PacketSpec{Title: "t", Instructions: strings.Repeat("i", maxPacketInstructions+1)}), CodeInvalidArgument},
		{"max attempts 100", ok(PacketSpec{Title: "t", MaxAttempts: 100}), ""},
		{"max attempts 1", ok(PacketSpec{Title: "t", MaxAttempts: 1}), ""},
		{"duplicate globs merge", ok(PacketSpec{Title: "t", WriteScope: []string{"a/*", "./a/*"}}), ""},
	} {
		p, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.CreatePacket(c.spec) })
		wantWorkCode(t, err, c.code, c.name)
		if err == nil && c.name == "duplicate globs merge" && !slices.Equal(p.WriteScope, []string{"a/*"}) {
			t.Errorf("write scope %q", p.WriteScope)
		}
	}
	p := w.create(PacketSpec{})
	if p.ExpectedArtifacts == nil || p.WriteScope == nil {
		t.Errorf("empty lists should be [] in JSON, got %+v", p)
	}
}

func TestPacketsListing(t *testing.T) {
	w := newWorkEnv(t)
	other := w.addRepo(t.TempDir())
	var ids []string // oldest first
	for i := range 7 {
		repo := w.repo.ID
		if i%3 == 2 {
			repo = other.ID
		}
		ids = append(ids, w.create(PacketSpec{RepositoryID: repo, Priority: i}).ID)
		w.clock.Add(time.Second)
	}
	claimed := w.claim("ses_a") // highest priority of w.repo: ids[6]
	list := func(f PacketFilter) []string {
		t.Helper()
		var out []string
		mustView(t, w.db, func(tx *Tx) error {
			ps, err := tx.Packets(f)
			for _, p := range ps {
				out = append(out, p.ID)
			}
			return err
		})
		return out
	}
	rev := slices.Clone(ids)
	slices.Reverse(rev)
	if got := list(PacketFilter{}); !slices.Equal(got, rev) {
		t.Errorf("all = %v, want newest first %v", got, rev)
	}
	if got := list(PacketFilter{Limit: 3}); !slices.Equal(got, rev[:3]) {
		t.Errorf("page 1 = %v", got)
	}
	if got := list(PacketFilter{Limit: 3, After: rev[2]}); !slices.Equal(got, rev[3:6]) {
		t.Errorf("page 2 = %v", got)
	}
	if got := list(PacketFilter{Limit: 3, After: rev[5]}); !slices.Equal(got, rev[6:]) {
		t.Errorf("page 3 = %v", got)
	}
	if got := list(PacketFilter{After: ids[0]}); len(got) != 0 {
		t.Errorf("after the oldest = %v", got)
	}
	if got := list(PacketFilter{RepositoryID: other.ID}); !slices.Equal(got, []string{ids[5], ids[2]}) {
		t.Errorf("other repo = %v", got)
	}
	if got := list(PacketFilter{State: PacketClaimed}); !slices.Equal(got, []string{claimed.ID}) {
		t.Errorf("claimed = %v", got)
	}
	if got := list(PacketFilter{RepositoryID: other.ID, State: PacketClaimed}); len(got) != 0 {
		t.Errorf("claimed in other = %v", got)
	}
	mustView(t, w.db, func(tx *Tx) error {
		if _, err := tx.Packets(PacketFilter{State: "lost"}); CodeOf(err) != CodeInvalidArgument {
			t.Errorf("unknown state = %v", err)
		}
		if _, err := tx.Packets(PacketFilter{After: "pkt_nope"}); CodeOf(err) != CodeInvalidArgument {
			t.Errorf("unknown cursor = %v", err)
		}
		counts := tx.PacketCounts()
		if counts[PacketQueued] != 6 || counts[PacketClaimed] != 1 {
			t.Errorf("PacketCounts = %v", counts)
		}
		return nil
	})
}

func TestPacketHistoryBounded(t *testing.T) {
	w := newWorkEnv(t)
	p := w.create(PacketSpec{})
	for i := range maxPacketHistory {
		c := w.claim("ses_a")
		if _, err := w.release(c, fmt.Sprint("round ", i)); err != nil {
			t.Fatal(err)
		}
	}
	got := w.get(p.ID)
	if len(got.History) != maxPacketHistory || got.Attempt != maxPacketHistory {
		t.Fatalf("%d history entries, attempt %d", len(got.History), got.Attempt)
	}
	if last := got.History[len(got.History)-1]; last.Reason != fmt.Sprint("round ", maxPacketHistory-1) || last.To != PacketQueued {
		t.Errorf("newest transition %+v", last)
	}
	long := strings.Repeat("é", maxTransitionReason)
	c := w.claim("ses_a")
	r, err := w.release(c, long)
	if err != nil {
		t.Fatal(err)
	}
	if reason := r.History[len(r.History)-1].Reason; len(reason) > maxTransitionReason+len("…") || !utf8.ValidString(reason) {
		t.Errorf("long reason kept as %d bytes", len(reason))
	}
}

// The claim must never hand out a packet that is not queued, even when the
// index says otherwise: it reports the broken index instead.
func TestClaimRefusesStaleQueueEntry(t *testing.T) {
	w := newWorkEnv(t)
	p := w.create(PacketSpec{})
	c := w.claim("ses_a")
	err := w.db.Update(func(tx *Tx) error {
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

func TestQueueKeyOrder(t *testing.T) {
	prios := []int{math.MaxInt, 1 << 40, 7, 1, 0, -1, -7, -1 << 40, math.MinInt}
	var keys [][]byte
	for _, pr := range prios {
		for _, seq := range []uint64{1, 2, 1 << 40} {
			keys = append(keys, queueKey("repo_a", pr, seq))
		}
	}
	if !slices.IsSortedFunc(keys, bytes.Compare) {
		t.Error("queue keys do not sort by descending priority, then ascending seq")
	}
	times := []time.Time{time.Unix(-1, 0), time.Unix(0, 0), time.Unix(0, 1), time.Now(), time.Now().Add(MaxLease)}
	for i := 1; i < len(times); i++ {
		a, b := expiryKey(times[i-1], "pkt_b"), expiryKey(times[i], "pkt_a")
		if bytes.Compare(a, b) >= 0 {
			t.Errorf("expiry key of %v does not sort before %v", times[i-1], times[i])
		}
		if got := expiryTime(b); !got.Equal(times[i]) {
			t.Errorf("expiryTime round trip %v -> %v", times[i], got)
		}
	}
	if binary.BigEndian.Uint64(queueKey("r", 0, 5)[2:10]) != ^(uint64(1) << 63) {
		t.Error("priority 0 encoding")
	}
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
				err := w.db.Update(func(tx *Tx) error {
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

// One op: a claim and a complete, each its own Update (as the registry runs
// them), against a queue kept 10,000 deep: each op also creates one packet.
// "fsync" is what a call costs; "nosync" the store's own work.
func BenchmarkClaimComplete(b *testing.B) {
	for _, mode := range []string{"fsync", "nosync"} {
		b.Run(mode, func(b *testing.B) {
			const depth = 10000
			db := openTestDB(b, Options{})
			db.bolt.NoSync = mode == "nosync"
			var repo Repository
			mustUpdate(b, db, func(tx *Tx) error {
				var err error
				if repo, _, err = tx.RegisterRepository("", b.TempDir()); err != nil {
					return err
				}
				for i := range depth {
					if _, err := tx.CreatePacket(PacketSpec{RepositoryID: repo.ID, Title: fmt.Sprint("p", i), Priority: i % 5,
						ExpectedArtifacts: []ExpectedArtifact{{Name: "summary"}}, WriteScope: []string{"out/**"}}); err != nil {
						return err
					}
				}
				return nil
			})
			content := "done"
			for b.Loop() {
				var p Packet
				if err := db.Update(func(tx *Tx) error {
					if _, err := tx.CreatePacket(PacketSpec{RepositoryID: repo.ID, Title: "more", Priority: 2,
						ExpectedArtifacts: []ExpectedArtifact{{Name: "summary"}}, WriteScope: []string{"out/**"}}); err != nil {
						return err
					}
					var ok bool
					var err error
					if p, ok, err = tx.ClaimPacket(repo.ID, "ses_bench", time.Minute); err == nil && !ok {
						err = fmt.Errorf("queue empty")
					}
					return err
				}); err != nil {
					b.Fatal(err)
				}
				if err := db.Update(func(tx *Tx) error {
					if _, err := tx.PublishArtifact(p.ID, "ses_bench", p.Lease.ID, ArtifactSpec{Name: "summary", Content: &content}, ""); err != nil {
						return err
					}
					_, err := tx.CompletePacket(p.ID, "ses_bench", p.Lease.ID, "ok")
					return err
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// ClaimPacket alone at two queue depths: the cost should barely move with
// the depth (one cursor seek).
func BenchmarkClaim(b *testing.B) {
	for _, depth := range []int{100, 100000} {
		b.Run(fmt.Sprint("depth=", depth), func(b *testing.B) {
			db := openTestDB(b, Options{})
			db.bolt.NoSync = true
			var repo Repository
			mustUpdate(b, db, func(tx *Tx) error {
				var err error
				repo, _, err = tx.RegisterRepository("", b.TempDir())
				return err
			})
			for start := 0; start < depth; start += 10000 {
				mustUpdate(b, db, func(tx *Tx) error {
					for i := start; i < min(start+10000, depth); i++ {
						if _, err := tx.CreatePacket(PacketSpec{RepositoryID: repo.ID, Title: "p", Priority: i % 5}); err != nil {
							return err
						}
					}
					return nil
				})
			}
			for b.Loop() {
				// Claim and hand back in one rolled-back Update, so the
				// queue stays as deep.
				err := db.Update(func(tx *Tx) error {
					if _, ok, err := tx.ClaimPacket(repo.ID, "ses_bench", time.Minute); err != nil || !ok {
						return fmt.Errorf("claim: %v %v", ok, err)
					}
					return errWorkRollback
				})
				if !errors.Is(err, errWorkRollback) {
					b.Fatal(err)
				}
			}
		})
	}
}

var errWorkRollback = errors.New("roll back")
