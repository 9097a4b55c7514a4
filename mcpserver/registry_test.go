package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// mustPanic runs fn and returns what it panicked with, failing the test if
// it did not panic.
func mustPanic(t *testing.T, fn func()) (v any) {
	t.Helper()
	defer func() {
		v = recover()
		if v == nil {
			t.Fatal("did not panic")
		}
	}()
	fn()
	return nil
}

func nopHandler(*Call) (any, error) { return "ok", nil }

func TestRegisterPanics(t *testing.T) {
	f := newFixture(t)
	t.Run("duplicate name", func(t *testing.T) {
		r := NewRegistry(f.db, Options{})
		r.Register(Method{Name: "x.y", Access: On(Global, store.CapStatusRead), Handler: nopHandler})
		mustPanic(t, func() { r.Register(Method{Name: "x.y", Access: On(Global, store.CapWorkRead), Handler: nopHandler}) })
	})
	t.Run("duplicate of a built-in", func(t *testing.T) {
		r := New(f.db, Options{})
		mustPanic(t, func() {
			r.Register(Method{Name: "status", Access: On(Global, store.CapStatusRead), Handler: nopHandler})
		})
	})
	t.Run("same tool name after mapping", func(t *testing.T) {
		r := NewRegistry(f.db, Options{})
		r.Register(Method{Name: "work.get", Access: On(Global, store.CapWorkRead), Handler: nopHandler})
		mustPanic(t, func() {
			r.Register(Method{Name: "work_get", Access: On(Global, store.CapWorkRead), Handler: nopHandler})
		})
	})
	t.Run("no handler", func(t *testing.T) {
		r := NewRegistry(f.db, Options{})
		mustPanic(t, func() { r.Register(Method{Name: "a", Access: On(Global, store.CapStatusRead)}) })
	})
	t.Run("no capability", func(t *testing.T) {
		r := NewRegistry(f.db, Options{})
		mustPanic(t, func() { r.Register(Method{Name: "a", Handler: nopHandler}) })
	})
	t.Run("no object", func(t *testing.T) {
		r := NewRegistry(f.db, Options{})
		mustPanic(t, func() {
			r.Register(Method{Name: "a", Access: Access{Capability: store.CapWorkRead}, Handler: nopHandler})
		})
	})
}

// Every built-in method maps to a tool name clients accept, and back.
func TestToolNames(t *testing.T) {
	f := newFixture(t)
	valid := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	seen := map[string]string{}
	for _, m := range f.reg.Methods() {
		name := ToolName(m.Name)
		if !valid.MatchString(name) || len(name) > 40 {
			t.Errorf("method %s: tool name %q is not ^[a-z][a-z0-9_]*$ of at most 40", m.Name, name)
		}
		if other, dup := seen[name]; dup {
			t.Errorf("methods %s and %s share the tool name %s", other, m.Name, name)
		}
		seen[name] = m.Name
		for _, n := range []string{name, m.Name} {
			got, ok := f.reg.MethodForTool(n)
			if !ok || got.Name != m.Name {
				t.Errorf("MethodForTool(%q) = %v, %v; want %s", n, got, ok, m.Name)
			}
		}
		if m.Capability == store.CapAdmin || m.Capability == store.CapWorkAuthor {
			if m.Flags&Hidden == 0 {
				t.Errorf("method %s needs %s but is not hidden from MCP", m.Name, m.Capability)
			}
		}
	}
	if _, ok := f.reg.MethodForTool("no_such_tool"); ok {
		t.Error("MethodForTool found a method for no_such_tool")
	}
	if got := ToolName("work.await_packet"); got != "work_await_packet" {
		t.Errorf("ToolName(work.await_packet) = %q", got)
	}
}

