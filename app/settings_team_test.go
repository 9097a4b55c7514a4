package app

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/internal/pgtest"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// settingsTabTeam is the Team tab's index (settingsTabConnection and the
// others are in settings_worktrees_test.go).
const settingsTabTeam = 6

// The instance ids the team tests open their stores as.
const (
	teamSelf  = "inst_0a1b2c3d4e5f6071"
	teamOther = "inst_f9e8d7c6b5a49382"
)

// textsIn is the text of every label and badge shown under o, in order.
func textsIn(o fyne.CanvasObject) []string {
	var out []string
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if !o.Visible() {
			return
		}
		switch v := o.(type) {
		case *widget.Label:
			out = append(out, v.Text)
			return
		case *canvas.Text: // a badge's word
			out = append(out, v.Text)
			return
		case *fyne.Container:
			for _, k := range v.Objects {
				walk(k)
			}
		case fyne.Widget:
			for _, k := range test.WidgetRenderer(v).Objects() {
				walk(k)
			}
		}
	}
	walk(o)
	return out
}

// teamTexts is what the Team tab shows, read on the Fyne goroutine.
func teamTexts(w *settingsWindow) string {
	var out []string
	onUI(func() { out = textsIn(w.tabs.Items[settingsTabTeam].Content) })
	return strings.Join(out, "\n")
}

// showTeamTab opens the Settings window on its Team tab and waits for the
// first read to be shown.
func showTeamTab(t *testing.T, g *gui) *settingsWindow {
	t.Helper()
	var w *settingsWindow
	onUI(func() {
		g.showSettings()
		w = g.settings
		w.tabs.SelectIndex(settingsTabTeam)
	})
	t.Cleanup(func() { onUI(func() { w.win.Close() }) })
	waitUntil(t, "the team's status", func() bool {
		var painted string
		onUI(func() { painted = w.team.painted })
		return painted != ""
	})
	return w
}

// Without team mode the tab says the store is this machine's bbolt file,
// names the file, and says how to share it; it shows no instance.
func TestSettingsTeamOff(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, keyring: "available"}, log, func() {})
	w := showTeamTab(t, g)
	shown := teamTexts(w)
	for _, want := range []string{"Off", g.core.Registry().DB().Path(), "bbolt file", "--database URL", "SWITCHBOARD_DATABASE_URL"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the Team tab does not say %q:\n%s", want, shown)
		}
	}
	for _, not := range []string{"This instance", "Shared queue", "Instances"} {
		if strings.Contains(shown, not) {
			t.Errorf("the Team tab shows %q without team mode:\n%s", not, shown)
		}
	}
}

// teamStore opens a store on srv as instance id, at a URL that carries
// password: the test server trusts its socket and never asks for one, so
// the URL opens and the test sees whether it is shown.
func teamStore(t *testing.T, srv *pgtest.Server, id, password string) (*store.DB, string) {
	t.Helper()
	url := srv.Schema(t)
	return teamStoreAt(t, url, id, password), url
}

