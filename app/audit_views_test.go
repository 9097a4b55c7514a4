package app

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// noTray is a desktop.App without a tray to draw on: the test counts the
// tray's reads, not its menus.
type noTray struct{}

func (noTray) SetSystemTrayMenu(*fyne.Menu)    {}
func (noTray) SetSystemTrayIcon(fyne.Resource) {}
func (noTray) SetSystemTrayWindow(fyne.Window) {}

// An hour of normal use, on the bubble's clock: the tray, the main
// window on its Work board and Settings open and re-reading as they do, the CLI
// creating a packet every five minutes, the person clicking a packet every
// twenty. The default audit view then holds those calls and the clicks and
// no refresh read; the refreshes are all there with Views, as views, and
// the chain verifies over both.
func TestAuditHourHasNoRefreshReads(t *testing.T) {
	a := test.NewTempApp(t)
	synctest.Test(t, func(t *testing.T) {
		log, _ := newTestLogger()
		g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})
		reg := g.core.Registry()
		repo, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo"})
		if err != nil {
			t.Fatal(err)
		}
		stopTray := make(chan struct{})
		trayDone := make(chan struct{})
		changed := reg.Changed()
		model := g.menuModel()
		go func() {
			defer close(trayDone)
			g.refreshTray(noTray{}, model, changed, stopTray)
		}()
		g.showSessions("")
		g.showMainBoard()
		g.showSettings()
		// Their loops end before the bubble does, on a failure too.
		t.Cleanup(func() {
			close(stopTray)
			<-trayDone
			fyne.DoAndWait(func() {
				g.sessions.win.Close()
				g.settings.win.Close()
			})
		})
		start := time.Now()

		agentCalls, clicks := 0, 0
		for minute := 1; minute <= 60; minute++ {
			// The bubble's fake clock: the sleep returns once the tray
			// and the windows have done a minute's refreshes, at once in
			// real time.
			time.Sleep(time.Minute)
			if minute%5 == 0 {
				// A call from outside the GUI: the CLI's, over RPC.
				_, err := mcpserver.Invoke(context.Background(), reg, mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, mcpserver.MethodWorkCreate,
					mcpserver.WorkCreateArgs{RepositoryID: repo.Repository.ID, Title: fmt.Sprintf("packet %d", minute)})
				if err != nil {
					t.Fatal(err)
				}
				agentCalls++
			}
			if minute%20 == 0 {
				// Let the windows catch up, then the person opens the newest
				// packet: the board reads it as the click's.
				synctest.Wait()
				fyne.DoAndWait(func() {
					b := g.sessions.board
					b.selected = ""
					b.selectPacket(b.packets[0].ID)
				})
				clicks++
			}
		}
		synctest.Wait()
		if d := time.Since(start); d != time.Hour {
			t.Fatalf("the bubble's clock moved %v", d)
		}

		var shown, all []store.AuditRecord
		err = reg.DB().View(context.Background(), func(tx *store.Tx) (err error) {
			if shown, err = tx.QueryAudit(store.AuditFilter{Limit: 1000}); err != nil {
				return err
			}
			all, err = tx.QueryAudit(store.AuditFilter{Limit: 1000, Views: true})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		for _, r := range shown {
			counts[r.Transport+" "+r.Method]++
			if r.Transport == string(mcpserver.TransportGUIView) {
				t.Errorf("default view holds a refresh read: %s %s", r.Method, r.ID)
			}
		}
		if counts["rpc work.create"] != agentCalls || counts["gui work.get"] != clicks || counts["gui repository.register"] != 1 {
			t.Errorf("default view over an hour: %v; want %d agent calls, %d clicks and the registration", counts, agentCalls, clicks)
		}
		if len(shown) != agentCalls+clicks+1 {
			t.Errorf("default view holds %d records, want %d: %v", len(shown), agentCalls+clicks+1, counts)
		}
		views := map[string]int{}
		for _, r := range all {
			if r.IsView() {
				views[r.Method]++
			}
		}
		// Each packet made the windows and the tray (question.list) read
		// again.
		for _, m := range []string{"session.list", "work.list", "repository.list", "profile.list", "token.list", "question.list"} {
			if views[m] < agentCalls {
				t.Errorf("%d %s views over an hour of %d changes: %v", views[m], m, agentCalls, views)
			}
		}
		var v store.AuditVerification
		if err := reg.DB().View(context.Background(), func(tx *store.Tx) (err error) { v, err = tx.VerifyAudit(); return err }); err != nil {
			t.Fatal(err)
		}
		if v.Views != len(all)-len(shown) {
			t.Errorf("verified %d views, the log holds %d", v.Views, len(all)-len(shown))
		}
		t.Logf("an hour: %d records, %d shown, %d views", v.Records, len(shown), v.Views)
	})
}

