package store

import (
	"slices"
	"testing"
	"time"
)

// A person makes a session a packet's reviewer: never one that worked on
// it, an ended one, one of another repository, nor on a packet with
// nothing left to judge; "" takes the assignment away.
func TestAssignReviewer(t *testing.T) {
	w := newWorkEnv(t)
	other := w.addRepo(t.TempDir())
	session := func(repoID string) string {
		t.Helper()
		var id string
		mustUpdate(t, w.db, func(tx *Tx) error {
			s, err := tx.CreateSession(SessionSpec{Kind: SessionExternal, RepositoryID: repoID})
			id = s.ID
			return err
		})
		return id
	}
	assign := func(pkt, ses string) (Packet, error) {
		t.Helper()
		return w.pkt(func(tx *Tx) (Packet, error) { return tx.AssignReviewer(pkt, ses) })
	}

	p := w.create(PacketSpec{ReviewRequired: true})
	worker := session(w.repo.ID)
	claimed, ok, err := w.claimFrom(w.repo.ID, worker, time.Minute)
	if err != nil || !ok || claimed.ID != p.ID {
		t.Fatalf("claim: %+v %v %v", claimed, ok, err)
	}
	if _, err := w.complete(claimed, "done"); err != nil {
		t.Fatal(err)
	}
	if got := w.get(p.ID).WorkedBy(); !slices.Equal(got, []string{worker}) {
		t.Errorf("WorkedBy = %v, want [%s]", got, worker)
	}

	reviewer, stranger, ended := session(w.repo.ID), session(other.ID), session(w.repo.ID)
	mustUpdate(t, w.db, func(tx *Tx) error {
		_, err := tx.EndSession(ended, SessionEnded, nil, "done")
		return err
	})
	for _, tt := range []struct {
		name, pkt, ses string
		code           Code
	}{
		{"the session that did the work", p.ID, worker, CodeInvalidArgument},
		{"a session of another repository", p.ID, stranger, CodeInvalidArgument},
		{"an ended session", p.ID, ended, CodeInvalidState},
		{"an unknown session", p.ID, "ses_nope", CodeNotFound},
		{"an unknown packet", "pkt_nope", reviewer, CodeNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := assign(tt.pkt, tt.ses)
			wantWorkCode(t, err, tt.code, "assign")
			if got := w.get(p.ID).Reviewer; got != "" {
				t.Errorf("a refused assignment left reviewer %q", got)
			}
		})
	}

	got, err := assign(p.ID, reviewer)
	if err != nil || got.Reviewer != reviewer || w.get(p.ID).Reviewer != reviewer {
		t.Fatalf("assign: %+v, %v", got.Reviewer, err)
	}
	if got, err := assign(p.ID, ""); err != nil || got.Reviewer != "" {
		t.Fatalf("unassign: %q, %v", got.Reviewer, err)
	}

	rejected := w.packetIn(PacketFailed)
	_, err = assign(rejected.ID, reviewer)
	wantWorkCode(t, err, CodeInvalidState, "assign on a failed packet")
}
