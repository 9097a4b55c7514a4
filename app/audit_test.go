package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// auditTestGUI is a GUI over a fresh registry with a few calls in its log:
// two status calls, a call denied for an unknown key, and a failed call.
func auditTestGUI(t *testing.T) *gui {
	t.Helper()
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	return newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
}

// newAuditCore is a Core over a registry on a temporary database with no
// supervisor, for benchmarks (newFakeCore takes a *testing.T).
func newAuditCore(tb testing.TB, b Backend) *fakeCore {
	tb.Helper()
	db, err := store.Open(filepath.Join(tb.TempDir(), "state.db"), store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return &fakeCore{Backend: b, reg: mcpserver.New(db, mcpserver.Options{Env: envOf{b}})}
}

func seedCalls(t *testing.T, g *gui) {
	t.Helper()
	for range 2 {
		if _, err := invoke(g, mcpserver.MethodStatus, mcpserver.RepoScope{}); err != nil {
			t.Fatal(err)
		}
	}
	res := g.core.Registry().Invoke(context.Background(), mcpserver.Principal{KeyID: "k_stranger"}, mcpserver.TransportMCP, "status", json.RawMessage(`{}`))
	if res.Err == nil {
		t.Fatal("a stranger's call was not refused")
	}
	if _, err := invoke(g, mcpserver.MethodWorkGet, mcpserver.WorkGetArgs{PacketID: "pkt_missing"}); err == nil {
		t.Fatal("work.get of a missing packet succeeded")
	}
}

// appendAuditRecords builds n records straight in the store, in
// transactions of 50,000, one a second from start.
func appendAuditRecords(t testing.TB, db *store.DB, n int, start time.Time, rec func(i int) store.AuditRecord) {
	t.Helper()
	const batch = 50_000
	for done := 0; done < n; {
		err := db.Update(context.Background(), func(tx *store.Tx) error {
			for i := done; i < n && i < done+batch; i++ {
				r := rec(i)
				r.Time = start.Add(time.Duration(i) * time.Second)
				if err := tx.AppendAudit(&r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		done = min(n, done+batch)
	}
}

// syntheticRecord is the i-th record of a big test log: one in a hundred is
// a denial, one in ten a work.list.
func syntheticRecord(i int) store.AuditRecord {
	r := store.AuditRecord{Transport: "mcp", KeyID: fmt.Sprintf("k_%04d", i%7), Method: "status", Outcome: "ok", DurationMicros: int64(i % 900)}
	if i%10 == 3 {
		r.Method = "work.list"
	}
	if i%100 == 42 {
		r.Outcome = "capability_missing"
	}
	return r
}

// loadedRows waits until every row of w's view is in memory, scrolling a
// filtered view to its end, and returns them.
func loadedRows(t *testing.T, w *auditWindow) []store.AuditRecord {
	t.Helper()
	var out []store.AuditRecord
	waitUntil(t, "every row loaded", func() bool {
		ok := true
		doLocked(w, func() {
			out = out[:0]
			if !w.view.ready {
				ok = false
				return
			}
			n := w.length()
			for i := range n {
				r, loaded := w.record(i)
				if !loaded {
					ok = false
					continue
				}
				out = append(out, *r)
			}
			ok = ok && (w.view.whole || w.view.done)
		})
		return ok
	})
	return out
}

func setFilters(w *auditWindow, method, outcome, text string) {
	doLocked(w, func() { setFiltersLocked(w, method, outcome, text) })
}

func setFiltersLocked(w *auditWindow, method, outcome, text string) {
	w.method.SetText(method)
	w.outcome.SetText(outcome)
	w.text.SetText(text)
	test.Tap(w.applyBtn)
}

func openAudit(t *testing.T, g *gui) *auditWindow {
	t.Helper()
	var w *auditWindow
	fyne.DoAndWait(func() {
		g.showAudit()
		w = g.audit
	})
	t.Cleanup(func() { doLocked(w, func() { w.win.Close() }) })
	return w
}

func TestAuditFilters(t *testing.T) {
	g := auditTestGUI(t)
	seedCalls(t, g)
	w := openAudit(t, g)

	all := loadedRows(t, w)
	if len(all) < 4 {
		t.Fatalf("whole log shows %d rows, want at least the 4 seeded calls", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq != all[i-1].Seq-1 {
			t.Fatalf("rows not newest first without gaps: %d after %d", all[i].Seq, all[i-1].Seq)
		}
	}

	setFilters(w, "status", "", "")
	rows := loadedRows(t, w)
	if len(rows) != 3 {
		t.Fatalf("method=status shows %d rows, want 3 (two ok, one denied)", len(rows))
	}
	for _, r := range rows {
		if r.Method != "status" {
			t.Errorf("method=status shows %s", r.Method)
		}
	}

	setFilters(w, "", outcomeNotOK, "")
	rows = loadedRows(t, w)
	if len(rows) != 2 {
		t.Fatalf("outcome=!ok shows %d rows, want 2: %+v", len(rows), rows)
	}
	for _, r := range rows {
		if r.Outcome == "ok" {
			t.Errorf("outcome=!ok shows an ok record %s", r.ID)
		}
	}

	setFilters(w, "", "", "K_STRANGER")
	rows = loadedRows(t, w)
	if len(rows) != 1 || rows[0].KeyID != "k_stranger" {
		t.Fatalf("text k_stranger shows %+v", rows)
	}
	var count string
	doLocked(w, func() { count = w.count.Text })
	if count != "1 matching record" {
		t.Errorf("count line = %q", count)
	}

	// A denial stands out in the outcome column.
	doLocked(w, func() {
		setFiltersLocked(w, "", outcomeNotOK, "")
	})
	loadedRows(t, w)
	doLocked(w, func() {
		row := w.createRow()
		w.updateRow(0, row)
		cell := row.(*fyne.Container).Objects[2].(*widget.Label)
		if cell.Importance != widget.DangerImportance || !strings.HasPrefix(cell.Text, "✕ ") {
			t.Errorf("a denial's outcome cell is %q with importance %v", cell.Text, cell.Importance)
		}
		setFiltersLocked(w, "", "", "K_STRANGER")
	})
	rows = loadedRows(t, w)

	// The detail pane shows the selected record and copies it as JSON.
	doLocked(w, func() {
		w.list.Select(0)
		test.Tap(w.copy)
	})
	var detail, clip string
	doLocked(w, func() {
		detail = w.detail.Text
		clip = g.app.Clipboard().Content()
	})
	if !strings.Contains(detail, rows[0].Hash) || !strings.Contains(detail, rows[0].ID) {
		t.Errorf("detail lacks the record's id or hash:\n%s", detail)
	}
	var back store.AuditRecord
	if err := json.Unmarshal([]byte(clip), &back); err != nil || back.Hash != rows[0].Hash {
		t.Errorf("Copy as JSON gave %q (%v)", clip, err)
	}
}

// The tray's Audit… opens the window once, and closing it forgets it.
func TestAuditFromTray(t *testing.T) {
	g := auditTestGUI(t)
	m := g.trayMenu(g.menuModel())
	fyne.DoAndWait(func() { item(t, m, "Audit…").Action() })
	w := g.audit
	if w == nil || w.win.Title() != titleAudit {
		t.Fatal("Audit… opened no Audit window")
	}
	fyne.DoAndWait(func() { item(t, m, "Audit…").Action() })
	if g.audit != w {
		t.Error("a second Audit… opened a second window")
	}
	doLocked(w, func() { w.win.Close() })
	if g.audit != nil {
		t.Error("the closed window is still referenced")
	}
}

func TestAuditTimeFilter(t *testing.T) {
	g := auditTestGUI(t)
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.Local)
	appendAuditRecords(t, g.core.Registry().DB(), 600, start, syntheticRecord)
	w := openAudit(t, g)
	loadedRows(t, w)
	doLocked(w, func() {
		w.from.SetText("2026-11-30 12:05")
		w.to.SetText("2026-11-30 12:06:59")
		test.Tap(w.applyBtn)
	})
	rows := loadedRows(t, w)
	if len(rows) != 120 {
		t.Fatalf("12:05–12:06:59 shows %d rows, want 120", len(rows))
	}
	if rows[0].Seq != 420 || rows[len(rows)-1].Seq != 301 {
		t.Errorf("rows span seqs %d..%d, want 420..301", rows[0].Seq, rows[len(rows)-1].Seq)
	}
}

// A few thousand records: the whole log's row count is the record count,
// scrolling to the end loads the oldest record, and a filtered view loads
// page after page until the log's start.
func TestAuditPaging(t *testing.T) {
	g := auditTestGUI(t)
	const n = 5000
	appendAuditRecords(t, g.core.Registry().DB(), n, time.Now().Add(-2*time.Hour), syntheticRecord)
	w := openAudit(t, g)

	var rows int
	waitUntil(t, "the row count", func() bool {
		doLocked(w, func() { rows = w.length() })
		return rows > 0
	})
	if rows < n {
		t.Fatalf("%d rows over a log of at least %d records", rows, n)
	}
	doLocked(w, func() { w.list.ScrollToBottom() })
	waitUntil(t, "the oldest record in the last row", func() bool {
		var r *store.AuditRecord
		ok := false
		doLocked(w, func() { r, ok = w.record(rows - 1) })
		return ok && r.Seq == 1
	})
	var pages int
	doLocked(w, func() { pages = w.cache.order.Len() })
	if pages > 4 {
		t.Errorf("%d pages read for the first and last screens; paging is not lazy", pages)
	}

	// A drag of the scroll bar over the whole log asks for every page
	// on its way; only the last few asks are read.
	var before int
	doLocked(w, func() {
		before = w.cache.order.Len()
		for i := 0; i < rows; i += auditPageSize / 2 {
			w.record(i)
		}
	})
	waitIdle(t, w)
	doLocked(w, func() { pages = w.cache.order.Len() - before })
	t.Logf("a drag over %d pages read %d of them", rows/auditPageSize, pages)
	if pages > auditFetchers+auditPendingMax {
		t.Errorf("a drag over %d pages read %d of them", rows/auditPageSize, pages)
	}

	setFilters(w, "work.list", "", "")
	got := loadedRows(t, w)
	if len(got) != n/10 {
		t.Fatalf("work.list shows %d rows, want %d", len(got), n/10)
	}
	if got[len(got)-1].Seq != 4 {
		t.Errorf("last work.list row is seq %d, want 4", got[len(got)-1].Seq)
	}
	var count string
	doLocked(w, func() { count = w.count.Text })
	if count != fmt.Sprintf("%d matching records", n/10) {
		t.Errorf("count line = %q", count)
	}
	// The same method chosen from the list, where it reads in words.
	setFilters(w, methodWords("work.list"), "", "")
	if got := loadedRows(t, w); len(got) != n/10 {
		t.Errorf("%q shows %d rows, want %d", methodWords("work.list"), len(got), n/10)
	}
}

func TestAuditChainVerified(t *testing.T) {
	g := auditTestGUI(t)
	seedCalls(t, g)
	w := openAudit(t, g)
	var text string
	waitUntil(t, "the chain status", func() bool {
		doLocked(w, func() { text = w.chain.Text })
		return !strings.HasPrefix(text, labelVerifying)
	})
	if !strings.HasPrefix(text, "Hash chain verified: ") {
		t.Fatalf("chain status = %q", text)
	}
}

// At the top of the log, a state-changing call shows up without any
// action from the person.
func TestAuditLiveTail(t *testing.T) {
	g := auditTestGUI(t)
	seedCalls(t, g)
	w := openAudit(t, g)
	loadedRows(t, w)
	if _, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo"}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "repository.register at the top", func() bool {
		for _, r := range loadedRows(t, w)[:3] {
			if r.Method == "repository.register" {
				return true
			}
		}
		return false
	})

	// A filtered view follows too.
	setFilters(w, "repository.register", "", "")
	loadedRows(t, w)
	if _, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo2"}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the second repository.register in the filtered view", func() bool { return len(loadedRows(t, w)) == 2 })
}

// BenchmarkAuditMillion opens the window over a log of 1,000,000 records and
// applies filters: outcome !ok (one record in a hundred, filtered by the
// window), method work.list (one in ten, filtered by the store) and free
// text (one in seven), and none (the whole log), each with the app's
// refreshes hidden and shown. The time is from Apply to the first rows painted;
// the opening's own figure is logged. Building the log (about 10 s) is not
// timed.
//
//	go test -run '^$' -bench AuditMillion -benchtime 10x ./app/
func BenchmarkAuditMillion(b *testing.B) {
	a := test.NewTempApp(b)
	log, _ := newTestLogger()
	core := newAuditCore(b, &fakeBackend{endpoint: testEndpoint, token: testToken})
	g := &gui{app: a, core: core, log: log, quit: func() {}}
	appendAuditRecords(b, core.reg.DB(), 1_000_000, time.Now().Add(-400*time.Hour), syntheticRecord)

	var w *auditWindow
	start := time.Now()
	fyne.DoAndWait(func() {
		g.showAudit()
		w = g.audit
	})
	waitFirstRows(b, w)
	b.Logf("open over 1,000,000 records: first rows in %v", time.Since(start))
	// The chain check started by the opening runs for seconds over a
	// million records: let it end, so the filters are timed alone.
	var chain string
	waitUntil(b, "the chain check to end", func() bool {
		doLocked(w, func() { chain = w.chain.Text })
		return !strings.HasPrefix(chain, labelVerifying)
	})
	b.Logf("%s; verification took %v after opening", chain, time.Since(start).Round(time.Millisecond))

	queries := []struct{ name, method, outcome, text, from string }{
		{"outcome=!ok", "", outcomeNotOK, "", ""},
		{"method=work.list", "work.list", "", "", ""},
		{"text=k_0003", "", "", "k_0003", ""},
		// The log spans 400 h up to now; from -300h is a binary search.
		{"from=-300h,method=work.list", "work.list", "", "", "-300h"},
	}
	// Each query with the app's refreshes hidden (the default, through
	// the index of shown records) and shown (the whole log, as before
	// there was a view class): the second is the baseline, in the same
	// run. The log has no refreshes, so both find the same rows.
	for _, views := range []bool{false, true} {
		for _, q := range queries {
			b.Run(fmt.Sprintf("%s,views=%v", q.name, views), func(b *testing.B) {
				for b.Loop() {
					// The previous view's later pages still arrive: let
					// them, so each Apply is timed on an idle window.
					b.StopTimer()
					waitIdle(b, w)
					doLocked(w, func() {
						w.method.SetText(q.method)
						w.outcome.SetText(q.outcome)
						w.text.SetText(q.text)
						w.from.SetText(q.from)
						w.refreshes.Checked = views
					})
					b.StartTimer()
					doLocked(w, func() { test.Tap(w.applyBtn) })
					waitFirstRows(b, w)
				}
			})
		}
		// The whole log, opened again.
		b.Run(fmt.Sprintf("whole,views=%v", views), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				waitIdle(b, w)
				doLocked(w, func() {
					for _, e := range []*widget.Entry{w.from, w.text} {
						e.SetText("")
					}
					w.method.SetText("")
					w.outcome.SetText("")
					w.refreshes.Checked = views
				})
				b.StartTimer()
				doLocked(w, func() { test.Tap(w.applyBtn) })
				waitFirstRows(b, w)
			}
		})
	}
	doLocked(w, func() { w.win.Close() })
}

// waitIdle waits until w reads no page.
func waitIdle(b testing.TB, w *auditWindow) {
	b.Helper()
	waitUntil(b, "the window to read no page", func() bool {
		idle := false
		doLocked(w, func() { idle = len(w.inflight) == 0 && w.reading == 0 && w.view.ready })
		return idle
	})
}

func waitFirstRows(b testing.TB, w *auditWindow) {
	var ch chan struct{}
	doLocked(w, func() { ch = w.firstRows })
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		b.Fatal("no rows painted within 30 s")
	}
}

// doLocked runs fn as the window's goroutines apply their results: on the
// Fyne goroutine, holding the window's lock.
func doLocked(w *auditWindow, fn func()) {
	fyne.DoAndWait(func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		fn()
	})
}
