package store

import (
	"context"
	"strings"
	"testing"
)

// donePacket makes a packet done with changes, as a completion in a
// worktree leaves it.
func (w *workEnv) donePacket() Packet {
	w.t.Helper()
	w.create(PacketSpec{})
	p := w.claim("ses_a")
	done, err := w.pkt(func(tx *Tx) (Packet, error) {
		return tx.CompletePacket(p.ID, &Session{ID: p.Lease.SessionID}, p.Lease.ID, Completion{Summary: "done", Changes: &PacketChanges{
			SessionID: "ses_a", Branch: "switchboard/a", BaseBranch: "main", From: strings.Repeat("1", 40), To: strings.Repeat("2", 40),
		}})
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return done
}

func TestLandingJournal(t *testing.T) {
	w := newWorkEnv(t)
	p := w.donePacket()
	l := JournaledLanding{
		PacketID: p.ID, RepositoryID: w.repo.ID, RepoPath: w.repo.Path, BaseRef: "refs/heads/main",
		OldTip: strings.Repeat("a", 40), NewCommit: strings.Repeat("b", 40), Mode: "merge", Checkout: w.repo.Path,
	}

	// A database that never landed anything has no bucket: reads answer
	// an empty journal, an end is a no-op.
	mustView(t, w.db, func(tx *Tx) error {
		if ls, err := tx.Landings(); err != nil || len(ls) != 0 {
			t.Errorf("Landings of a fresh database = %v, %v", ls, err)
		}
		if _, ok, err := tx.Landing(p.ID); ok || err != nil {
			t.Errorf("Landing of a fresh database = %v, %v", ok, err)
		}
		return nil
	})
	mustUpdate(t, w.db, func(tx *Tx) error { return tx.EndLanding(p.ID) })

	for _, c := range []struct {
		name string
		edit func(*JournaledLanding)
		code Code
	}{
		{"short commit", func(l *JournaledLanding) { l.NewCommit = "abc" }, CodeInvalidArgument},
		{"upper-case commit", func(l *JournaledLanding) { l.OldTip = strings.Repeat("A", 40) }, CodeInvalidArgument},
		{"not a branch", func(l *JournaledLanding) { l.BaseRef = "main" }, CodeInvalidArgument},
		{"no repository", func(l *JournaledLanding) { l.RepoPath = "" }, CodeInvalidArgument},
		{"long checkout", func(l *JournaledLanding) { l.Checkout = strings.Repeat("x", maxLandingPath+1) }, CodeInvalidArgument},
		{"no mode", func(l *JournaledLanding) { l.Mode = "" }, CodeInvalidArgument},
		{"unknown packet", func(l *JournaledLanding) { l.PacketID = "pkt_nope" }, CodeNotFound},
	} {
		bad := l
		c.edit(&bad)
		err := w.db.Update(context.Background(), func(tx *Tx) error { return tx.BeginLanding(bad) })
		wantWorkCode(t, err, c.code, c.name)
	}

	mustUpdate(t, w.db, func(tx *Tx) error { return tx.BeginLanding(l) })
	// One landing of a packet at a time.
	wantWorkCode(t, w.db.Update(context.Background(), func(tx *Tx) error { return tx.BeginLanding(l) }), CodeInvalidState, "a second landing")
	mustView(t, w.db, func(tx *Tx) error {
		got, ok, err := tx.Landing(p.ID)
		want := l
		want.At = w.clock.Now().UTC()
		if err != nil || !ok || got != want {
			t.Errorf("Landing = %+v, %v, %v; want %+v", got, ok, err, want)
		}
		if ls, err := tx.Landings(); err != nil || len(ls) != 1 || ls[0] != want {
			t.Errorf("Landings = %+v, %v", ls, err)
		}
		return nil
	})

	// Marking the packet landed and ending the entry in one transaction;
	// after that, no landing of it begins.
	mustUpdate(t, w.db, func(tx *Tx) error {
		if _, err := tx.MarkPacketLanded(p.ID, PacketLanding{Commit: l.NewCommit, Mode: l.Mode}); err != nil {
			return err
		}
		return tx.EndLanding(p.ID)
	})
	mustView(t, w.db, func(tx *Tx) error {
		if ls, err := tx.Landings(); err != nil || len(ls) != 0 {
			t.Errorf("Landings after the end = %v, %v", ls, err)
		}
		return nil
	})
	wantWorkCode(t, w.db.Update(context.Background(), func(tx *Tx) error { return tx.BeginLanding(l) }), CodeInvalidState, "landing a landed packet")

	// A packet that is not done does not begin a landing.
	q := w.create(PacketSpec{})
	l.PacketID = q.ID
	wantWorkCode(t, w.db.Update(context.Background(), func(tx *Tx) error { return tx.BeginLanding(l) }), CodeInvalidState, "landing a queued packet")
}

// A journal entry survives closing and reopening the file: that is its use.
func TestLandingJournalReopen(t *testing.T) {
	w := newWorkEnv(t)
	p := w.donePacket()
	l := JournaledLanding{PacketID: p.ID, RepoPath: "/src/a", BaseRef: "refs/heads/main", OldTip: strings.Repeat("a", 40), NewCommit: strings.Repeat("b", 40), Mode: "squash"}
	mustUpdate(t, w.db, func(tx *Tx) error { return tx.BeginLanding(l) })
	db := reopenTestDB(t, w.db, Options{})
	mustView(t, db, func(tx *Tx) error {
		ls, err := tx.Landings()
		if err != nil || len(ls) != 1 || ls[0].PacketID != p.ID || ls[0].Mode != "squash" {
			t.Errorf("Landings after reopening = %+v, %v", ls, err)
		}
		return nil
	})
}
