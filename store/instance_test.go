package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// secondInstance opens db's PostgreSQL database again as another instance,
// as a second machine would.
func secondInstance(t *testing.T, db *DB, opts Options) *DB {
	t.Helper()
	u, _ := pgURLs.Load(db)
	other, err := OpenPostgres(u.(string), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return other
}

// An instance's record: a beat makes it running, silence past the grace
// makes it silent, a clean stop or a sweep takes it out of the sweeps, and
// a new run makes it running again.
func TestInstanceLifecycle(t *testing.T) {
	clock := newFakeClock()
	const id = "inst_0123456789abcdef0123"
	db := openTestDB(t, Options{Now: clock.Now, Instance: id})
	started := clock.Now()
	beat := func() Instance {
		t.Helper()
		var was Instance
		mustUpdate(t, db, func(tx *Tx) (err error) {
			was, err = tx.BeatInstance(InstanceBeat{Host: "box", PID: 42, Version: "v", Started: started})
			return err
		})
		return was
	}
	get := func() Instance {
		t.Helper()
		var in Instance
		mustView(t, db, func(tx *Tx) error {
			var ok bool
			var err error
			if in, ok, err = tx.Instance(id); err == nil && !ok {
				err = errors.New("no record")
			}
			return err
		})
		return in
	}
	if was := beat(); was.ID != "" {
		t.Fatalf("a first beat found %+v", was)
	}
	const grace = 30 * time.Second
	if in := get(); in.Host != "box" || in.PID != 42 || !in.SeenAt.Equal(clock.Now()) || in.Silent(clock.Now(), grace) {
		t.Fatalf("after a beat: %+v", in)
	}
	clock.Add(grace + time.Second)
	if !get().Silent(clock.Now(), grace) {
		t.Fatal("not silent past the grace")
	}
	mustUpdate(t, db, func(tx *Tx) error { _, err := tx.MarkInstanceLost(id); return err })
	if in := get(); in.LostAt == nil || in.Silent(clock.Now(), grace) {
		t.Fatalf("a lost instance is swept again: %+v", in)
	}
	// It was only silent (a suspended laptop): its next beat says so and
	// makes it running.
	if was := beat(); was.LostAt == nil {
		t.Fatalf("the beat after a sweep did not report it: %+v", was)
	}
	if in := get(); in.LostAt != nil {
		t.Fatalf("beating again, still lost: %+v", in)
	}
	mustUpdate(t, db, func(tx *Tx) error { return tx.StopInstance() })
	clock.Add(time.Hour)
	if in := get(); in.StoppedAt == nil || in.Silent(clock.Now(), grace) {
		t.Fatalf("a stopped instance counts as silent: %+v", in)
	}
	for _, bad := range []string{"", "inst_", "inst_XYZ", "ses_00", "inst_00/00"} {
		if CheckInstanceID(bad) == nil {
			t.Errorf("instance id %q accepted", bad)
		}
	}
	if err := CheckInstanceID(NewInstanceID()); err != nil {
		t.Error(err)
	}
}

// Two instances on one database (two machines): what each records carries
// its id, its settings and landings are its own, and a repository is known
// by name, each instance with its own folder for it.
func TestInstancesShareByNameAndKeepTheirOwn(t *testing.T) {
	if pgServer == nil {
		t.Skip("instances share a database on PostgreSQL only")
	}
	const idA, idB = "inst_aaaaaaaaaaaaaaaaaaaa", "inst_bbbbbbbbbbbbbbbbbbbb"
	a := openTestDB(t, Options{Instance: idA})
	b := secondInstance(t, a, Options{Instance: idB})

	var onA, onB, again Repository
	var created bool
	mustUpdate(t, a, func(tx *Tx) (err error) { onA, _, err = tx.RegisterRepository("", "/home/ann/src/app"); return err })
	mustUpdate(t, b, func(tx *Tx) (err error) {
		onB, created, err = tx.RegisterRepository("app", "/work/bob/app-clone")
		return err
	})
	if created || onB.ID != onA.ID || onB.Path != "/work/bob/app-clone" {
		t.Fatalf("a clone registered under the name on B: %+v (created %v), A has %+v", onB, created, onA)
	}
	mustUpdate(t, b, func(tx *Tx) (err error) { again, _, err = tx.RegisterRepository("", "/work/bob/app-clone"); return err })
	if again.ID != onA.ID {
		t.Fatalf("registering B's folder again: %+v", again)
	}
	err := b.Update(context.Background(), func(tx *Tx) error { _, _, err := tx.RegisterRepository("app", "/work/bob/other"); return err })
	if CodeOf(err) != CodeInvalidArgument {
		t.Fatalf("a second folder of B's under the same name: %v", err)
	}
	for _, c := range []struct {
		db   *DB
		path string
	}{{a, "/home/ann/src/app"}, {b, "/work/bob/app-clone"}} {
		mustView(t, c.db, func(tx *Tx) error {
			r, err := tx.Repository(onA.ID)
			if err == nil && r.Path != c.path {
				t.Errorf("instance %s sees the folder %q, want %q", tx.InstanceID(), r.Path, c.path)
			}
			return err
		})
	}
	// A third instance that registered no clone has no folder, and a call
	// that works in one is told so.
	third := secondInstance(t, a, Options{Instance: "inst_cccccccccccccccccccc"})
	mustView(t, third, func(tx *Tx) error {
		if _, err := tx.LocalRepository(onA.ID); CodeOf(err) != CodeInvalidState {
			t.Errorf("a repository with no folder here: %v", err)
		}
		return nil
	})

	mustUpdate(t, a, func(tx *Tx) error { return tx.SetSetting("http_port", "4001") })
	mustUpdate(t, b, func(tx *Tx) error { return tx.SetSetting("http_port", "4002") })
	mustView(t, a, func(tx *Tx) error {
		if got := tx.Setting("http_port"); got != "4001" {
			t.Errorf("A's setting reads %q", got)
		}
		return nil
	})

	var sesB Session
	var tokB Token
	mustUpdate(t, b, func(tx *Tx) (err error) {
		if tokB, _, err = tx.CreateToken(TokenSpec{Label: "t", Grants: []Grant{{Capability: CapWorkRead, Repositories: []string{AllRepositories}}}}); err != nil {
			return err
		}
		if sesB, err = tx.CreateSession(SessionSpec{Kind: SessionSupervised, RepositoryID: onA.ID}); err != nil {
			return err
		}
		return tx.AppendAudit(&AuditRecord{Transport: "test", Method: "x", Outcome: "ok"})
	})
	mustUpdate(t, a, func(tx *Tx) error { return tx.AppendAudit(&AuditRecord{Transport: "test", Method: "y", Outcome: "ok"}) })
	if sesB.Instance != idB || tokB.Instance != idB {
		t.Errorf("B's session and token carry %q and %q", sesB.Instance, tokB.Instance)
	}
	for _, db := range []*DB{a, b} {
		mustView(t, db, func(tx *Tx) error {
			recs, err := tx.QueryAudit(AuditFilter{Limit: 2})
			if err != nil {
				return err
			}
			if len(recs) != 2 || recs[0].Instance != idA || recs[1].Instance != idB {
				t.Errorf("the audit as %s: %+v", tx.InstanceID(), recs)
			}
			ses, err := tx.SessionsOfInstance(idB)
			if err != nil || len(ses) != 1 || ses[0].ID != sesB.ID {
				t.Errorf("B's live sessions as %s: %v %v", tx.InstanceID(), ses, err)
			}
			_, err = tx.VerifyAudit()
			return err
		})
	}
	// A record's instance is in what its hash covers.
	mustView(t, a, func(tx *Tx) error {
		recs, err := tx.QueryAudit(AuditFilter{Limit: 1})
		if err != nil {
			return err
		}
		r := recs[0]
		r.Instance = idB
		if chainHash(&r) == r.Hash {
			t.Error("changing a record's instance keeps its hash")
		}
		r.Instance = ""
		if chainHash(&r) == r.Hash {
			t.Error("dropping a record's instance keeps its hash")
		}
		return nil
	})
}
