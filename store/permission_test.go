package store

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPermissionValid(t *testing.T) {
	tests := []struct {
		p    Permission
		ok   bool
		want Permission // Or()
	}{
		{"", true, PermissionAsk},
		{"ask", true, PermissionAsk},
		{"edits", true, PermissionEdits},
		{"auto", true, PermissionAuto},
		{"yolo", false, "yolo"},
		{"Auto", false, "Auto"},
	}
	for _, tt := range tests {
		if got := tt.p.Valid(); got != tt.ok {
			t.Errorf("%q.Valid() = %v, want %v", tt.p, got, tt.ok)
		}
		if err := CheckPermission(tt.p); (err == nil) != tt.ok || err != nil && CodeOf(err) != CodeInvalidArgument {
			t.Errorf("CheckPermission(%q) = %v", tt.p, err)
		}
		if got := tt.p.Or(); got != tt.want {
			t.Errorf("%q.Or() = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestProfilePermissions(t *testing.T) {
	base := Profile{ID: "x", Name: "X", Command: "x", Prompt: PromptNone}
	tests := []struct {
		name   string
		perms  map[Permission][]string
		want   string // a piece of the error, "" for valid
		offers []Permission
	}{
		{"none offers ask", nil, "", []Permission{"", PermissionAsk}},
		{"all three", map[Permission][]string{"ask": {"--mode", "ask"}, "edits": {"--mode=edits"}, "auto": {"--yolo"}}, "",
			[]Permission{"", PermissionAsk, PermissionEdits, PermissionAuto}},
		{"only edits and auto", map[Permission][]string{"edits": nil, "auto": {"--yolo"}}, "", []Permission{PermissionEdits, PermissionAuto}},
		{"unknown mode", map[Permission][]string{"yolo": {"--yolo"}}, `"yolo" is not a mode`, nil},
		{"empty mode", map[Permission][]string{"": {"--yolo"}}, "is not a mode", nil},
		{"unknown placeholder", map[Permission][]string{"auto": {"--dir={worktree}"}}, "{worktree}", nil},
		{"not text", map[Permission][]string{"auto": {"a\x00"}}, "not text", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := base
			p.Permissions = tt.perms
			err := p.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.want) || CodeOf(err) != CodeInvalidArgument {
				t.Fatalf("Validate = %v, want invalid_argument with %q", err, tt.want)
			}
			for _, m := range Permissions() {
				want := false
				for _, o := range tt.offers {
					want = want || o.Or() == m
				}
				if tt.want == "" && p.Offers(m) != want {
					t.Errorf("Offers(%q) = %v, want %v", m, p.Offers(m), want)
				}
			}
		})
	}
}

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
		s, err := tx.CreateSession(SessionSpec{Kind: SessionSupervised, Permission: PermissionEdits})
		if err != nil {
			return err
		}
		if s.Permission != PermissionEdits {
			t.Errorf("recorded %q", s.Permission)
		}
		if _, err := tx.CreateSession(SessionSpec{Kind: SessionSupervised, Permission: "yolo"}); CodeOf(err) != CodeInvalidArgument {
			t.Errorf("an unknown mode: %v", err)
		}
		return nil
	})
}
