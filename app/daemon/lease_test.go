package daemon

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// A lease that runs out returns its packet to the queue without anyone
// polling: the daemon's timer does it.
func TestLeaseExpiresWithoutPolling(t *testing.T) {
	d := start(t, Config{Paths: newPaths(t), Listen: mcpserver.ListenAddr{Off: true}, Keyring: keyring.NewMemory()})
	reg := d.Registry()
	call := func(p mcpserver.Principal, method string, args any) mcpserver.Result {
		b, _ := json.Marshal(args)
		res := reg.Invoke(context.Background(), p, mcpserver.TransportRPC, method, b)
		if res.Err != nil {
			t.Fatalf("%s: %v", method, res.Err)
		}
		return res
	}
	repo := call(mcpserver.OperatorPrincipal(), "repository.register", map[string]any{"path": t.TempDir()}).Value.(mcpserver.RepositoryRegistered).Repository
	pkt := call(mcpserver.OperatorPrincipal(), "work.create", map[string]any{"repository_id": repo.ID, "title": "t"}).Value.(mcpserver.PacketResult).Packet
	ses := call(mcpserver.OperatorPrincipal(), "session.report", map[string]any{"kind": "ready", "repository_id": repo.ID}).Value.(mcpserver.ReportResult).SessionID
	claimed := call(mcpserver.OperatorPrincipal(), "work.await_packet", map[string]any{"repository_id": repo.ID, "session_id": ses, "lease_seconds": 1}).Value.(mcpserver.AwaitResult)
	if claimed.Packet == nil || claimed.Packet.ID != pkt.ID {
		t.Fatalf("claim: %+v", claimed)
	}
	waitUntil(t, "the packet queued again once its 1 s lease expired", func() bool {
		got := call(mcpserver.OperatorPrincipal(), "work.get", map[string]any{"packet_id": pkt.ID}).Value.(mcpserver.WorkGetResult).Packet
		return got.State == store.PacketState("queued") && got.Lease == nil
	})
}

// A supervised session left running by a run that crashed is ended as lost
// at the next start: its lease goes back to the queue, its token is revoked.
func TestStartEndsSessionsOfACrashedRun(t *testing.T) {
	paths := newPaths(t)
	kr := keyring.NewMemory()
	d := start(t, Config{Paths: paths, Listen: mcpserver.ListenAddr{Off: true}, Keyring: kr})
	var sesID, pktID, tokKey string
	err := d.db.Update(context.Background(), func(tx *store.Tx) error {
		repo, _, err := tx.RegisterRepository("", t.TempDir())
		if err != nil {
			return err
		}
		id := store.NewID("ses")
		tok, _, err := tx.CreateToken(store.TokenSpec{Kind: store.KindSession, SessionID: id, Grants: []store.Grant{{Capability: store.CapWorkClaim, Repositories: []string{repo.ID}}}})
		if err != nil {
			return err
		}
		s, err := tx.CreateSession(store.SessionSpec{ID: id, Kind: store.SessionSupervised, RepositoryID: repo.ID, TokenKeyID: tok.KeyID})
		if err != nil {
			return err
		}
		p, err := tx.CreatePacket(store.PacketSpec{RepositoryID: repo.ID, Title: "t"})
		if err != nil {
			return err
		}
		if _, ok, err := tx.ClaimPacket(repo.ID, s.ID, time.Hour); err != nil || !ok {
			return err
		}
		sesID, pktID, tokKey = s.ID, p.ID, tok.KeyID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d.stop() // as if it had crashed: nothing ended the session

	d = start(t, Config{Paths: paths, Listen: mcpserver.ListenAddr{Off: true}, Keyring: kr})
	d.db.View(context.Background(), func(tx *store.Tx) error {
		s, _ := tx.Session(sesID)
		p, _ := tx.Packet(pktID)
		tok, _, _ := tx.Token(tokKey)
		if s.State != store.SessionLost || p.State != "queued" || tok.RevokedAt == nil {
			t.Errorf("after restart: session %s, packet %s, token revoked %v", s.State, p.State, tok.RevokedAt != nil)
		}
		return nil
	})
}
