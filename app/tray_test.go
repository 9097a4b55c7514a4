package app

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"log/slog"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/assets"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// fakeBackend is a Backend with fixed answers.
type fakeBackend struct {
	endpoint string
	token    string
	tokenErr error
	keyring  string
}

func (f *fakeBackend) Endpoint() string             { return f.endpoint }
func (f *fakeBackend) KeyringState() string         { return f.keyring }
func (f *fakeBackend) ClientToken() (string, error) { return f.token, f.tokenErr }

// fakeCore is a Core over a real registry on a temporary database, with a
// supervisor whose agents are real processes, and a Backend with fixed
// answers.
type fakeCore struct {
	Backend
	reg    *mcpserver.Registry
	agents *supervisor.Supervisor
	show   func() bool

	mu sync.Mutex
	// database and databaseFrom are what Database answers; saved what
	// Connect/DisconnectDatabase left; connectErr what ConnectDatabase
	// fails with; restart whether RequestRestart was called.
	database, databaseFrom, saved string
	connectErr                    error
	restart                       bool
}

func (f *fakeCore) SetShowWindow(show func() bool) { f.show = show }

func (f *fakeCore) Database() (string, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.database, f.databaseFrom
}

func (f *fakeCore) ConnectDatabase(conn string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.connectErr != nil {
		return f.connectErr
	}
	f.saved = conn
	return nil
}

func (f *fakeCore) DisconnectDatabase() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.saved = ""
	return nil
}

func (f *fakeCore) RequestRestart() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.restart = true
}

func (f *fakeCore) Registry() *mcpserver.Registry  { return f.reg }
func (f *fakeCore) Agents() *supervisor.Supervisor { return f.agents }
func (f *fakeCore) AllowOrigins() []string         { return []string{"https://app.example"} }
func (f *fakeCore) Listen() (mcpserver.ListenAddr, daemon.ListenSource) {
	return mcpserver.ListenAddr{}, daemon.ListenDefault
}

func newFakeCore(t testing.TB, b Backend) *fakeCore {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return newFakeCoreOn(t, b, db)
}

// newFakeCoreOn is newFakeCore over db: one on PostgreSQL, for team mode.
func newFakeCoreOn(t testing.TB, b Backend, db *store.DB) *fakeCore {
	t.Helper()
	dir := t.TempDir()
	f := &fakeCore{Backend: b}
	f.agents = supervisor.New(supervisor.Config{
		RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "rec"),
		Exited: func(id string, e supervisor.Exit) { f.reg.AgentExited(id, e) },
	})
	t.Cleanup(func() { f.agents.Close(context.Background()) })
	f.reg = mcpserver.New(db, mcpserver.Options{Env: envOf{b}, Agents: f.agents})
	return f
}

// envOf gives the registry the backend's endpoint, so agent.start works.
type envOf struct{ b Backend }

func (e envOf) Endpoint() string                { return e.b.Endpoint() }
func (e envOf) Running() bool                   { return true }
func (e envOf) KeyringState() string            { return e.b.KeyringState() }
func (e envOf) ClientToken() (string, error)    { return e.b.ClientToken() }
func (e envOf) ClientTokenRotated(string) error { return nil }

func newTestGUI(t *testing.T, a fyne.App, b Backend, log *slog.Logger, quit func()) *gui {
	return &gui{app: a, core: newFakeCore(t, b), log: log, quit: quit}
}

// testMenu is the tray menu of a fresh GUI over b.
func testMenu(t *testing.T, a fyne.App, b Backend, log *slog.Logger, quit func()) *fyne.Menu {
	t.Helper()
	g := newTestGUI(t, a, b, log, quit)
	return g.trayMenu(g.menuModel())
}

const testEndpoint = "http://127.0.0.1:41234/mcp"

// testToken is built at run time so that no token-shaped literal sits in
// the tree (the pre-stop check looks for them).
var testToken = "sbt_0123456789abcdef_" + strings.Repeat("A", 43)

// newTestLogger logs as text into the returned buffer, so tests can check what the tray
// says and that it never says a token.
func newTestLogger() (*slog.Logger, *bytes.Buffer) {
	var sink bytes.Buffer
	return slog.New(slog.NewTextHandler(&sink, &slog.HandlerOptions{Level: slog.LevelDebug})), &sink
}

