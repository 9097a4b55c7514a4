package store

import (
	"context"
	"testing"
	"time"
)

// A packet a person starts a session on is that session's: another
// session's claims pass it by while the session lives, its own first
// claim takes it before an older packet, and once it has ended the packet
// is anyone's.
func TestReservePacket(t *testing.T) {
	db := openTestDB(t, Options{})
	var repo Repository
	var older, mine Packet
	var a, b Session
	mustUpdate(t, db, func(tx *Tx) (err error) {
		if repo, _, err = tx.RegisterRepository("app", "/src/app"); err != nil {
			return err
		}
		if older, err = tx.CreatePacket(PacketSpec{RepositoryID: repo.ID, Title: "older"}); err != nil {
			return err
		}
		if mine, err = tx.CreatePacket(PacketSpec{RepositoryID: repo.ID, Title: "mine"}); err != nil {
			return err
		}
		if a, err = tx.CreateSession(SessionSpec{Kind: SessionExternal, RepositoryID: repo.ID, Packet: mine.ID}); err != nil {
			return err
		}
		if b, err = tx.CreateSession(SessionSpec{Kind: SessionExternal, RepositoryID: repo.ID}); err != nil {
			return err
		}
		_, err = tx.ReservePacket(mine.ID, a.ID)
		return err
	})
	if err := db.Update(context.Background(), func(tx *Tx) error { _, err := tx.ReservePacket(mine.ID, b.ID); return err }); CodeOf(err) != CodeInvalidState {
		t.Errorf("reserving it again for another session: %v, want invalid_state", err)
	}
	claim := func(ses string) string {
		t.Helper()
		var p Packet
		var ok bool
		mustUpdate(t, db, func(tx *Tx) (err error) { p, ok, err = tx.ClaimPacket(repo.ID, ses, time.Minute); return err })
		if !ok {
			return ""
		}
		return p.ID
	}
	if got := claim(a.ID); got != mine.ID {
		t.Errorf("the session's first claim took %q, want its packet %s before the older %s", got, mine.ID, older.ID)
	}
	mustUpdate(t, db, func(tx *Tx) error {
		_, err := tx.ReleasePacket(mine.ID, a.ID, mustLease(t, tx, mine.ID), "later")
		return err
	})
	if got := claim(b.ID); got != older.ID {
		t.Errorf("another session claimed %q, want the older packet, not the reserved one", got)
	}
	if got := claim(b.ID); got != "" {
		t.Errorf("another session claimed %q while the reserving session lives", got)
	}
	mustUpdate(t, db, func(tx *Tx) error { _, err := tx.EndSession(a.ID, SessionEnded, nil, "done"); return err })
	if got := claim(b.ID); got != mine.ID {
		t.Errorf("after the session ended another claimed %q, want %s", got, mine.ID)
	}
}

// mustLease is packet id's live lease id.
func mustLease(t *testing.T, tx *Tx, id string) string {
	t.Helper()
	p, err := tx.Packet(id)
	if err != nil || p.Lease == nil {
		t.Fatalf("packet %s: %+v, %v", id, p.Lease, err)
	}
	return p.Lease.ID
}
