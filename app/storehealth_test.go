package app

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/internal/pgtest"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// The store's health turns on store_unavailable and back on a success,
// and on nothing else.
func TestStoreHealthObserves(t *testing.T) {
	var h storeHealth
	steps := []struct {
		err     error
		flipped bool
		down    bool
	}{
		{nil, false, false},
		{store.Deny(store.CodeNotFound, "no packet"), false, false},
		{&wrapped{store.ErrUnavailable}, true, true},
		{store.Deny(store.CodeStoreUnavailable, "gone"), false, true},
		{store.Deny(store.CodeInvalidArgument, "bad"), false, true},
		{nil, true, false},
	}
	for i, s := range steps {
		if got := h.observe(s.err); got != s.flipped || h.isDown() != s.down {
			t.Errorf("step %d (%v): flipped %v, down %v; want %v, %v", i, s.err, got, h.isDown(), s.flipped, s.down)
		}
	}
}

// wrapped is an error around another, as the store's PostgreSQL errors
// wrap ErrUnavailable.
type wrapped struct{ err error }

func (w *wrapped) Error() string { return "postgres: begin: " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }

// storeLineShown reports whether win's line about the store shows.
func storeLineShown(g *gui, win fyne.Window) bool {
	var shown bool
	onUI(func() { shown = g.storeLines[win].line.Visible() })
	return shown
}

// A store_unavailable failure shows the line in every open window, a call
// that succeeds hides it again; the tray's menu says so while it holds.
func TestStoreLineFollowsCalls(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, keyring: "available"}, log, func() {})
	onUI(func() {
		g.showSettings()
		g.showSessions("")
	})
	t.Cleanup(func() {
		onUI(func() {
			g.settings.win.Close()
			g.sessions.win.Close()
		})
	})
	wins := []fyne.Window{g.settings.win, g.sessions.win}
	for _, win := range wins {
		if storeLineShown(g, win) {
			t.Fatalf("%s shows the store's line with the store answering", win.Title())
		}
	}
	g.noteStore(&wrapped{store.ErrUnavailable})
	for _, win := range wins {
		waitUntil(t, "the store's line in "+win.Title(), func() bool { return storeLineShown(g, win) })
	}
	if labels := labels(g.trayMenu(trayModel{storeDown: true})); !slices.Contains(labels, labelStoreDown) {
		t.Errorf("the tray's menu with the store down: %q", labels)
	}
	if labels := labels(g.trayMenu(trayModel{})); slices.Contains(labels, labelStoreDown) {
		t.Errorf("the tray's menu with the store answering: %q", labels)
	}
	if _, err := view(g, mcpserver.MethodRepositoryList, mcpserver.NoArgs{}); err != nil {
		t.Fatal(err)
	}
	for _, win := range wins {
		waitUntil(t, "the store's line gone from "+win.Title(), func() bool { return !storeLineShown(g, win) })
	}
	// A window opened while the store is down shows the line from the start.
	g.health.observe(&wrapped{store.ErrUnavailable})
	var line storeLine
	onUI(func() { line = g.withStoreLine(nil) })
	if !line.line.Visible() {
		t.Error("a window opened with the store down does not say so")
	}
}

// On PostgreSQL, with the server stopped: a refresh read fails with
// store_unavailable, the windows and the tray say so, and the tray's own
// reads find the server back once it runs again, which clears them all.
func TestStoreUnavailableOnPostgres(t *testing.T) {
	srv := pgtest.Start(t)
	password := "pw-" + strings.Repeat("z3", 8)
	db, _ := teamStore(t, srv, teamSelf, password)
	g, logged := newTeamGUI(t, db)
	var mu sync.Mutex
	var tips []string
	g.tooltip = func(s string) {
		mu.Lock()
		defer mu.Unlock()
		tips = append(tips, s)
	}
	lastTip := func() (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		if len(tips) == 0 {
			return "", false
		}
		return tips[len(tips)-1], true
	}
	if _, err := g.core.Registry().BeatInstance(context.Background(), store.InstanceBeat{Host: "ada-laptop", PID: 4242, Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	w := showTeamTab(t, g)
	win := w.win
	stop, done := make(chan struct{}), make(chan struct{})
	changed := g.core.Registry().Changed()
	model := g.menuModel()
	go func() {
		defer close(done)
		g.refreshTray(noTray{}, model, changed, stop)
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
	})

	srv.Stop()
	_, err := view(g, mcpserver.MethodRepositoryList, mcpserver.NoArgs{})
	if code := store.CodeOf(err); code != store.CodeStoreUnavailable {
		t.Fatalf("a read with the server stopped: %v (%s), want store_unavailable", err, code)
	}
	waitUntil(t, "the store's line in Settings", func() bool { return storeLineShown(g, win) })
	waitUntil(t, "the tray's tooltip", func() bool { tip, _ := lastTip(); return tip == tooltipStoreDown })
	if labels := labels(g.trayMenu(g.menuModel())); !slices.Contains(labels, labelStoreDown) {
		t.Errorf("the tray's menu with the server stopped: %q", labels)
	}
	// The Team tab keeps what it read, and says it cannot read more.
	loaded := make(chan struct{})
	onUI(func() {
		w.team.loaded = func() { close(loaded) }
		w.team.load()
	})
	<-loaded
	if shown := teamTexts(w); !strings.Contains(shown, "could not be read") || !strings.Contains(shown, teamSelf+"  ·  ada-laptop") {
		t.Errorf("the Team tab with the server stopped:\n%s", shown)
	}
	onUI(func() { w.team.loaded = nil })

	srv.Start()
	waitUntil(t, "the store's line gone", func() bool { return !storeLineShown(g, win) })
	waitUntil(t, "the tray's tooltip cleared", func() bool { tip, ok := lastTip(); return ok && tip == "" })
	if strings.Contains(logged.String(), password) {
		t.Errorf("the log of the outage holds the database's password:\n%s", logged)
	}
}
