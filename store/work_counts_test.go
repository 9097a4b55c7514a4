package store

import (
	"maps"
	"strings"
	"testing"
	"time"
)

// repoCounts reads repository id's counts: the non-zero states, and
// "unlanded" when any.
func (w *workEnv) repoCounts(id string) map[string]int {
	w.t.Helper()
	out := map[string]int{}
	mustView(w.t, w.db, func(tx *Tx) error {
		rc := tx.RepoPacketCounts(id)[id]
		for s, n := range rc.States {
			if n != 0 {
				out[string(s)] = n
			}
		}
		if rc.Unlanded != 0 {
			out[countUnlanded] = rc.Unlanded
		}
		return nil
	})
	return out
}

// The per-repository counts follow every packet write of two repositories
// apart: create, claim, complete with changes, land, cancel, requeue,
// and the removal of a repository, which keeps its packets.
func TestRepoPacketCounts(t *testing.T) {
	w := newWorkEnv(t)
	other := w.addRepo(t.TempDir())
	w.create(PacketSpec{RepositoryID: other.ID})
	check := func(step string, want, wantOther map[string]int) {
		t.Helper()
		if got := w.repoCounts(w.repo.ID); !maps.Equal(got, want) {
			t.Errorf("%s: counts = %v, want %v", step, got, want)
		}
		if got := w.repoCounts(other.ID); !maps.Equal(got, wantOther) {
			t.Errorf("%s: other repository's counts = %v, want %v", step, got, wantOther)
		}
	}
	one := map[string]int{"queued": 1}
	check("start", map[string]int{}, one)

	done := w.donePacket() // create, claim, complete with changes
	check("done with changes", map[string]int{"done": 1, countUnlanded: 1}, one)
	if _, err := w.pkt(func(tx *Tx) (Packet, error) {
		return tx.MarkPacketLanded(done.ID, PacketLanding{Commit: strings.Repeat("c", 40), Mode: "merge"})
	}); err != nil {
		t.Fatal(err)
	}
	check("landed", map[string]int{"done": 1}, one)

	w.create(PacketSpec{Title: "a"})
	b := w.create(PacketSpec{Title: "b"})
	check("created", map[string]int{"done": 1, "queued": 2}, one)
	if _, ok, err := w.claimFrom(w.repo.ID, "ses_b", time.Minute); !ok || err != nil {
		t.Fatalf("claim: %v, %v", ok, err)
	}
	check("claimed", map[string]int{"done": 1, "queued": 1, "claimed": 1}, one)
	if _, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.CancelPacket(b.ID, "no") }); err != nil {
		t.Fatal(err)
	}
	check("cancelled", map[string]int{"done": 1, "claimed": 1, "cancelled": 1}, one)
	if _, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.RequeuePacket(b.ID, "again") }); err != nil {
		t.Fatal(err)
	}
	check("requeued", map[string]int{"done": 1, "claimed": 1, "queued": 1}, one)

	// A refused write changes no count.
	if _, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.CancelPacket(done.ID, "no") }); err == nil {
		t.Fatal("cancelled a done packet")
	}
	check("refused", map[string]int{"done": 1, "claimed": 1, "queued": 1}, one)

	if _, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.CancelPacket(otherPacket(t, w, other.ID), "gone") }); err != nil {
		t.Fatal(err)
	}
	if err := w.do(func(tx *Tx) error { _, err := tx.RemoveRepository(other.ID); return err }); err != nil {
		t.Fatal(err)
	}
	check("repository removed", map[string]int{"done": 1, "claimed": 1, "queued": 1}, map[string]int{"cancelled": 1})
	mustView(t, w.db, func(tx *Tx) error {
		if all := tx.RepoPacketCounts(""); len(all) != 2 || all[w.repo.ID].States[PacketDone] != 1 {
			t.Errorf("every repository's counts = %v", all)
		}
		if rc := tx.RepoPacketCounts("repo_none")["repo_none"]; len(rc.States) != len(packetStates) {
			t.Errorf("a repository without packets = %+v, want every state at 0", rc)
		}
		return nil
	})
}

func otherPacket(t *testing.T, w *workEnv, repoID string) string {
	t.Helper()
	var id string
	mustView(t, w.db, func(tx *Tx) error {
		ps, err := tx.Packets(PacketFilter{RepositoryID: repoID})
		if err != nil || len(ps) != 1 {
			t.Fatalf("packets of %s: %v, %v", repoID, ps, err)
		}
		id = ps[0].ID
		return nil
	})
	return id
}

// A database made before the counts (schema 7) gets them built from its
// packets when it opens, and they go on from there; on both engines.
func TestMigrateRepoCounts(t *testing.T) {
	w := newWorkEnv(t)
	w.donePacket()
	w.create(PacketSpec{})
	w.create(PacketSpec{})
	// Back to schema 7: the bucket goes, as if never made.
	mustUpdate(t, w.db, func(tx *Tx) error {
		if err := tx.tx.DeleteBucket(bucketPacketRepoCounts); err != nil {
			return err
		}
		return tx.tx.Bucket(bucketMeta).Put(keySchemaVersion, u64(7))
	})
	w.db = reopenTestDB(t, w.db, Options{Now: w.clock.Now})
	mustView(t, w.db, func(tx *Tx) error {
		if v := tx.StoredSchemaVersion(); v != SchemaVersion() {
			t.Errorf("schema version %d after the migration, want %d", v, SchemaVersion())
		}
		return nil
	})
	want := map[string]int{"done": 1, countUnlanded: 1, "queued": 2}
	if got := w.repoCounts(w.repo.ID); !maps.Equal(got, want) {
		t.Errorf("after the migration: counts = %v, want %v", got, want)
	}
	w.claim("ses_c")
	want = map[string]int{"done": 1, countUnlanded: 1, "queued": 1, "claimed": 1}
	if got := w.repoCounts(w.repo.ID); !maps.Equal(got, want) {
		t.Errorf("after a claim: counts = %v, want %v", got, want)
	}
}
