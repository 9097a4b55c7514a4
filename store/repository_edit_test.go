package store

import (
	"context"
	"strings"
	"testing"
)

func TestRenameRepository(t *testing.T) {
	db := openTestDB(t, Options{})
	var a Repository
	mustUpdate(t, db, func(tx *Tx) (err error) {
		if a, _, err = tx.RegisterRepository("alpha", "/src/alpha"); err != nil {
			return err
		}
		_, _, err = tx.RegisterRepository("beta", "/src/beta")
		return err
	})
	for _, tt := range []struct {
		name, to string
		code     Code
	}{
		{"a new name", "  Alpha service ", ""},
		{"empty", "   ", CodeInvalidArgument},
		{"another's", "beta", CodeInvalidArgument},
		{"a control character", "al\x1bpha", CodeInvalidArgument},
		{"too long", strings.Repeat("a", maxRepoName+1), CodeInvalidArgument},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got Repository
			err := db.Update(context.Background(), func(tx *Tx) (err error) { got, err = tx.RenameRepository(a.ID, tt.to); return err })
			if CodeOf(err) != tt.code {
				t.Fatalf("rename to %q: %v, want %q", tt.to, err, tt.code)
			}
			if err == nil && (got.Name != strings.TrimSpace(tt.to) || got.Path != a.Path) {
				t.Errorf("renamed: %+v", got)
			}
		})
	}
	if err := db.Update(context.Background(), func(tx *Tx) error { _, err := tx.RenameRepository("repo_nope", "x"); return err }); CodeOf(err) != CodeRepoNotRegistered {
		t.Errorf("renaming an unknown repository: %v", err)
	}
}

// A repository is forgotten only once nothing of the person's work hangs
// on it: no live session, no unfinished packet.
func TestRemoveRepository(t *testing.T) {
	db := openTestDB(t, Options{})
	var repo Repository
	var ses Session
	var pkt Packet
	mustUpdate(t, db, func(tx *Tx) (err error) {
		if repo, _, err = tx.RegisterRepository("app", "/src/app"); err != nil {
			return err
		}
		if ses, err = tx.CreateSession(SessionSpec{Kind: SessionExternal, RepositoryID: repo.ID}); err != nil {
			return err
		}
		pkt, err = tx.CreatePacket(PacketSpec{RepositoryID: repo.ID, Title: "t"})
		return err
	})
	remove := func() error {
		return db.Update(context.Background(), func(tx *Tx) error { _, err := tx.RemoveRepository(repo.ID); return err })
	}
	for _, step := range []struct {
		what string
		do   func(tx *Tx) error
		code Code
	}{
		{"with a live session", nil, CodeInvalidState},
		{"with a queued packet", func(tx *Tx) error { _, err := tx.EndSession(ses.ID, SessionEnded, nil, "done"); return err }, CodeInvalidState},
		{"with nothing open", func(tx *Tx) error { _, err := tx.CancelPacket(pkt.ID, "not needed"); return err }, ""},
	} {
		if step.do != nil {
			mustUpdate(t, db, step.do)
		}
		if err := remove(); CodeOf(err) != step.code {
			t.Fatalf("remove %s: %v, want %q", step.what, err, step.code)
		}
	}
	if err := db.View(context.Background(), func(tx *Tx) error { _, err := tx.Repository(repo.ID); return err }); CodeOf(err) != CodeRepoNotRegistered {
		t.Errorf("after removal the repository is still there: %v", err)
	}
	// Its ended packet stays in the records.
	if err := db.View(context.Background(), func(tx *Tx) error { _, err := tx.Packet(pkt.ID); return err }); err != nil {
		t.Errorf("its packet is gone with it: %v", err)
	}
}
