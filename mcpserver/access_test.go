package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

// objectWorld is two repositories with objects in each: what the scope
// tests call methods on.
type objectWorld struct {
	f            *fixture
	repoA, repoB store.Repository
	// In A, owned by a token granted on A: a queued packet, a packet
	// leased to A's session, the session and a question it asked.
	queuedA, leasedA, sessionA, questionA string
	// stranger holds every capability there is, on B only, and has a
	// session of its own in B.
	stranger Principal
	sessionB string
	queuedB  string
}

func newObjectWorld(t *testing.T) *objectWorld {
	t.Helper()
	w := &objectWorld{f: newFixture(t)}
	f := w.f
	w.repoA = f.registerRepo(t, "/src/a")
	w.repoB = f.registerRepo(t, "/src/b")
	var everything []store.Grant
	for _, c := range append(store.AgentCapabilities(), store.CapWorkAuthor, store.CapAdmin) {
		everything = append(everything, store.Grant{Capability: c, Repositories: []string{w.repoB.ID}})
	}
	owner, _ := f.createToken(t, store.TokenSpec{Label: "a", Kind: store.KindClient, Grants: allGrants()})
	stranger, _ := f.createToken(t, store.TokenSpec{Label: "b", Kind: store.KindClient, Grants: everything})
	w.stranger = TokenPrincipal(stranger)

	create := func(repo string) string {
		res := f.invoke(OperatorPrincipal(), TransportGUI, "work.create", fmt.Sprintf(`{"repository_id":%q,"title":"t"}`, repo))
		wantCode(t, res, "ok")
		return res.Value.(PacketResult).Packet.ID
	}
	open := func(p Principal, repo string) string {
		res := f.invoke(p, TransportMCP, "session.report", fmt.Sprintf(`{"kind":"ready","repository_id":%q}`, repo))
		wantCode(t, res, "ok")
		return res.Value.(ReportResult).SessionID
	}
	w.leasedA = create(w.repoA.ID)
	w.sessionA = open(TokenPrincipal(owner), w.repoA.ID)
	res := f.invoke(TokenPrincipal(owner), TransportMCP, "work.await_packet",
		fmt.Sprintf(`{"repository_id":%q,"session_id":%q,"wait_seconds":-1}`, w.repoA.ID, w.sessionA))
	wantCode(t, res, "ok")
	if got := res.Value.(AwaitResult).Packet; got == nil || got.ID != w.leasedA {
		t.Fatalf("claimed %+v, want %s", got, w.leasedA)
	}
	w.queuedA = create(w.repoA.ID)
	res = f.invoke(TokenPrincipal(owner), TransportMCP, "session.report",
		fmt.Sprintf(`{"kind":"question","session_id":%q,"text":"which branch?"}`, w.sessionA))
	wantCode(t, res, "ok")
	w.questionA = res.Value.(ReportResult).QuestionID
	w.queuedB = create(w.repoB.ID)
	w.sessionB = open(w.stranger, w.repoB.ID)
	return w
}

// argsOn names an object of kind o: in A when inA, else in B.
func (w *objectWorld) argsOn(o Object, inA bool, packet string) string {
	repo, session := w.repoB.ID, w.sessionB
	if inA {
		repo, session = w.repoA.ID, w.sessionA
	}
	switch o {
	case Repository:
		return fmt.Sprintf(`{"repository_id":%q}`, repo)
	case Packet:
		return fmt.Sprintf(`{"packet_id":%q,"session_id":%q,"lease_id":"lease_x"}`, packet, w.sessionB)
	case Session, OwnSession:
		return fmt.Sprintf(`{"session_id":%q}`, session)
	case Question:
		if inA {
			return fmt.Sprintf(`{"question_id":%q}`, w.questionA)
		}
		return `{"question_id":"q_nope"}`
	}
	return ""
}