func TestInvokeUnknownMethod(t *testing.T) {
	f := newFixture(t)
	tok, _ := f.createClientToken(t)
	p := TokenPrincipal(tok)
	for _, tc := range []struct {
		p  Principal
		tr Transport
	}{{p, TransportMCP}, {OperatorPrincipal(), TransportRPC}} {
		res := f.invoke(tc.p, tc.tr, "no.such_method", `{"a":1}`)
		wantCode(t, res, store.CodeMethodUnknown)
		rec := f.auditRecord(t, res.AuditID)
		if rec.Method != "no.such_method" || rec.Outcome != string(store.CodeMethodUnknown) ||
			rec.Transport != string(tc.tr) || rec.KeyID != tc.p.KeyID || rec.ArgsDigest != store.ArgsDigest([]byte(`{"a":1}`)) {
			t.Errorf("audit record %+v", rec)
		}
	}
}

func TestInvokeHiddenMethod(t *testing.T) {
	f := newFixture(t)
	// A token that holds admin (only the operator should): hidden methods
	// still fail closed over every MCP transport.
	grants := append(allGrants(), store.Grant{Capability: store.CapAdmin, Repositories: []string{"*"}})
	tok, _ := f.createToken(t, store.TokenSpec{Label: "admin-ish", Grants: grants})
	for _, tr := range []Transport{TransportMCP, TransportMCPSSE, TransportMCPStdio} {
		for _, p := range []Principal{TokenPrincipal(tok), OperatorPrincipal()} {
			res := f.invoke(p, tr, "token.list", "")
			wantCode(t, res, store.CodeToolHidden)
			if res.Value != nil {
				t.Errorf("%s over %s: hidden method returned a value", "token.list", tr)
			}
			rec := f.auditRecord(t, res.AuditID)
			if rec.Outcome != string(store.CodeToolHidden) || rec.Transport != string(tr) || rec.Method != "token.list" {
				t.Errorf("audit record %+v", rec)
			}
		}
	}
	for _, tr := range []Transport{TransportRPC, TransportGUI} {
		res := f.invoke(OperatorPrincipal(), tr, "token.list", "")
		wantCode(t, res, "ok")
	}
}

