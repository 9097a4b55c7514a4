package mcpserver

import (
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

// The view transport carries reads only: every method that may change
// state is refused over it before its handler runs, and the refusal shows
// in the default audit view; a read succeeds and is a view, which only an
// audit query that asks for views returns.
func TestGUIViewRefusesMutatingMethods(t *testing.T) {
	f := newFixture(t)
	mutating := 0
	for _, m := range f.reg.Methods() {
		if m.Flags&ReadOnly != 0 {
			continue
		}
		mutating++
		res := f.invoke(OperatorPrincipal(), TransportGUIView, m.Name, `{"path":"/src/a","label":"x"}`)
		wantCode(t, res, store.CodeToolHidden)
		if res.Value != nil {
			t.Errorf("%s over %s returned a value", m.Name, TransportGUIView)
		}
		rec := f.auditRecord(t, res.AuditID)
		if rec.Transport != string(TransportGUIView) || rec.Outcome != string(store.CodeToolHidden) || rec.IsView() {
			t.Errorf("%s: audit record %+v", m.Name, rec)
		}
	}
	if mutating < 10 {
		t.Fatalf("only %d mutating methods registered", mutating)
	}
	// Nothing was changed: repository.register and token.create were
	// among them.
	if repos := f.invoke(OperatorPrincipal(), TransportGUI, "repository.list", ""); len(repos.Value.(RepositoryList).Repositories) != 0 {
		t.Errorf("repositories after refused calls: %+v", repos.Value)
	}

	// Reads work over it, and are views.
	read := f.invoke(OperatorPrincipal(), TransportGUIView, "repository.list", "")
	wantCode(t, read, "ok")
	if rec := f.auditRecord(t, read.AuditID); !rec.IsView() {
		t.Errorf("a read over %s is not a view: %+v", TransportGUIView, rec)
	}
	var shown, all []store.AuditRecord
	f.view(t, func(tx *store.Tx) error {
		var err error
		if shown, err = tx.QueryAudit(store.AuditFilter{Limit: 1000}); err != nil {
			return err
		}
		all, err = tx.QueryAudit(store.AuditFilter{Limit: 1000, Views: true})
		return err
	})
	if len(shown) != mutating+1 || len(all) != mutating+2 {
		t.Errorf("default view %d records, with views %d; want %d and %d", len(shown), len(all), mutating+1, mutating+2)
	}
	for _, r := range shown {
		if r.ID == read.AuditID {
			t.Errorf("the view %s is in the default view", r.ID)
		}
	}
	// audit.query over the registry takes the same switch.
	q := f.invoke(OperatorPrincipal(), TransportRPC, "audit.query", `{"views":true,"limit":1000}`)
	wantCode(t, q, "ok")
	if n := len(q.Value.(AuditRecords).Records); n != len(all) {
		t.Errorf("audit.query views:true: %d records, want %d", n, len(all))
	}
	v := f.invoke(OperatorPrincipal(), TransportRPC, "audit.verify", "")
	if out := v.Value.(AuditVerifyResult); !out.OK || out.Verification.Views != 1 {
		t.Errorf("audit.verify: %+v", out)
	}
}
