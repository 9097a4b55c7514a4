package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Helpers of the work tests: the index checker every work test runs, and
// workEnv, a database with a repository and a fake clock.

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
	repoCounts := map[string]string{} // packet_repo_counts, as the packets say
	want["packet_repo_counts"] = repoCounts
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
		for _, c := range countClasses(&p) {
			k := string(repoCountKey(p.RepositoryID, c))
			n := uint64(0)
			if v, ok := repoCounts[k]; ok {
				n = binary.BigEndian.Uint64([]byte(v))
			}
			repoCounts[k] = string(u64(n + 1))
		}
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
	err := w.db.Update(context.Background(), func(tx *Tx) error {
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

// publish publishes a as the packet's lease holder, in the two phases the
// registry runs: a path artifact's file is checked first, outside any
// write transaction (verify), and only then recorded.
func (w *workEnv) publish(p Packet, a ArtifactSpec) (Artifact, error) {
	w.t.Helper()
	var file *VerifiedFile
	if a.Path != "" && a.Content == nil {
		var err error
		if file, err = w.verify(p, a); err != nil {
			return Artifact{}, err
		}
	}
	var art Artifact
	err := w.do(func(tx *Tx) error {
		var err error
		art, err = tx.PublishArtifact(p.ID, p.Lease.SessionID, p.Lease.ID, a, file)
		return err
	})
	return art, err
}

// verify is a path artifact's first phase: the target read in a read
// transaction, the file checked in none.
func (w *workEnv) verify(p Packet, a ArtifactSpec) (*VerifiedFile, error) {
	w.t.Helper()
	var target ArtifactTarget
	err := w.db.View(context.Background(), func(tx *Tx) error {
		cur, err := tx.Packet(p.ID)
		if err != nil {
			return err
		}
		target, err = tx.ArtifactTarget(cur, p.Lease.SessionID, p.Lease.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return VerifyArtifactFile(w.t.Context(), target, a)
}

func (w *workEnv) complete(p Packet, summary string) (Packet, error) {
	w.t.Helper()
	return w.pkt(func(tx *Tx) (Packet, error) {
		// As work.complete: the session as read in the transaction (a
		// bare id when the test made none).
		ses, err := tx.Session(p.Lease.SessionID)
		if CodeOf(err) == CodeNotFound {
			ses, err = Session{ID: p.Lease.SessionID}, nil
		}
		if err != nil {
			return Packet{}, err
		}
		return tx.CompletePacket(p.ID, &ses, p.Lease.ID, Completion{Summary: summary})
	})
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