// Token denials, each audited with its code, each rolling back the call
// (including TouchToken).
func TestInvokeTokenDenials(t *testing.T) {
	f := newFixture(t)
	repoA := f.registerRepo(t, "/src/a")
	repoB := f.registerRepo(t, "/src/b")
	past := f.clock.Now().Add(-time.Minute)
	future := f.clock.Now().Add(time.Hour)

	statusOnly, _ := f.createToken(t, store.TokenSpec{Label: "status", Grants: []store.Grant{{Capability: store.CapStatusRead, Repositories: []string{"*"}}}})
	scopedA, _ := f.createToken(t, store.TokenSpec{Label: "a", Grants: []store.Grant{{Capability: store.CapAuditRead, Repositories: []string{repoA.ID}}}})
	grantExpired, _ := f.createToken(t, store.TokenSpec{Label: "grant expired", Grants: []store.Grant{{Capability: store.CapAuditRead, Repositories: []string{"*"}, ExpiresAt: &past}}})
	expiring, _ := f.createToken(t, store.TokenSpec{Label: "expiring", Grants: allGrants(), ExpiresAt: &future})
	revoked, rawRevoked := f.createToken(t, store.TokenSpec{Label: "revoked", Grants: allGrants()})

	// Authenticated by a transport a moment ago...
	var authed store.Token
	f.view(t, func(tx *store.Tx) error {
		var err error
		authed, err = tx.Authenticate(rawRevoked)
		return err
	})
	// ...then revoked before its call runs.
	f.update(t, func(tx *store.Tx) error { _, err := tx.RevokeToken(revoked.KeyID); return err })
	f.clock.Add(2 * time.Hour) // expiring is now expired

	for _, tc := range []struct {
		name   string
		p      Principal
		method string
		args   string
		want   store.Code
	}{
		{"capability missing", TokenPrincipal(statusOnly), "audit.query", `{}`, store.CodeCapabilityMissing},
		{"scope mismatch", TokenPrincipal(scopedA), "audit.query", fmt.Sprintf(`{"repository_id":%q}`, repoB.ID), store.CodeCapabilityScopeMismatch},
		{"grant expired", TokenPrincipal(grantExpired), "audit.query", `{}`, store.CodeCapabilityExpired},
		{"repo not registered", TokenPrincipal(statusOnly), "status", `{"repository_id":"repo_nope"}`, store.CodeRepoNotRegistered},
		{"token expired", TokenPrincipal(expiring), "status", ``, store.CodeTokenExpired},
		{"revoked after authentication", TokenPrincipal(authed), "status", ``, store.CodeTokenRevoked},
		{"unknown key id", Principal{KeyID: "0123456789abcdef"}, "status", ``, store.CodeTokenInvalid},
		{"repository_id not a string", TokenPrincipal(statusOnly), "status", `{"repository_id":5}`, store.CodeInvalidArgument},
		{"arguments not an object", TokenPrincipal(statusOnly), "status", `[1]`, store.CodeInvalidArgument},
		{"unknown argument", TokenPrincipal(statusOnly), "status", `{"repo":"x"}`, store.CodeInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.audit(t))
			res := f.invoke(tc.p, TransportMCP, tc.method, tc.args)
			wantCode(t, res, tc.want)
			if res.Value != nil {
				t.Errorf("denied call returned a value: %v", res.Value)
			}
			var d *store.Denial
			if !errors.As(res.Err, &d) {
				t.Errorf("error %T is not a *store.Denial", res.Err)
			}
			recs := f.audit(t)
			if len(recs) != before+1 {
				t.Fatalf("%d audit records written, want 1", len(recs)-before)
			}
			rec := recs[len(recs)-1]
			if rec.ID != res.AuditID || rec.Outcome != string(tc.want) || rec.KeyID != tc.p.KeyID || rec.Method != tc.method || rec.Transport != "mcp" {
				t.Errorf("audit record %+v", rec)
			}
			if tc.p.KeyID != "" && tc.want != store.CodeTokenInvalid {
				if lu := f.token(t, tc.p.KeyID).LastUsedAt; lu != nil {
					t.Errorf("denied call marked the token used at %v", lu)
				}
			}
		})
	}
	// The scoped token works on its own repository.
	wantCode(t, f.invoke(TokenPrincipal(scopedA), TransportMCP, "audit.query", fmt.Sprintf(`{"repository_id":%q}`, repoA.ID)), "ok")
}

// testMethodRegistry is a registry with methods that write to the store and
// then succeed or fail, to watch rollback and AfterCommit.
func testMethodRegistry(f *fixture, committed *[]string) *Registry {
	r := NewRegistry(f.db, Options{Log: f.log})
	write := func(c *Call, name string) error {
		if err := c.Tx.SetSetting(name, "written"); err != nil {
			return err
		}
		c.AfterCommit(func() {
			// By now the write must be visible to a new transaction.
			var v string
			f.db.View(c.Ctx, func(tx *store.Tx) error { v = tx.Setting(name); return nil })
			*committed = append(*committed, name+"="+v)
		})
		return nil
	}
	r.Register(Method{Name: "test.ok", Access: On(Global, store.CapWorkClaim), Handler: func(c *Call) (any, error) {
		if err := write(c, "ok_setting"); err != nil {
			return nil, err
		}
		return map[string]string{"done": "yes"}, nil
	}})
	r.Register(Method{Name: "test.deny", Access: On(Global, store.CapWorkClaim), Handler: func(c *Call) (any, error) {
		if err := write(c, "deny_setting"); err != nil {
			return nil, err
		}
		return map[string]string{"partial": "result"}, store.Deny("lease_lost", "the lease moved on")
	}})
	r.Register(Method{Name: "test.fail", Access: On(Global, store.CapWorkClaim), Handler: func(c *Call) (any, error) {
		if err := write(c, "fail_setting"); err != nil {
			return nil, err
		}
		return nil, errors.New("disk on fire")
	}})
	return r
}