func labels(m *fyne.Menu) []string {
	var out []string
	for _, it := range m.Items {
		if it.IsSeparator {
			out = append(out, "---")
			continue
		}
		out = append(out, it.Label)
	}
	return out
}

func item(t *testing.T, m *fyne.Menu, label string) *fyne.MenuItem {
	t.Helper()
	for _, it := range m.Items {
		if it.Label == label {
			return it
		}
	}
	t.Fatalf("menu has no item %q; items: %q", label, labels(m))
	return nil
}

func TestTrayMenuItems(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	m := testMenu(t, a, &fakeBackend{endpoint: testEndpoint, keyring: "available"}, log, func() {})

	want := []string{"MCP: " + testEndpoint, "Copy MCP endpoint", "Copy client token", "Copy client config", "---", "Start agent", "Open Switchboard…", "Work board…", "New packet…", "Audit…", "Settings…", "Start at login", "---", "Quit"}
	if got := labels(m); !slices.Equal(got, want) {
		t.Fatalf("menu labels = %q, want %q", got, want)
	}
	if !m.Items[0].Disabled {
		t.Error("endpoint line is enabled; it is information, not an action")
	}
	if item(t, m, "Copy MCP endpoint").Disabled {
		t.Error("Copy MCP endpoint is disabled while the listener is on")
	}
	if !item(t, m, "Quit").IsQuit {
		t.Error("Quit is not marked IsQuit; Fyne would add a second Quit in other locales")
	}
}

func TestTrayMenuListenerOff(t *testing.T) {
	a := test.NewTempApp(t)
	log, sink := newTestLogger()
	m := testMenu(t, a, &fakeBackend{keyring: "available"}, log, func() {})

	if got := m.Items[0].Label; got != "MCP listener off" {
		t.Errorf("first line = %q, want %q", got, "MCP listener off")
	}
	copyEndpoint := item(t, m, "Copy MCP endpoint")
	if !copyEndpoint.Disabled {
		t.Error("Copy MCP endpoint is enabled while the listener is off")
	}
	a.Clipboard().SetContent("before")
	copyEndpoint.Action()
	if got := a.Clipboard().Content(); got != "before" {
		t.Errorf("clipboard = %q after copying an absent endpoint, want it untouched", got)
	}
	if !strings.Contains(sink.String(), "listener is off") {
		t.Errorf("log does not say why nothing was copied:\n%s", sink)
	}
}

func TestTrayMenuKeyringStates(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	for _, state := range []string{"available", "unknown", ""} {
		m := testMenu(t, a, &fakeBackend{endpoint: testEndpoint, keyring: state}, log, func() {})
		if n := len(m.Items); n != 14 {
			t.Errorf("keyring %q: menu has %d items %q, want 14 and no keyring line", state, n, labels(m))
		}
	}
}

func TestTrayMenuKeyringUnavailable(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	m := testMenu(t, a, &fakeBackend{endpoint: testEndpoint, keyring: "unavailable: timeout"}, log, func() {})

	want := []string{"MCP: " + testEndpoint, "Keyring unavailable: timeout", "Copy MCP endpoint", "Copy client token", "Copy client config", "---", "Start agent", "Open Switchboard…", "Work board…", "New packet…", "Audit…", "Settings…", "Start at login", "---", "Quit"}
	if got := labels(m); !slices.Equal(got, want) {
		t.Fatalf("menu labels = %q, want %q", got, want)
	}
	if !m.Items[1].Disabled {
		t.Error("keyring line is enabled; it is information, not an action")
	}
}

func TestTrayMenuLongKeyringState(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	state := "unavailable: failed to unlock correct collection '/org/freedesktop/secrets/aliases/default'"
	m := testMenu(t, a, &fakeBackend{endpoint: testEndpoint, keyring: state}, log, func() {})

	got := m.Items[1].Label
	if n := utf8.RuneCountInString(got); n > 60 {
		t.Errorf("keyring line has %d runes, want at most 60: %q", n, got)
	}
	if !strings.HasPrefix(got, "Keyring unavailable: failed to unlock") || !strings.HasSuffix(got, "…") {
		t.Errorf("keyring line = %q, want the start of the state and an ellipsis", got)
	}
}

