package mcpserver

import (
	"context"
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

// Work never judges itself: the token whose session completed a packet
// may not approve it, nor may a session token judge any packet; a
// reviewer's own token and a person may.
func TestReviewNeverByTheWork(t *testing.T) {
	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, t.TempDir())
	worker := TokenPrincipal(f.token(t, f.clientKeyID(t)))
	ctx := context.Background()
	done := func() string {
		t.Helper()
		id := f.createPacket(t, repo.ID, map[string]any{"review_required": true})
		ses := f.invoke(worker, TransportMCP, "session.report", `{"kind":"ready","repository_id":"`+repo.ID+`"}`).Value.(ReportResult).SessionID
		got, err := Invoke(ctx, f.reg, worker, TransportMCP, MethodWorkAwaitPacket, AwaitArgs{RepositoryID: repo.ID, SessionID: ses, WaitSeconds: -1})
		if err != nil || got.Packet == nil || got.Packet.ID != id {
			t.Fatalf("claim: %+v, %v", got.Packet, err)
		}
		if _, err := Invoke(ctx, f.reg, worker, TransportMCP, MethodWorkComplete, CompleteArgs{PacketID: id, SessionID: ses, LeaseID: got.LeaseID}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	reviewerTok, _ := f.createToken(t, store.TokenSpec{Label: "reviewer", Grants: []store.Grant{{Capability: store.CapReviewWrite, Repositories: []string{repo.ID}}}})
	sessionTok := TokenPrincipal(store.Token{KeyID: worker.KeyID, SessionID: "ses_someone"})
	for _, tt := range []struct {
		name string
		p    Principal
		code store.Code
	}{
		{"the token that did the work", worker, store.CodeCapabilityScopeMismatch},
		{"a session", sessionTok, store.CodeCapabilityScopeMismatch},
		{"a reviewer's token", TokenPrincipal(reviewerTok), ""},
		{"a person", OperatorPrincipal(), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			id := done()
			_, err := Invoke(ctx, f.reg, tt.p, TransportMCP, MethodReviewVerdict, VerdictArgs{PacketID: id, Verdict: store.VerdictApprove})
			if store.CodeOf(err) != tt.code {
				t.Errorf("approve: %v, want %q", err, tt.code)
			}
		})
	}
}

// A session never judges a packet it worked on, and judges another
// session's only once a person made it that packet's reviewer
// (work.assign_reviewer, which no agent may call, and which refuses the
// session that did the work).
func TestReviewBySessionOnlyWhenAssigned(t *testing.T) {
	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, t.TempDir())
	ctx := context.Background()
	// sessionOf is a session with a token of its own, as a supervised
	// agent's session token is.
	sessionOf := func(label string) Principal {
		t.Helper()
		tok, _ := f.createToken(t, store.TokenSpec{Label: label, Grants: []store.Grant{
			{Capability: store.CapSessionReport, Repositories: []string{repo.ID}},
			{Capability: store.CapWorkClaim, Repositories: []string{repo.ID}},
			{Capability: store.CapReviewWrite, Repositories: []string{repo.ID}},
		}})
		p := TokenPrincipal(tok)
		p.SessionID = f.invoke(p, TransportMCP, "session.report", `{"kind":"ready","repository_id":"`+repo.ID+`"}`).Value.(ReportResult).SessionID
		return p
	}
	worker, reviewer := sessionOf("worker"), sessionOf("reviewer")
	id := f.createPacket(t, repo.ID, map[string]any{"review_required": true})
	got, err := Invoke(ctx, f.reg, worker, TransportMCP, MethodWorkAwaitPacket, AwaitArgs{RepositoryID: repo.ID, WaitSeconds: -1})
	if err != nil || got.Packet == nil || got.Packet.ID != id {
		t.Fatalf("claim: %+v, %v", got.Packet, err)
	}
	if _, err := Invoke(ctx, f.reg, worker, TransportMCP, MethodWorkComplete, CompleteArgs{PacketID: id, LeaseID: got.LeaseID}); err != nil {
		t.Fatal(err)
	}
	judge := func(p Principal, v store.Verdict) error {
		_, err := Invoke(ctx, f.reg, p, TransportMCP, MethodReviewVerdict, VerdictArgs{PacketID: id, Verdict: v, Notes: "n"})
		return err
	}
	assign := func(p Principal, tr Transport, ses string) error {
		_, err := Invoke(ctx, f.reg, p, tr, MethodWorkAssignReviewer, AssignReviewerArgs{PacketID: id, SessionID: ses})
		return err
	}

	for _, v := range []store.Verdict{store.VerdictApprove, store.VerdictReject} {
		if err := judge(worker, v); store.CodeOf(err) != store.CodeCapabilityScopeMismatch {
			t.Errorf("the session that did the work: %s gave %v", v, err)
		}
		if err := judge(reviewer, v); store.CodeOf(err) != store.CodeCapabilityScopeMismatch {
			t.Errorf("another session, unassigned: %s gave %v", v, err)
		}
	}
	if err := assign(reviewer, TransportMCP, reviewer.SessionID); store.CodeOf(err) != store.CodeToolHidden {
		t.Errorf("a session naming itself reviewer: %v", err)
	}
	if err := assign(OperatorPrincipal(), TransportRPC, worker.SessionID); store.CodeOf(err) != store.CodeInvalidArgument {
		t.Errorf("a person naming the worker its reviewer: %v", err)
	}
	if err := assign(OperatorPrincipal(), TransportRPC, reviewer.SessionID); err != nil {
		t.Fatalf("a person naming a reviewer: %v", err)
	}
	if err := judge(worker, store.VerdictApprove); store.CodeOf(err) != store.CodeCapabilityScopeMismatch {
		t.Errorf("the worker, once another is reviewer: %v", err)
	}
	if err := judge(reviewer, store.VerdictApprove); err != nil {
		t.Fatalf("the assigned reviewer: %v", err)
	}
	var p store.Packet
	f.view(t, func(tx *store.Tx) error { p, err = tx.Packet(id); return err })
	if p.State != store.PacketDone || p.Review == nil || p.Review.By != "session "+reviewer.SessionID || p.Landed != nil {
		t.Errorf("after the reviewer's approval: %s, review %+v, landed %+v", p.State, p.Review, p.Landed)
	}
}