func TestInvokeHandlerErrorRollsBack(t *testing.T) {
	f := newFixture(t)
	var committed []string
	r := testMethodRegistry(f, &committed)
	tok, _ := f.createClientToken(t)
	p := TokenPrincipal(tok)

	for _, tc := range []struct {
		method, setting string
		want            store.Code
	}{
		{"test.deny", "deny_setting", "lease_lost"},
		{"test.fail", "fail_setting", store.CodeInternal},
	} {
		res := r.Invoke(t.Context(), p, TransportMCP, tc.method, json.RawMessage(`{"x":1}`))
		wantCode(t, res, tc.want)
		if res.Value != nil {
			t.Errorf("%s: failed call returned value %v", tc.method, res.Value)
		}
		f.view(t, func(tx *store.Tx) error {
			if v := tx.Setting(tc.setting); v != "" {
				t.Errorf("%s: its write survived the failure: %q", tc.method, v)
			}
			return nil
		})
		rec := f.auditRecord(t, res.AuditID)
		if rec.Outcome != string(tc.want) || rec.Method != tc.method || rec.KeyID != tok.KeyID || rec.ArgsDigest != store.ArgsDigest([]byte(`{"x":1}`)) {
			t.Errorf("%s: audit record %+v", tc.method, rec)
		}
	}
	if len(committed) != 0 {
		t.Errorf("AfterCommit ran for failed calls: %v", committed)
	}

	res := r.Invoke(t.Context(), p, TransportMCP, "test.ok", nil)
	wantCode(t, res, "ok")
	if want := []string{"ok_setting=written"}; fmt.Sprint(committed) != fmt.Sprint(want) {
		t.Errorf("AfterCommit calls %v, want %v", committed, want)
	}
	// A denial before the handler runs does not run it, nor AfterCommit.
	other, _ := f.createToken(t, store.TokenSpec{Label: "no claim", Grants: []store.Grant{{Capability: store.CapStatusRead, Repositories: []string{"*"}}}})
	wantCode(t, r.Invoke(t.Context(), TokenPrincipal(other), TransportMCP, "test.ok", nil), store.CodeCapabilityMissing)
	if len(committed) != 1 {
		t.Errorf("AfterCommit ran for a denied call: %v", committed)
	}
}

func TestInvokeSuccessAudit(t *testing.T) {
	f := newFixture(t)
	tok, _ := f.createToken(t, store.TokenSpec{Label: "session", Kind: store.KindSession, SessionID: "ses_1", Grants: allGrants()})
	repo := f.registerRepo(t, "/src/app")
	args := fmt.Sprintf(`{"repository_id":%q}`, repo.ID)
	f.invoke(OperatorPrincipal(), TransportRPC, "nope", "") // a record to chain to
	before := len(f.audit(t))

	res := f.invoke(TokenPrincipal(tok), TransportMCPStdio, "status", args)
	wantCode(t, res, "ok")
	recs := f.audit(t)
	if len(recs) != before+1 {
		t.Fatalf("%d audit records written, want exactly 1", len(recs)-before)
	}
	rec := recs[len(recs)-1]
	want := store.AuditRecord{
		ID: res.AuditID, Transport: "mcp-stdio", KeyID: tok.KeyID, SessionID: "ses_1", Method: "status",
		Repository: repo.ID, Outcome: "ok", ArgsDigest: store.ArgsDigest([]byte(args)),
	}
	got := rec
	got.Seq, got.Time, got.DurationMicros, got.PrevHash, got.Hash = 0, time.Time{}, 0, "", ""
	if got != want {
		t.Errorf("audit record\n got %+v\nwant %+v", got, want)
	}
	if rec.DurationMicros < 0 || !rec.Time.Equal(f.clock.Now()) || rec.Hash == "" || rec.PrevHash != recs[len(recs)-2].Hash {
		t.Errorf("audit record %+v", rec)
	}
	st, ok := res.Value.(StatusResult)
	if !ok {
		t.Fatalf("status value %T", res.Value)
	}
	if st.Version != testVersion || !st.Running || st.Endpoint != f.env.Endpoint() || st.Keyring != "test" ||
		st.SchemaVersion != store.SchemaVersion() || st.Principal != "token "+tok.KeyID || st.Counts.Repositories != 1 || st.Counts.Tokens != 1 {
		t.Errorf("status %+v", st)
	}
	// Counts run before the call's own record is appended.
	if st.Counts.AuditRecords != before {
		t.Errorf("status counted %d audit records before its own, want %d", st.Counts.AuditRecords, before)
	}

	op := f.invoke(OperatorPrincipal(), TransportGUI, "status", "")
	wantCode(t, op, "ok")
	if p := op.Value.(StatusResult).Principal; p != "operator" {
		t.Errorf("operator status principal %q", p)
	}
	if rec := f.auditRecord(t, op.AuditID); rec.KeyID != "" || rec.ArgsDigest != "" || rec.Transport != "gui" {
		t.Errorf("operator audit record %+v", rec)
	}
}

