package mcpserver

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/switchboard-dev/switchboard/internal/benchrun"
	"github.com/switchboard-dev/switchboard/store"
)

// One tools/call of status over loopback HTTP: front layer (Host, Origin,
// token), SDK, registry (re-check, touch, handler) and the audit record,
// one fsync'd commit per call. "sdk" is a go-sdk client session; "json"
// is one keep-alive HTTP client posting a prepared body, so its allocations
// are mostly the server's.
// The registry alone: a token principal's status call with its audit
// record, one commit per call.
func BenchmarkRegistryInvokeStatus(b *testing.B) {
	f := newFixture(b)
	tok, _ := f.createClientToken(b)
	p := TokenPrincipal(tok)
	b.ReportAllocs()
	for b.Loop() {
		if res := f.reg.Invoke(b.Context(), p, TransportMCP, "status", nil); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}

// Audited mutating calls from 16 concurrent callers of the registry itself,
// as the GUI, the CLI and the supervisor call it: session.report
// heartbeats, each caller its own session, committed in groups. The same
// calls as BenchmarkToolsCallHeartbeat without HTTP and JSON-RPC, so what
// is left is the group commit.
func BenchmarkRegistryInvokeHeartbeat(b *testing.B) {
	f := newFixture(b)
	tok, _ := f.createClientToken(b)
	p := TokenPrincipal(tok)
	repo := f.registerRepo(b, b.TempDir())
	const callers = 16
	var args []json.RawMessage
	for range callers {
		res := f.reg.Invoke(b.Context(), p, TransportMCP, "session.report", json.RawMessage(fmt.Sprintf(`{"kind":"ready","repository_id":%q}`, repo.ID)))
		if res.Err != nil {
			b.Fatal(res.Err)
		}
		args = append(args, fmt.Appendf(nil, `{"kind":"heartbeat","session_id":%q,"text":"working"}`, res.Value.(ReportResult).SessionID))
	}
	benchrun.Callers(b, callers, func(i int) error {
		return f.reg.Invoke(b.Context(), p, TransportMCP, "session.report", args[i]).Err
	})
}

// Audited mutating calls from 16 concurrent clients over loopback HTTP:
// session_report heartbeats, each its own session, so every call is a
// report, a session update, a trace event and an audit record, committed
// in groups. Compare with the store's BenchmarkHeartbeatBatch and the
// fsync rate of one Update per call.
// What resolving a call's object costs: work.get of one packet, read-only
// (no commit but the audit record's), by a token whose grant is checked on
// the packet's repository, beside the operator, whose calls are not
// authorized at all (the baseline of the same run).
func BenchmarkRegistryInvokePacketObject(b *testing.B) {
	f := newFixture(b)
	repo := f.registerRepo(b, "/src/app")
	tok, _ := f.createToken(b, store.TokenSpec{Label: "scoped", Kind: store.KindSession, Grants: []store.Grant{
		{Capability: store.CapWorkRead, Repositories: []string{repo.ID}},
	}})
	res := f.invoke(OperatorPrincipal(), TransportGUI, "work.create", fmt.Sprintf(`{"repository_id":%q,"title":"t"}`, repo.ID))
	if res.Err != nil {
		b.Fatal(res.Err)
	}
	args := json.RawMessage(fmt.Sprintf(`{"packet_id":%q}`, res.Value.(PacketResult).Packet.ID))
	for _, c := range []struct {
		name string
		p    Principal
	}{{"operator", OperatorPrincipal()}, {"scoped-token", TokenPrincipal(tok)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := f.reg.Invoke(b.Context(), c.p, TransportMCP, "work.get", args); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}

// One work.complete by an agent's token, without a worktree: its Prepare's
// read, then the write (authorization, the lease's end, the session's
// share of usage, two trace events and the audit record), one commit. The
// packet is created and claimed outside the timed part.
func BenchmarkRegistryInvokeComplete(b *testing.B) {
	f := newFixture(b)
	tok, _ := f.createClientToken(b)
	p := TokenPrincipal(tok)
	repo := f.registerRepo(b, b.TempDir())
	res := f.reg.Invoke(b.Context(), p, TransportMCP, "session.report", json.RawMessage(fmt.Sprintf(`{"kind":"ready","repository_id":%q}`, repo.ID)))
	if res.Err != nil {
		b.Fatal(res.Err)
	}
	ses := res.Value.(ReportResult).SessionID
	create := json.RawMessage(fmt.Sprintf(`{"repository_id":%q,"title":"t"}`, repo.ID))
	await := json.RawMessage(fmt.Sprintf(`{"repository_id":%q,"session_id":%q,"wait_seconds":1}`, repo.ID, ses))
	claim := func() json.RawMessage {
		if res := f.reg.Invoke(b.Context(), OperatorPrincipal(), TransportGUI, "work.create", create); res.Err != nil {
			b.Fatal(res.Err)
		}
		res := f.reg.Invoke(b.Context(), p, TransportMCP, "work.await_packet", await)
		if res.Err != nil {
			b.Fatal(res.Err)
		}
		got := res.Value.(AwaitResult)
		return json.RawMessage(fmt.Sprintf(`{"packet_id":%q,"session_id":%q,"lease_id":%q,"summary":"done"}`, got.Packet.ID, ses, got.LeaseID))
	}
	complete := func(args json.RawMessage) {
		if res := f.reg.Invoke(b.Context(), p, TransportMCP, "work.complete", args); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
	// What the first completion of a process does once is not counted.
	complete(claim())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		args := claim()
		b.StartTimer()
		complete(args)
	}
}
