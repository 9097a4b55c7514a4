package app

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
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

const (
	testEndpoint = "http://127.0.0.1:41234/mcp"
	testToken    = "sbt_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
)

// syncBuffer is a log sink that the tray's goroutine and the test may use at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func newTestLogger() (*slog.Logger, *syncBuffer) {
	var sink syncBuffer
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

// waitClipboard polls the test app's clipboard, which the token action fills from the
// Fyne thread after its own goroutine returns.
func waitClipboard(t *testing.T, a fyne.App, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for a.Clipboard().Content() != want {
		if time.Now().After(deadline) {
			t.Fatalf("clipboard did not become the expected %d-byte value in time", len(want))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTrayMenuItems(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	m := trayMenu(a, &fakeBackend{endpoint: testEndpoint, keyring: "available"}, log, func() {})

	want := []string{"MCP: " + testEndpoint, "Copy MCP endpoint", "Copy client token", "---", "Quit"}
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
	m := trayMenu(a, &fakeBackend{keyring: "available"}, log, func() {})

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

func TestTrayMenuKeyringUnavailable(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	m := trayMenu(a, &fakeBackend{endpoint: testEndpoint, keyring: "unavailable: timeout"}, log, func() {})

	want := []string{"MCP: " + testEndpoint, "Keyring unavailable: timeout", "Copy MCP endpoint", "Copy client token", "---", "Quit"}
	if got := labels(m); !slices.Equal(got, want) {
		t.Fatalf("menu labels = %q, want %q", got, want)
	}
	if !m.Items[1].Disabled {
		t.Error("keyring line is enabled; it is information, not an action")
	}
}

func TestTrayCopyEndpoint(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	m := trayMenu(a, &fakeBackend{endpoint: testEndpoint}, log, func() {})

	item(t, m, "Copy MCP endpoint").Action()
	if got := a.Clipboard().Content(); got != testEndpoint {
		t.Errorf("clipboard = %q, want %q", got, testEndpoint)
	}
}

func TestTrayCopyToken(t *testing.T) {
	a := test.NewTempApp(t)
	log, sink := newTestLogger()
	m := trayMenu(a, &fakeBackend{endpoint: testEndpoint, token: testToken}, log, func() {})

	item(t, m, "Copy client token").Action()
	waitClipboard(t, a, testToken)
	if strings.Contains(sink.String(), testToken[4:]) {
		t.Error("log contains the client token")
	}
}

func TestTrayCopyTokenError(t *testing.T) {
	a := test.NewTempApp(t)
	log, sink := newTestLogger()
	b := &fakeBackend{endpoint: testEndpoint, token: testToken, tokenErr: errors.New("keyring: timeout")}
	m := trayMenu(a, b, log, func() {})

	a.Clipboard().SetContent("before")
	item(t, m, "Copy client token").Action()
	// The action's goroutine logs the error and returns. The test driver runs fyne.Do at
	// once, so a copy made before that log line would show on the clipboard by then.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(sink.String(), "keyring: timeout") {
		if time.Now().After(deadline) {
			t.Fatalf("the token error was not logged:\n%s", sink)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := a.Clipboard().Content(); got != "before" {
		t.Errorf("clipboard changed to a %d-byte value although ClientToken failed", len(got))
	}
	if strings.Contains(sink.String(), testToken[4:]) {
		t.Error("log contains token material")
	}
}

func TestTrayQuit(t *testing.T) {
	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	quit := make(chan struct{}, 1)
	m := trayMenu(a, &fakeBackend{endpoint: testEndpoint}, log, func() { quit <- struct{}{} })

	item(t, m, "Quit").Action()
	select {
	case <-quit:
	default:
		t.Error("Quit did not call the quit function")
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
	err := RunTray(context.Background(), &fakeBackend{}, log)
	if err == nil || !strings.Contains(err.Error(), "no display") {
		t.Fatalf("RunTray without a display = %v, want a no-display error", err)
	}
}