func TestTrayCopyEndpoint(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	m := testMenu(t, a, &fakeBackend{endpoint: testEndpoint}, log, func() {})

	item(t, m, "Copy MCP endpoint").Action()
	if got := a.Clipboard().Content(); got != testEndpoint {
		t.Errorf("clipboard = %q, want %q", got, testEndpoint)
	}
}

func TestTrayCopyToken(t *testing.T) {
	a := test.NewTempApp(t)
	log, sink := newTestLogger()
	m := testMenu(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})

	item(t, m, "Copy client token").Action()
	if got := a.Clipboard().Content(); got != testToken {
		t.Errorf("clipboard holds a %d-byte value, want the %d-byte client token", len(got), len(testToken))
	}
	if strings.Contains(sink.String(), testToken[4:]) {
		t.Error("log contains the client token")
	}
}

func TestTrayCopyTokenError(t *testing.T) {
	a := test.NewTempApp(t)
	log, sink := newTestLogger()
	b := &fakeBackend{endpoint: testEndpoint, token: testToken, tokenErr: errors.New("keyring: timeout")}
	m := testMenu(t, a, b, log, func() {})

	a.Clipboard().SetContent("before")
	item(t, m, "Copy client token").Action()
	if got := a.Clipboard().Content(); got != "before" {
		t.Errorf("clipboard changed to a %d-byte value although ClientToken failed", len(got))
	}
	if strings.Contains(sink.String(), testToken[4:]) {
		t.Error("log contains token material")
	}
	if !strings.Contains(sink.String(), "keyring: timeout") {
		t.Errorf("the token error was not logged:\n%s", sink)
	}
}

func TestTrayQuit(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	quit := make(chan struct{}, 1)
	m := testMenu(t, a, &fakeBackend{endpoint: testEndpoint}, log, func() { quit <- struct{}{} })

	item(t, m, "Quit").Action()
	select {
	case <-quit:
	default:
		t.Error("Quit did not call the quit function")
	}
}

// TestTrayIcons checks the embedded tray PNGs against what Fyne's Linux tray does with them:
// it decodes the PNG and keeps the low byte of each 16-bit premultiplied channel, which is
// only right where it equals the high byte (see assets/gen_icons.go, forTray).
func TestTrayIcons(t *testing.T) {
	for name, data := range map[string][]byte{
		"idle": assets.TrayIdle(), "working": assets.TrayWorking(), "attention": assets.TrayAttention(),
	} {
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 64 {
			t.Errorf("%s: %dx%d, want 64x64", name, b.Dx(), b.Dy())
		}
		bad := 0
		for y := range img.Bounds().Dy() {
			for x := range img.Bounds().Dx() {
				r, g, b, a := img.At(x, y).RGBA()
				for _, v := range []uint32{r, g, b, a} {
					if v&0xff != v>>8 {
						bad++
						break
					}
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d pixels would show as specks in the Linux tray; regenerate with go run assets/gen_icons.go", name, bad)
		}
	}
}

// RunTray itself needs a display and a session bus; test/e2e covers it. Here only the
// refusal without a display, which must not start Fyne.
func TestRunTrayNoDisplay(t *testing.T) {
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd":
	default:
		t.Skip("the display check is for X11 and Wayland desktops")
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	log, _ := newTestLogger()
	err := RunTray(context.Background(), &fakeCore{Backend: &fakeBackend{}}, log)
	if err == nil || !strings.Contains(err.Error(), "no display") {
		t.Fatalf("RunTray without a display = %v, want a no-display error", err)
	}
}

func TestTrayStartAgent(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	t.Setenv("SHELL", "/bin/sh")
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})

	// No repository yet: each installed profile says so.
	m := g.trayMenu(g.menuModel())
	shell := item(t, item(t, m, labelStartAgent).ChildMenu, "Shell")
	if shell.Disabled || len(shell.ChildMenu.Items) != 1 || !shell.ChildMenu.Items[0].Disabled {
		t.Fatalf("Shell without repositories: %+v", shell.ChildMenu.Items)
	}
	// A profile whose command is missing is listed, greyed.
	if _, err := invoke(g, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: profile.Profile{ID: "ghost", Name: "Ghost", Command: "switchboard-no-such-agent", Prompt: profile.PromptNone}}); err != nil {
		t.Fatal(err)
	}
	reg, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	model := g.menuModel()
	m = g.trayMenu(model)
	agents := item(t, m, labelStartAgent).ChildMenu
	if ghost := item(t, agents, "Ghost"+labelNotInstalled); !ghost.Disabled || ghost.ChildMenu != nil {
		t.Errorf("uninstalled profile is not greyed: %+v", ghost)
	}
	shell = item(t, agents, "Shell")
	repo := shell.ChildMenu.Items[0]
	if !strings.HasPrefix(repo.Label, "demo") {
		t.Fatalf("repository item %q", repo.Label)
	}
	repo.Action()
	waitUntil(t, "an agent started from the tray", func() bool { return len(g.core.Agents().List()) > 0 })
	info := g.core.Agents().List()[0]
	if info.Profile != "shell" || info.RepositoryID != reg.Repository.ID {
		t.Errorf("started %+v", info)
	}
	// The agent's shell runs: the icon follows its screen.
	s, _ := g.core.Agents().Get(info.SessionID)
	s.Input([]byte("while :; do echo busy; sleep 0.1; done\r"))
	if !eventually(t, func() bool { return g.menuModel().state == stateWorking }) {
		t.Fatalf("tray state %v while an agent prints, want working", g.menuModel().state)
	}
	if model.equal(g.menuModel()) {
		t.Error("the model did not change when an agent started working")
	}
}

