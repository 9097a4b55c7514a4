package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/store"
)

// goldenAuditLog writes a log of 36 calls, one every 15 s up to
// goldenNow, into a database of its own: the GUI's reads, agents' MCP
// calls with their sessions and repositories, the CLI, the supervisor,
// and a few denials and a failure.
func goldenAuditLog(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "audit.db"), store.Options{Now: goldenClock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	fromGUI := func(method string) store.AuditRecord {
		return store.AuditRecord{Transport: "gui", Method: method, Outcome: "ok"}
	}
	live := func(method, outcome string) store.AuditRecord {
		return store.AuditRecord{Transport: "mcp", KeyID: goldenKeyLive, SessionID: goldenSesLive, Method: method,
			Repository: goldenRepoSwitchboard, Outcome: outcome}
	}
	external := func(method string) store.AuditRecord {
		return store.AuditRecord{Transport: "mcp", KeyID: goldenKeyClient, SessionID: goldenSesExternal, Method: method,
			Repository: goldenRepoWebsite, Outcome: "ok"}
	}
	recs := []store.AuditRecord{
		fromGUI("session.list"), fromGUI("repository.list"),
		{Transport: "supervisor", SessionID: goldenSesLive, Method: "agent.start", Repository: goldenRepoSwitchboard, Outcome: "ok"},
		live("session.report", "ok"), live("work.await_packet", "ok"), live("work.acknowledge", "ok"),
		external("status"), external("work.list"),
		{Transport: "mcp", KeyID: goldenKeyRevoked, Method: "status", Outcome: "token_revoked"},
		live("repository.list", "ok"), fromGUI("work.list"), fromGUI("work.get"),
		{Transport: "rpc", Method: "audit.verify", Outcome: "ok"},
		live("session.report", "ok"), external("work.get"),
		{Transport: "mcp", KeyID: goldenKeyCI, Method: "work.create", Repository: goldenRepoWebsite, Outcome: "capability_missing"},
		live("artifact.publish", "ok"), fromGUI("session.get"), live("session.report", "ok"),
		{Transport: "mcp-sse", KeyID: goldenKeyClient, Method: "events.subscribe", Outcome: "ok"},
		external("artifact.publish"), fromGUI("work.list"),
		{Transport: "rpc", Method: "token.list", Outcome: "ok"},
		live("artifact.publish", "invalid_argument"), live("artifact.publish", "ok"), fromGUI("agent.attach"),
		{Transport: "mcp", KeyID: goldenKeyClient, Method: "work.complete", Repository: goldenRepoWebsite, Outcome: "internal"},
		live("session.report", "ok"), fromGUI("session.get"), external("session.report"),
		{Transport: "mcp", KeyID: goldenKeyCI, Method: "tools/call", Outcome: "method_unknown"},
		live("work.heartbeat", "ok"), fromGUI("audit.query"), live("session.ask", "ok"), fromGUI("session.get"),
		live("session.report", "ok"),
	}
	start := goldenNow.Add(-time.Duration(len(recs)-1) * 15 * time.Second)
	err = db.Update(context.Background(), func(tx *store.Tx) error {
		for i := range recs {
			r := recs[i]
			r.Time = start.Add(time.Duration(i) * 15 * time.Second)
			// Durations from 0.2 ms to a few hundred: fixed, unlike a
			// registry's measured ones.
			r.DurationMicros = int64(180 + (i*7919)%4000*(1+i%5))
			if r.Method == "work.await_packet" {
				r.DurationMicros = 41_207_331
			}
			sum := sha256.Sum256([]byte(r.Method + r.SessionID + string(rune('a'+i))))
			r.ArgsDigest = "sha256:" + hex.EncodeToString(sum[:8])
			if err := tx.AppendAudit(&r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// The Audit window: the log filtered to MCP calls (typed into the
// transport filter), a record in the detail pane, the chain verified.
func TestAuditGolden(t *testing.T) {
	eachGoldenTheme(t, func(t *testing.T, a fyne.App, name string) {
		g := newGoldenGUI(t, a, &goldenData{audit: goldenAuditLog(t)}, nil)
		w := openAudit(t, g)
		verified := func() bool {
			ok := false
			doLocked(w, func() { ok = strings.HasPrefix(w.chain.Text, "Hash chain verified") })
			return ok
		}
		waitUntil(t, "the chain verified on opening", verified)
		loadedRows(t, w)
		doLocked(w, func() {
			w.now = goldenClock
			w.win.Resize(fyne.NewSize(1280, 760))
			focusAndType(w.win, w.transport, "mcp")
			test.Tap(w.applyBtn)
		})
		rows := loadedRows(t, w)
		if len(rows) != 22 {
			t.Fatalf("transport=mcp shows %d rows, want 22", len(rows))
		}
		doLocked(w, func() {
			w.list.Select(1)
			test.Tap(w.verify)
		})
		waitUntil(t, "the chain verified again", verified)
		doLocked(w, func() {
			test.AssertImageMatches(t, "audit/filtered-"+name+".png", w.win.Canvas().Capture())
		})
	})
}
