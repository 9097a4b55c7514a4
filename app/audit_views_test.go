package app

import (
	"context"
	"fmt"
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

// An hour of normal use, on the bubble's clock: the tray and the Sessions,
// Work and Settings windows open and re-reading as they do, the CLI
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
		g.showWork()
		g.showSettings()
		// Their loops end before the bubble does, on a failure too.
		t.Cleanup(func() {
			close(stopTray)
			<-trayDone
			fyne.DoAndWait(func() {
				g.sessions.win.Close()
				g.work.win.Close()
				g.settings.win.Close()
			})
		})
		start := time.Now()

		agentCalls, clicks := 0, 0
		for minute := 1; minute <= 60; minute++ {
			time.Sleep(time.Minute)
			if minute%5 == 0 {
				// A call from outside the GUI: the CLI's, over RPC.
				_, err := mcpserver.Invoke(context.Background(), reg, mcpserver.Operator, mcpserver.TransportRPC, mcpserver.MethodWorkCreate,
					mcpserver.WorkCreateArgs{RepositoryID: repo.Repository.ID, Title: fmt.Sprintf("packet %d", minute)})
				if err != nil {
					t.Fatal(err)
				}
				agentCalls++
			}
			if minute%20 == 0 {
				// Let the windows catch up, then the person opens the newest
				// packet: the Work window reads it as the click's.
				synctest.Wait()
				fyne.DoAndWait(func() {
					g.work.mu.Lock()
					defer g.work.mu.Unlock()
					g.work.selected = ""
					g.work.selectPacket(g.work.packets[0].ID)
				})
				clicks++
			}
		}
		synctest.Wait()
		if d := time.Since(start); d != time.Hour {
			t.Fatalf("the bubble's clock moved %v", d)
		}

		var shown, all []store.AuditRecord
		err = reg.DB().View(func(tx *store.Tx) (err error) {
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
		if err := reg.DB().View(func(tx *store.Tx) (err error) { v, err = tx.VerifyAudit(); return err }); err != nil {
			t.Fatal(err)
		}
		if v.Views != len(all)-len(shown) {
			t.Errorf("verified %d views, the log holds %d", v.Views, len(all)-len(shown))
		}
		t.Logf("an hour: %d records, %d shown, %d views", v.Records, len(shown), v.Views)
	})
}