func teamStoreAt(t *testing.T, url, id, password string) *store.DB {
	t.Helper()
	withPassword := strings.Replace(url, pgtest.User+"@", pgtest.User+":"+password+"@", 1)
	if withPassword == url {
		t.Fatalf("no user in %s to give a password to", url)
	}
	db, err := store.OpenPostgres(withPassword, store.Options{Instance: id})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newTeamGUI is a GUI over db (team mode), logging into the buffer.
func newTeamGUI(t *testing.T, db *store.DB) (*gui, *bytes.Buffer) {
	t.Helper()
	a := test.NewTempApp(t)
	log, sink := newTestLogger()
	b := &fakeBackend{endpoint: testEndpoint, keyring: "available"}
	return &gui{app: a, core: newFakeCoreOn(t, b, db), log: log, quit: func() {}}, sink
}

// In team mode, on PostgreSQL: the tab shows the database without its
// password, this instance's id, every instance with its host, state, live
// sessions, when it was seen and its version (this one marked), and the
// shared queue; a re-read that finds nothing new paints nothing.
func TestSettingsTeamOnPostgres(t *testing.T) {
	srv := pgtest.Start(t)
	// Made here, not written in the file: nothing password-like sits in
	// the tree.
	password := "pw-" + strings.Repeat("q7", 8)
	db, url := teamStore(t, srv, teamSelf, password)
	g, logged := newTeamGUI(t, db)
	reg := g.core.Registry()
	started := time.Now().Add(-time.Hour)
	if _, err := reg.BeatInstance(context.Background(), store.InstanceBeat{Host: "ada-laptop", PID: 4242, Version: "0.9.1", Started: started}); err != nil {
		t.Fatal(err)
	}
	// Another instance, which stopped cleanly.
	other := teamStoreAt(t, url, teamOther, password)
	if err := other.Update(context.Background(), func(tx *store.Tx) error {
		if _, err := tx.BeatInstance(store.InstanceBeat{Host: "build-box", PID: 77, Version: "0.9.0", Started: started}); err != nil {
			return err
		}
		return tx.StopInstance()
	}); err != nil {
		t.Fatal(err)
	}
	// A packet in the shared queue, and a live session of this instance.
	repo, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := invoke(g, mcpserver.MethodWorkCreate, mcpserver.WorkCreateArgs{RepositoryID: repo.Repository.ID, Title: "shared"}); err != nil {
		t.Fatal(err)
	}
	workAgentCall(t, g, "session.report", mcpserver.ReportArgs{Kind: "ready", RepositoryID: repo.Repository.ID})

	w := showTeamTab(t, g)
	shown := teamTexts(w)
	for _, want := range []string{
		"On: the store is shared on PostgreSQL", "postgres://" + pgtest.User, teamSelf,
		teamSelf + "  ·  ada-laptop  (this instance)", "1 live session", "version 0.9.1", "pid 4242",
		teamOther + "  ·  build-box", "0 live sessions", "version 0.9.0",
		"seen under a minute ago", "running", "stopped",
		"1 queued  ·  0 claimed  ·  0 in progress  ·  0 in review  ·  0 done  ·  0 failed  ·  0 cancelled",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("the Team tab does not say %q:\n%s", want, shown)
		}
	}
	if strings.Contains(shown, teamOther+"  ·  build-box  (this instance)") {
		t.Errorf("the other instance is marked as this one:\n%s", shown)
	}
	if strings.Contains(shown, password) || strings.Contains(logged.String(), password) {
		t.Errorf("the database's password shows:\n%s\nlog:\n%s", shown, logged)
	}

	// Read again with nothing changed: the rows are the ones painted.
	var rows []fyne.CanvasObject
	loaded := make(chan struct{}, 1)
	onUI(func() {
		rows = slices.Clone(w.team.rows.Objects)
		w.team.loaded = func() {
			select {
			case loaded <- struct{}{}:
			default: // a poll's read, unasked for
			}
		}
		w.team.load()
	})
	<-loaded
	onUI(func() {
		if !slices.Equal(rows, w.team.rows.Objects) {
			t.Error("a read that found nothing new painted the rows again")
		}
	})

	// A change shows: the other instance runs again.
	if err := other.Update(context.Background(), func(tx *store.Tx) error {
		_, err := tx.BeatInstance(store.InstanceBeat{Host: "build-box", PID: 78, Version: "0.9.2", Started: time.Now()})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	onUI(func() { w.team.load() })
	<-loaded
	if shown := teamTexts(w); !strings.Contains(shown, "version 0.9.2") || strings.Contains(shown, "stopped") {
		t.Errorf("after the other instance started again:\n%s", shown)
	}

	// A call that changes something has the open tab read again by itself.
	if _, err := invoke(g, mcpserver.MethodWorkCreate, mcpserver.WorkCreateArgs{RepositoryID: repo.Repository.ID, Title: "another"}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the second packet in the shared queue", func() bool { return strings.Contains(teamTexts(w), "2 queued") })
}
