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