// openReportingSession opens a session as an agent does, with a ready
// report in a new repository, and returns its id.
func openReportingSession(t *testing.T, g *gui) string {
	t.Helper()
	reg, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: t.TempDir(), Name: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	return report(t, g, mcpserver.ReportArgs{Kind: "ready", RepositoryID: reg.Repository.ID}).SessionID
}

// report sends an agent's report.
func report(t *testing.T, g *gui, in mcpserver.ReportArgs) mcpserver.ReportResult {
	t.Helper()
	res, err := invoke(g, mcpserver.MethodSessionReport, in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestTrayAttentionOnQuestion(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint}, log, func() {})
	if s := g.menuModel().state; s != stateIdle {
		t.Fatalf("state %v with nothing going on", s)
	}
	id := openReportingSession(t, g)
	report(t, g, mcpserver.ReportArgs{Kind: "question", SessionID: id, Text: "which branch?"})
	if s := g.menuModel().state; s != stateAttention {
		t.Fatalf("state %v with a question waiting, want attention", s)
	}
}

func TestNotifyQuestionsAndEscalations(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint}, log, func() {})
	before := g.menuModel()
	id := openReportingSession(t, g)
	report(t, g, mcpserver.ReportArgs{Kind: "question", SessionID: id, Text: "which branch?"})
	now := g.menuModel()
	// Named as the sidebar names it (an external agent: its kind and start
	// time), in its repository.
	d, err := invoke(g, mcpserver.MethodSessionGet, mcpserver.SessionGetArgs{SessionID: id})
	if err != nil {
		t.Fatal(err)
	}
	who := agentName(d.Session) + " in demo"
	test.AssertNotificationSent(t, fyne.NewNotification(who+" asks", "which branch?"), func() { g.notifyAttention(before, now) })
	// The same question is not announced twice.
	test.AssertNotificationSent(t, nil, func() { g.notifyAttention(now, g.menuModel()) })

	report(t, g, mcpserver.ReportArgs{Kind: "escalate", SessionID: id, Text: "tests need a database"})
	esc := g.menuModel()
	if esc.state != stateAttention || len(esc.escalated) != 1 {
		t.Fatalf("after an escalation: state %v, escalated %v", esc.state, esc.escalated)
	}
	test.AssertNotificationSent(t, fyne.NewNotification(who+" escalates", "tests need a database"), func() { g.notifyAttention(now, esc) })
}