// Every method that acts on an object, called by a token that holds every
// capability on another repository only, is refused with
// capability_scope_mismatch, and the refusal says nothing of the object.
// A method registered without an object declaration panics in New; one
// declared Global must be on the list below, so acting on no object is a
// choice someone made.
func TestEveryObjectMethodIsScoped(t *testing.T) {
	w := newObjectWorld(t)
	global := map[string]bool{
		"status": true, "repository.register": true, "repository.list": true, "audit.verify": true,
		"profile.list": true, "profile.put": true, "profile.delete": true, "agent.list": true,
		"tools.search": true, "tools.describe": true, "resource.policies": true, "resource.tools_catalog": true,
		"resource.repositories": true, "question.list": true, "connection.get": true, "connection.put": true, "sandbox.get": true, "sandbox.put": true,
		"token.create": true, "token.list": true, "token.revoke": true, "token.rotate": true, "token.client": true,
		"work.expire_leases": true, "prompt.workflow": true, "workspace.list": true,
		"token.revoke_stale_ephemeral": true, "client_token.import": true, "client_token.adopt": true,
		"client_token.mint": true, "client_token.mark_ephemeral": true, "connection.remember_port": true,
		"work.land_recover": true, "instance.sweep_lost": true, "team.status": true,
	}
	// What a refusal must not mention, unless the caller named it: the
	// other repository, its objects' states, its session.
	secrets := []string{w.repoA.ID, w.sessionA, "queued", "claimed", "leased", "in_review", "not found", "no packet", "no session"}
	checked := 0
	for _, m := range w.f.reg.Methods() {
		if m.Object == Global {
			if !global[m.Name] {
				t.Errorf("%s is declared Global but is not on the list of methods that act on no object", m.Name)
			}
			continue
		}
		var cases []string
		switch m.Object {
		case Packet:
			cases = []string{w.argsOn(Packet, true, w.queuedA), w.argsOn(Packet, true, w.leasedA), w.argsOn(Packet, true, "pkt_nope")}
		case OwnSession:
			cases = []string{w.argsOn(OwnSession, true, ""), fmt.Sprintf(`{"kind":"ready","repository_id":%q}`, w.repoA.ID)}
		case Question:
			cases = []string{w.argsOn(Question, true, ""), w.argsOn(Question, false, "")}
		case Session:
			cases = []string{w.argsOn(Session, true, ""), `{"session_id":"ses_nope"}`}
		default:
			cases = []string{w.argsOn(m.Object, true, "")}
		}
		for _, args := range cases {
			for _, tr := range []Transport{TransportRPC, TransportMCP} {
				if tr.IsMCP() && m.Flags&Hidden != 0 {
					continue
				}
				res := w.f.invoke(w.stranger, tr, m.Name, args)
				if res.Code() != store.CodeCapabilityScopeMismatch {
					t.Errorf("%s over %s with %s: %q (%v), want capability_scope_mismatch", m.Name, tr, args, res.Code(), res.Err)
					continue
				}
				for _, s := range secrets {
					// What the caller sent may come back; nothing else.
					if strings.Contains(res.Err.Error(), s) && !strings.Contains(args, s) {
						t.Errorf("%s with %s: the refusal %q mentions %q", m.Name, args, res.Err, s)
					}
				}
				if rec := w.f.auditRecord(t, res.AuditID); rec.Repository == w.repoA.ID && !strings.Contains(args, w.repoA.ID) {
					t.Errorf("%s: the refusal's audit record names the object's repository", m.Name)
				}
				checked++
			}
		}
		// The same call on the stranger's own repository gets past
		// authorization: the test tells scope from everything else.
		own := w.argsOn(m.Object, false, w.queuedB)
		if m.Object == Question || m.Object == OwnSession && m.Name != "session.report" {
			continue
		}
		if res := w.f.invoke(w.stranger, TransportRPC, m.Name, own); res.Code() == store.CodeCapabilityScopeMismatch {
			t.Errorf("%s with %s on the token's own repository: %v", m.Name, own, res.Err)
		}
	}
	if checked < 40 {
		t.Errorf("only %d refusals checked", checked)
	}
}