func TestInvokeTouchesToken(t *testing.T) {
	f := newFixture(t)
	tok, _ := f.createClientToken(t)
	if f.token(t, tok.KeyID).LastUsedAt != nil {
		t.Fatal("new token already used")
	}
	wantCode(t, f.invoke(TokenPrincipal(tok), TransportMCP, "status", ""), "ok")
	first := f.token(t, tok.KeyID).LastUsedAt
	if first == nil || !first.Equal(f.clock.Now()) {
		t.Fatalf("last used %v, want %v", first, f.clock.Now())
	}
	f.clock.Add(time.Minute)
	wantCode(t, f.invoke(TokenPrincipal(tok), TransportMCP, "repository.list", ""), "ok")
	if second := f.token(t, tok.KeyID).LastUsedAt; second == nil || !second.Equal(f.clock.Now()) {
		t.Fatalf("last used %v after the second call, want %v", second, f.clock.Now())
	}
}

func TestRepositoryMethods(t *testing.T) {
	f := newFixture(t)
	tok, _ := f.createClientToken(t)
	res := f.invoke(OperatorPrincipal(), TransportRPC, "repository.register", `{"path":"/src/web","name":"web"}`)
	wantCode(t, res, "ok")
	repo := res.Value.(RepositoryRegistered).Repository
	if !strings.HasPrefix(repo.ID, "repo_") || repo.Name != "web" || repo.Path != "/src/web" {
		t.Errorf("registered %+v", repo)
	}
	wantCode(t, f.invoke(OperatorPrincipal(), TransportRPC, "repository.register", `{"path":"relative"}`), store.CodeInvalidArgument)
	// Not over MCP, whatever the token.
	wantCode(t, f.invoke(TokenPrincipal(tok), TransportMCP, "repository.register", `{"path":"/src/x"}`), store.CodeToolHidden)

	list := f.invoke(TokenPrincipal(tok), TransportMCP, "repository.list", "")
	wantCode(t, list, "ok")
	got := remarshal(t, list.Value).(map[string]any)["repositories"].([]any)
	if len(got) != 1 || got[0].(map[string]any)["id"] != repo.ID {
		t.Errorf("repository.list %v", got)
	}
	// Now the token may scope a call to it.
	wantCode(t, f.invoke(TokenPrincipal(tok), TransportMCP, "status", fmt.Sprintf(`{"repository_id":%q}`, repo.ID)), "ok")
}

