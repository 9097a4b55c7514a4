package store

import (
	"context"
	"strings"
	"testing"
)

// A session that ended with the app is re-opened by a resume: live again
// under the same id, with a new token, its workspace and conversation id
// kept, listed once.
func TestReopenSession(t *testing.T) {
	db := openTestDB(t, Options{})
	const conv = "0b9c3a4e-7f00-4c1a-9d2e-5a6b7c8d9e0f"
	s := createSession(t, db, SessionSpec{Kind: SessionSupervised, ConversationID: conv})
	ws := Workspace{Path: "/data/worktrees/repo_1/" + s.ID, Branch: "switchboard/1a2b3c4d-fix", BaseBranch: "main", BaseCommit: strings.Repeat("0f", 20)}
	other := createSession(t, db, SessionSpec{Kind: SessionSupervised})
	var tok Token
	mustUpdate(t, db, func(tx *Tx) error {
		if _, err := tx.SetSessionWorkspace(s.ID, ws); err != nil {
			return err
		}
		var err error
		tok, _, err = tx.CreateToken(TokenSpec{Kind: KindSession, SessionID: s.ID})
		return err
	})
	reopen := func(id string) error {
		return db.Update(context.Background(), func(tx *Tx) error { _, err := tx.ReopenSession(id, tok.KeyID, 0); return err })
	}
	if err := reopen(s.ID); CodeOf(err) != CodeInvalidState {
		t.Errorf("re-opening a live session: %v, want invalid_state", err)
	}
	mustUpdate(t, db, func(tx *Tx) error { _, err := tx.EndSession(s.ID, SessionEnded, exitCodeOf(0), "exited"); return err })
	if got := getSession(t, db, s.ID); got.Resumable() {
		t.Errorf("a session whose agent exited is resumable")
	}
	if err := reopen(s.ID); CodeOf(err) != CodeInvalidState {
		t.Errorf("re-opening a session that did not end with the app: %v, want invalid_state", err)
	}
	mustUpdate(t, db, func(tx *Tx) error { _, err := tx.MarkEndedWithApp(s.ID); return err })
	if got := getSession(t, db, s.ID); !got.Resumable() {
		t.Fatalf("a session that ended with the app is not resumable: %+v", got)
	}
	// The other session has no conversation id and no worktree.
	mustUpdate(t, db, func(tx *Tx) error {
		if _, err := tx.EndSession(other.ID, SessionLost, nil, "crash"); err != nil {
			return err
		}
		_, err := tx.MarkEndedWithApp(other.ID)
		return err
	})
	if err := reopen(other.ID); CodeOf(err) != CodeInvalidState || !strings.Contains(err.Error(), "conversation") {
		t.Errorf("re-opening a session without a conversation id: %v, want invalid_state naming the conversation", err)
	}
	if err := db.Update(context.Background(), func(tx *Tx) error { _, err := tx.ReopenSession(s.ID, "tok_missing", 0); return err }); CodeOf(err) != CodeInvalidArgument {
		t.Errorf("re-opening with an unknown token: %v, want invalid_argument", err)
	}
	if err := reopen(s.ID); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	got := getSession(t, db, s.ID)
	if got.State != SessionStarting || got.TokenKeyID != tok.KeyID || got.EndedAt != nil || got.ExitCode != nil || got.EndReason != "" ||
		got.EndedWithApp || got.Resumes != 1 || got.ConversationID != conv || got.Workspace == nil || *got.Workspace != ws {
		t.Errorf("re-opened session %+v", got)
	}
	var live, all []Session
	mustView(t, db, func(tx *Tx) (err error) {
		if live, err = tx.RunningSessions(); err != nil {
			return err
		}
		all, err = tx.Sessions(SessionFilter{})
		return err
	})
	if len(live) != 1 || live[0].ID != s.ID {
		t.Errorf("live sessions %v, want only %s", live, s.ID)
	}
	if len(all) != 2 || all[1].ID != s.ID {
		t.Errorf("sessions listed %d times, in order %v", len(all), all)
	}
	if err := reopen(s.ID); CodeOf(err) != CodeInvalidState {
		t.Errorf("re-opening twice: %v, want invalid_state", err)
	}
}

func TestSetSessionConversation(t *testing.T) {
	db := openTestDB(t, Options{})
	s := createSession(t, db, SessionSpec{Kind: SessionSupervised})
	set := func(conv string) error {
		return db.Update(context.Background(), func(tx *Tx) error { _, err := tx.SetSessionConversation(s.ID, conv); return err })
	}
	for _, bad := range []string{"", "a b", "../x", strings.Repeat("a", 129), "-x"} {
		if err := set(bad); CodeOf(err) != CodeInvalidArgument {
			t.Errorf("conversation id %q: %v, want invalid_argument", bad, err)
		}
	}
	const conv = "019a7c3e-5b6d-7e8f-9a0b-1c2d3e4f5a6b"
	for range 2 {
		if err := set(conv); err != nil {
			t.Fatalf("set: %v", err)
		}
	}
	if err := set("019a7c3e-0000-7e8f-9a0b-1c2d3e4f5a6b"); CodeOf(err) != CodeInvalidState {
		t.Errorf("another id: %v, want invalid_state", err)
	}
	if got := getSession(t, db, s.ID).ConversationID; got != conv {
		t.Errorf("conversation id %q", got)
	}
	if err := db.Update(context.Background(), func(tx *Tx) error {
		_, err := tx.CreateSession(SessionSpec{Kind: SessionSupervised, ConversationID: "not valid"})
		return err
	}); CodeOf(err) != CodeInvalidArgument {
		t.Errorf("creating with a bad conversation id: %v", err)
	}
}