// A token with work:claim on A and B but artifact:write on A only claims in
// B: it cannot publish there, so the packet cannot complete with its
// artifact either.
func TestWriteScopedToPacketRepository(t *testing.T) {
	f := newFixture(t)
	a := f.registerRepo(t, "/src/a")
	b := f.registerRepo(t, "/src/b")
	tok, _ := f.createToken(t, store.TokenSpec{Label: "mixed", Kind: store.KindClient, Grants: []store.Grant{
		{Capability: store.CapWorkClaim, Repositories: []string{a.ID, b.ID}},
		{Capability: store.CapSessionReport, Repositories: []string{a.ID, b.ID}},
		{Capability: store.CapArtifactWrite, Repositories: []string{a.ID}},
	}})
	p := TokenPrincipal(tok)
	res := f.invoke(OperatorPrincipal(), TransportGUI, "work.create", fmt.Sprintf(`{"repository_id":%q,"title":"t","expected_artifacts":[{"name":"report"}]}`, b.ID))
	wantCode(t, res, "ok")
	pkt := res.Value.(PacketResult).Packet.ID
	res = f.invoke(p, TransportMCP, "session.report", fmt.Sprintf(`{"kind":"ready","repository_id":%q}`, b.ID))
	wantCode(t, res, "ok")
	ses := res.Value.(ReportResult).SessionID
	res = f.invoke(p, TransportMCP, "work.await_packet", fmt.Sprintf(`{"repository_id":%q,"session_id":%q,"wait_seconds":-1}`, b.ID, ses))
	wantCode(t, res, "ok")
	lease := res.Value.(AwaitResult).LeaseID
	lease_ := fmt.Sprintf(`"packet_id":%q,"session_id":%q,"lease_id":%q`, pkt, ses, lease)
	wantCode(t, f.invoke(p, TransportMCP, "work.ack", "{"+lease_+"}"), "ok")
	wantCode(t, f.invoke(p, TransportMCP, "artifact.publish", "{"+lease_+`,"name":"report","content":"x"}`), store.CodeCapabilityScopeMismatch)
	wantCode(t, f.invoke(p, TransportMCP, "work.complete", "{"+lease_+"}"), store.CodeArtifactsMissing)
	wantCode(t, f.invoke(p, TransportMCP, "work.release", "{"+lease_+`,"summary":"cannot publish"}`), "ok")
}

// session.report: a packet of a repository the token holds nothing on is
// refused as out of scope, and a session cannot be opened in no repository.
func TestReportScopedToSessionRepository(t *testing.T) {
	w := newObjectWorld(t)
	f := w.f
	for _, tc := range []struct {
		name string
		args string
		want store.Code
	}{
		{"own packet", fmt.Sprintf(`{"kind":"heartbeat","session_id":%q,"packet_id":%q}`, w.sessionB, w.queuedB), "ok"},
		{"packet of another repository", fmt.Sprintf(`{"kind":"heartbeat","session_id":%q,"packet_id":%q}`, w.sessionB, w.queuedA), store.CodeCapabilityScopeMismatch},
		{"question on it", fmt.Sprintf(`{"kind":"question","text":"?","session_id":%q,"packet_id":%q}`, w.sessionB, w.leasedA), store.CodeCapabilityScopeMismatch},
		{"packet that does not exist", fmt.Sprintf(`{"kind":"heartbeat","session_id":%q,"packet_id":"pkt_nope"}`, w.sessionB), store.CodeCapabilityScopeMismatch},
		{"ready in no repository", `{"kind":"ready"}`, store.CodeInvalidArgument},
		{"ready in another repository", fmt.Sprintf(`{"kind":"ready","repository_id":%q}`, w.repoA.ID), store.CodeCapabilityScopeMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, f.invoke(w.stranger, TransportMCP, "session.report", tc.args), tc.want)
		})
	}
	// The operator opens no session in no repository either.
	wantCode(t, f.invoke(OperatorPrincipal(), TransportGUI, "session.report", `{"kind":"ready"}`), store.CodeInvalidArgument)
}

// status and repository.list answer within the token's scope.
func TestStatusScopedToToken(t *testing.T) {
	w := newObjectWorld(t)
	f := w.f
	f.registerRepo(t, "/src/c")
	type view struct {
		counts store.Counts
		repos  []string
	}
	look := func(p Principal) view {
		t.Helper()
		res := f.invoke(p, TransportMCP, "status", "")
		wantCode(t, res, "ok")
		list := f.invoke(p, TransportMCP, "repository.list", "")
		wantCode(t, list, "ok")
		v := view{counts: res.Value.(StatusResult).Counts}
		for _, r := range list.Value.(RepositoryList).Repositories {
			v.repos = append(v.repos, r.ID)
		}
		return v
	}
	scoped := look(w.stranger)
	if want := (store.Counts{Repositories: 1, Scoped: true}); scoped.counts != want {
		t.Errorf("scoped token's counts %+v, want %+v", scoped.counts, want)
	}
	if len(scoped.repos) != 1 || scoped.repos[0] != w.repoB.ID {
		t.Errorf("scoped token lists %v, want [%s]", scoped.repos, w.repoB.ID)
	}
	all := look(OperatorPrincipal())
	if all.counts.Scoped || all.counts.Repositories != 3 || all.counts.Tokens != 2 || all.counts.AuditRecords == 0 || len(all.repos) != 3 {
		t.Errorf("operator sees %+v and %v", all.counts, all.repos)
	}
	b, _ := json.Marshal(scoped.counts)
	if !strings.Contains(string(b), `"scoped":true`) {
		t.Errorf("scoped counts say nothing of it: %s", b)
	}
}