func TestAuditQueryAndVerify(t *testing.T) {
	f := newFixture(t)
	var committed []string
	r := testMethodRegistry(f, &committed)
	client, _ := f.createClientToken(t)
	weak, _ := f.createToken(t, store.TokenSpec{Label: "weak", Grants: []store.Grant{{Capability: store.CapStatusRead, Repositories: []string{"*"}}}})
	cp, wp := TokenPrincipal(client), TokenPrincipal(weak)

	// A mix: successes, denials, unknown and hidden methods, failing
	// handlers, token administration.
	f.invoke(cp, TransportMCP, "status", "")
	f.invoke(wp, TransportMCP, "audit.query", "")
	f.invoke(cp, TransportMCP, "nope", "")
	f.invoke(cp, TransportMCP, "token.create", "")
	f.invoke(cp, TransportMCP, "status", `{"repository_id":"repo_x"}`)
	f.invoke(cp, TransportMCP, "status", `not json`)
	r.Invoke(t.Context(), cp, TransportMCP, "test.deny", nil)
	r.Invoke(t.Context(), cp, TransportMCP, "test.fail", nil)
	r.Invoke(t.Context(), cp, TransportMCP, "test.ok", nil)
	created := f.invoke(OperatorPrincipal(), TransportRPC, "token.create", `{"label":"x","kind":"session"}`)
	wantCode(t, created, "ok")
	f.invoke(OperatorPrincipal(), TransportRPC, "token.rotate", "")
	f.invoke(OperatorPrincipal(), TransportRPC, "token.revoke", fmt.Sprintf(`{"keyid":%q}`, created.Value.(TokenCreated).Token.KeyID))
	f.invoke(OperatorPrincipal(), TransportGUI, "repository.register", `{"path":"/src/a"}`)
	total := len(f.audit(t))
	if total != 13 {
		t.Fatalf("%d audit records, want 13 (one per call)", total)
	}

	q := f.invoke(cp, TransportMCP, "audit.query", `{"outcome":"method_unknown"}`)
	// client was rotated above: its old key id is revoked.
	wantCode(t, q, store.CodeTokenRevoked)
	fresh, _ := f.createToken(t, store.TokenSpec{Label: "auditor", Grants: []store.Grant{{Capability: store.CapAuditRead, Repositories: []string{"*"}}}})
	q = f.invoke(TokenPrincipal(fresh), TransportMCP, "audit.query", `{"outcome":"method_unknown"}`)
	wantCode(t, q, "ok")
	recs := q.Value.(AuditRecords).Records
	if len(recs) != 1 || recs[0].Method != "nope" {
		t.Errorf("audit.query outcome=method_unknown: %+v", recs)
	}
	q = f.invoke(TokenPrincipal(fresh), TransportMCP, "audit.query", `{"limit":2}`)
	if recs := q.Value.(AuditRecords).Records; len(recs) != 2 || recs[0].Seq < recs[1].Seq {
		t.Errorf("audit.query limit 2: %+v", recs)
	}
	wantCode(t, f.invoke(TokenPrincipal(fresh), TransportMCP, "audit.query", `{"bogus":1}`), store.CodeInvalidArgument)

	v := f.invoke(OperatorPrincipal(), TransportRPC, "audit.verify", "")
	wantCode(t, v, "ok")
	out := remarshal(t, v.Value).(map[string]any)
	if out["ok"] != true {
		t.Fatalf("audit.verify: %v", out)
	}
	// It sees every record but its own, which commits with it.
	if n := out["verification"].(map[string]any)["records"]; n != float64(len(f.audit(t))-1) {
		t.Errorf("audit.verify counted %v records, log has %d", n, len(f.audit(t)))
	}
	f.view(t, func(tx *store.Tx) error {
		_, err := tx.VerifyAudit()
		return err
	})

	// audit.verify is Slow: its handler reads outside the shared write
	// transaction, and the token is checked in both.
	admin, _ := f.createToken(t, store.TokenSpec{Label: "admin", Kind: store.KindOperator, Grants: []store.Grant{{Capability: store.CapAdmin, Repositories: []string{"*"}}}})
	wantCode(t, f.invoke(TokenPrincipal(admin), TransportRPC, "audit.verify", ""), "ok")
	wantCode(t, f.invoke(TokenPrincipal(fresh), TransportRPC, "audit.verify", ""), store.CodeCapabilityMissing)
	f.update(t, func(tx *store.Tx) error { _, err := tx.RevokeToken(admin.KeyID); return err })
	wantCode(t, f.invoke(TokenPrincipal(admin), TransportRPC, "audit.verify", ""), store.CodeTokenRevoked)
	last := f.audit(t)[len(f.audit(t))-1]
	if last.Method != "audit.verify" || last.Outcome != string(store.CodeTokenRevoked) {
		t.Errorf("the refused slow call's record: %+v", last)
	}
}

