package store

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-dev/switchboard/profile"
)

// The confirmation is recorded once, kept by a settings change that does
// not carry it, and cannot be forged by one that does; a repository stored
// before it decodes without it.
func TestConfirmFullAuto(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	var id string
	mustUpdate(t, db, func(tx *Tx) error {
		r, _, err := tx.RegisterRepository("r", t.TempDir())
		id = r.ID
		return err
	})
	mustUpdate(t, db, func(tx *Tx) error {
		r, err := tx.ConfigureRepository(id, RepositorySettings{FullAuto: &FullAutoConfirmation{By: "forged"}})
		if err != nil {
			return err
		}
		if r.FullAuto != nil {
			t.Errorf("configure set full auto: %+v", r.FullAuto)
		}
		return nil
	})
	mustUpdate(t, db, func(tx *Tx) error {
		r, err := tx.ConfirmFullAuto(id, "gui")
		if err != nil {
			return err
		}
		if r.FullAuto == nil || r.FullAuto.By != "gui" || !r.FullAuto.At.Equal(clock.Now()) {
			t.Errorf("confirmed: %+v", r.FullAuto)
		}
		if _, err := tx.ConfirmFullAuto(id, "rpc"); err != nil {
			return err
		}
		r, err = tx.ConfigureRepository(id, RepositorySettings{Landing: LandingSquash})
		if err != nil {
			return err
		}
		if r.FullAuto == nil || r.FullAuto.By != "gui" {
			t.Errorf("after a second confirmation and a configure: %+v", r.FullAuto)
		}
		_, err = tx.ConfirmFullAuto("repo_none", "gui")
		if CodeOf(err) != CodeRepoNotRegistered {
			t.Errorf("confirm of an unknown repository: %v", err)
		}
		return nil
	})
	var old Repository
	if err := json.Unmarshal([]byte(`{"id":"repo_1","name":"r","path":"/r","created_at":"2026-01-01T00:00:00Z","landing":"merge"}`), &old); err != nil || old.FullAuto != nil {
		t.Fatalf("an older record: %+v, %v", old, err)
	}
}

func TestSessionPermission(t *testing.T) {
	db := openTestDB(t, Options{})
	mustUpdate(t, db, func(tx *Tx) error {
		s, err := tx.CreateSession(SessionSpec{Kind: SessionSupervised, Permission: profile.PermissionEdits})
		if err != nil {
			return err
		}
		if s.Permission != profile.PermissionEdits {
			t.Errorf("recorded %q", s.Permission)
		}
		if _, err := tx.CreateSession(SessionSpec{Kind: SessionSupervised, Permission: "yolo"}); CodeOf(err) != CodeInvalidArgument {
			t.Errorf("an unknown mode: %v", err)
		}
		return nil
	})
}
