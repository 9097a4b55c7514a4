package store

import (
	"context"
	"testing"

	"github.com/switchboard-dev/switchboard/profile"
)

func TestProfileStore(t *testing.T) {
	db := openTestDB(t, Options{})
	a := profile.Profile{ID: "aider", Name: "aider", Command: "aider", Prompt: profile.PromptTyped}
	b := profile.Profile{ID: "zsh", Name: "zsh", Command: "zsh", Prompt: profile.PromptNone}
	mustUpdate(t, db, func(tx *Tx) error {
		if err := tx.PutProfile(b); err != nil {
			return err
		}
		return tx.PutProfile(a)
	})
	mustView(t, db, func(tx *Tx) error {
		ps, err := tx.Profiles()
		if err != nil {
			return err
		}
		if len(ps) != 2 || ps[0].ID != "aider" || ps[1].ID != "zsh" {
			t.Errorf("Profiles = %+v, want aider then zsh", ps)
		}
		if p, ok, err := tx.Profile("zsh"); err != nil || !ok || p.Command != "zsh" {
			t.Errorf("Profile(zsh) = %+v, %v, %v", p, ok, err)
		}
		if _, ok, err := tx.Profile("fish"); err != nil || ok {
			t.Errorf("Profile(fish) = %v, %v, want not stored", ok, err)
		}
		return nil
	})
	a.Command = "aider2"
	mustUpdate(t, db, func(tx *Tx) error { return tx.PutProfile(a) })
	mustUpdate(t, db, func(tx *Tx) error { return tx.DeleteProfile("zsh") })
	if err := db.Update(context.Background(), func(tx *Tx) error { return tx.DeleteProfile("zsh") }); CodeOf(err) != CodeNotFound {
		t.Errorf("second delete: %v, want not_found", err)
	}
	if err := db.Update(context.Background(), func(tx *Tx) error { return tx.PutProfile(profile.Profile{ID: "x"}) }); CodeOf(err) != CodeInvalidArgument {
		t.Errorf("invalid profile stored: %v", err)
	}
	mustView(t, db, func(tx *Tx) error {
		ps, _ := tx.Profiles()
		if len(ps) != 1 || ps[0].Command != "aider2" {
			t.Errorf("after edit and delete: %+v", ps)
		}
		return nil
	})
}