// A token whose audit:read covers some repositories reads their records
// only: naming no repository is not a way round its scope.
func TestAuditQueryScopedToken(t *testing.T) {
	f := newFixture(t)
	repoA := f.registerRepo(t, "/src/a")
	repoB := f.registerRepo(t, "/src/b")
	client, _ := f.createClientToken(t)
	for _, repo := range []string{repoA.ID, repoB.ID, repoB.ID} {
		wantCode(t, f.invoke(TokenPrincipal(client), TransportMCP, "status", fmt.Sprintf(`{"repository_id":%q}`, repo)), "ok")
	}
	past := f.clock.Now().Add(-time.Minute)
	scoped, _ := f.createToken(t, store.TokenSpec{Label: "session a", Kind: store.KindSession, Grants: []store.Grant{
		{Capability: store.CapAuditRead, Repositories: []string{repoA.ID}},
		{Capability: store.CapAuditRead, Repositories: []string{"*"}, ExpiresAt: &past},
	}})
	p := TokenPrincipal(scoped)

	// Naming no repository asks for every one: only the expired grant on
	// every repository would do.
	wantCode(t, f.invoke(p, TransportMCP, "audit.query", ``), store.CodeCapabilityExpired)
	wantCode(t, f.invoke(p, TransportMCP, "audit.query", `{"method":"status"}`), store.CodeCapabilityExpired)
	// For b, only the expired grant on every repository would do.
	wantCode(t, f.invoke(p, TransportMCP, "audit.query", fmt.Sprintf(`{"repository_id":%q}`, repoB.ID)), store.CodeCapabilityExpired)
	res := f.invoke(p, TransportMCP, "audit.query", fmt.Sprintf(`{"repository_id":%q}`, repoA.ID))
	wantCode(t, res, "ok")
	recs := res.Value.(AuditRecords).Records
	if len(recs) != 1 || recs[0].Repository != repoA.ID {
		t.Errorf("records for repository a: %+v", recs)
	}
	// A token on every repository, and the operator, need not name one.
	res = f.invoke(TokenPrincipal(client), TransportMCP, "audit.query", `{"method":"status"}`)
	wantCode(t, res, "ok")
	if n := len(res.Value.(AuditRecords).Records); n != 3 {
		t.Errorf("client token sees %d status records, want 3", n)
	}
	wantCode(t, f.invoke(OperatorPrincipal(), TransportRPC, "audit.query", ``), "ok")
}

// When the database fails, the call is an internal error, logged, and
// Invoke neither panics nor claims an audit id it could not write.
func TestInvokeDatabaseClosed(t *testing.T) {
	f := newFixture(t)
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
	res := f.invoke(OperatorPrincipal(), TransportRPC, "status", "")
	if res.Code() != store.CodeInternal || res.AuditID != "" || res.Value != nil {
		t.Errorf("on a closed database: %+v", res)
	}
	logs := f.logs.String()
	for _, want := range []string{"registry call failed", "audit of a failed call could not be written"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q: %s", want, logs)
		}
	}
}