// viewHeavyRecord is the i-th record of a log written with a GUI open: two
// in three are the app's refreshes.
func viewHeavyRecord(i int) store.AuditRecord {
	r := syntheticRecord(i)
	if i%3 != 0 {
		r.Transport, r.Method, r.Outcome = string(mcpserver.TransportGUIView), "session.list", "ok"
	}
	return r
}

// The Audit window leaves the app's refreshes out until asked: the rows are
// the shown records, paged by rank however far the person scrolls, and
// the count says how many refreshes it hid; the check brings them back,
// and a filter applies to either.
func TestAuditWindowHidesRefreshes(t *testing.T) {
	g := auditTestGUI(t)
	const n = 3000 // 1000 shown, 2000 refreshes
	appendAuditRecords(t, g.core.Registry().DB(), n, time.Now().Add(-time.Hour), viewHeavyRecord)
	w := openAudit(t, g)

	rows := loadedRows(t, w)
	if len(rows) < n/3 || len(rows) > n/3+2 {
		// The window's own opening reads are refreshes too; its chain
		// check as it opens is one.
		t.Fatalf("default view: %d rows, want the %d shown records", len(rows), n/3)
	}
	for i, r := range rows {
		if r.IsView() {
			t.Fatalf("row %d is a refresh: %+v", i, r)
		}
		if i > 0 && r.Rank != rows[i-1].Rank-1 {
			t.Fatalf("row %d has rank %d after %d", i, r.Rank, rows[i-1].Rank)
		}
	}
	if last := rows[len(rows)-1]; last.Seq != 1 || last.Rank != 1 {
		t.Errorf("the last row is seq %d, rank %d; want the first record", last.Seq, last.Rank)
	}
	var count string
	doLocked(w, func() { count = w.count.Text })
	if !strings.Contains(count, fmt.Sprintf("%d records", n/3)) || !strings.Contains(count, "app refreshes hidden") {
		t.Errorf("count line = %q", count)
	}

	doLocked(w, func() { w.refreshes.SetChecked(true) })
	all := loadedRows(t, w)
	if len(all) < n {
		t.Fatalf("with the refreshes: %d rows, want at least %d", len(all), n)
	}
	views := 0
	for i, r := range all {
		if r.IsView() {
			views++
		}
		if i > 0 && r.Seq != all[i-1].Seq-1 {
			t.Fatalf("with the refreshes, row %d is seq %d after %d", i, r.Seq, all[i-1].Seq)
		}
	}
	if views < 2*n/3 {
		t.Errorf("with the refreshes: %d of them, want %d", views, 2*n/3)
	}

	// A filter on a refresh's method finds nothing until they are shown.
	doLocked(w, func() { setFiltersLocked(w, "session.list", "", "") })
	if got := loadedRows(t, w); len(got) < 2*n/3 {
		t.Errorf("session.list with the refreshes: %d rows", len(got))
	}
	doLocked(w, func() { w.refreshes.SetChecked(false) })
	if got := loadedRows(t, w); len(got) != 0 {
		t.Errorf("session.list without the refreshes: %d rows, want none", len(got))
	}
}
