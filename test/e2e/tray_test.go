package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// The tray test drives the real binary the way a desktop panel does: it finds the
// StatusNotifierItem on the session bus, reads the menu with com.canonical.dbusmenu and clicks
// items, then reads the X11 clipboard with xclip as a paste would. It needs a display and a
// session bus (make test runs it under xvfb-run and dbus-run-session); no tray host
// (StatusNotifierWatcher) is needed, because the item exports its menu either way.

const (
	trayQuitTimeout = 10 * time.Second
	trayMenuPath    = dbus.ObjectPath("/StatusNotifierMenu")
	trayMenuIface   = "com.canonical.dbusmenu"
)

// trayTokenRE is the client token format of the spec (§3).
var trayTokenRE = regexp.MustCompile(`^sbt_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$`)

func TestTrayMenuOverDBus(t *testing.T) {
	trayRequireDesktop(t)
	bin := buildBinary(t)

	// Not t.TempDir: its long path would push control.sock past the 108-byte limit of Unix
	// socket paths.
	base, err := os.MkdirTemp("", "sbtray")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Mkdir(filepath.Join(base, "home"), 0o700); err != nil {
		t.Fatal(err)
	}
	p, endpoint, menu := trayStartOnBus(t, bin, trayEnv(base), base)

	// The app lays its menu out again as its state comes in (the first
	// refresh, the keyring), and a read of the D-Bus menu in the middle
	// of that sees it half made: the menu is read again (eventually)
	// until it holds the items checked below. Nothing on
	// the bus says the layout is done.
	var items []trayItem
	var labels []string
	eventually(t, func() bool {
		items, labels = trayMenuItems(t, menu), nil
		for _, it := range items {
			labels = append(labels, it.label)
		}
		full := true
		for _, want := range []string{"Copy MCP endpoint", "Copy client token", "Quit"} {
			full = full && slices.Contains(labels, want)
		}
		return full
	})
	t.Logf("tray menu: %q", labels)
	if len(items) == 0 || !strings.Contains(items[0].label, endpoint) {
		t.Fatalf("first tray item should show the endpoint %s; items: %q", endpoint, labels)
	}
	if items[0].enabled {
		t.Errorf("endpoint line %q is clickable; it should be a disabled status line", items[0].label)
	}
	for _, want := range []string{"Copy MCP endpoint", "Copy client token", "Quit"} {
		if !slices.Contains(labels, want) {
			t.Errorf("tray menu has no %q; items: %q", want, labels)
		}
	}
	if t.Failed() {
		return
	}

	got := trayCopy(t, p, menu, func(s string) bool { return s == endpoint }, "Copy MCP endpoint")
	if got != endpoint {
		t.Fatalf("clipboard after Copy MCP endpoint = %q, want %q", got, endpoint)
	}

	token := trayCopy(t, p, menu, trayTokenRE.MatchString, "Copy client token")
	if !trayTokenRE.MatchString(token) {
		// Say only the shape of what was there: it may be a real token.
		t.Fatalf("clipboard after Copy client token holds %d bytes that are not a client token (sbt_<16 hex>_<43 base64url>)", len(token))
	}
	p.setSecret(token)

	// Copy client config ▸ Claude Code command: a command with the live endpoint and a
	// token that works.
	items = trayMenuItems(t, menu)
	for _, want := range []string{"Copy client config", "Start agent"} {
		if !slices.ContainsFunc(items, func(it trayItem) bool { return it.label == want }) {
			t.Errorf("tray menu has no %q", want)
		}
	}
	cmdLine := trayCopy(t, p, menu, func(s string) bool { return strings.HasPrefix(s, "claude mcp add") }, "Copy client config", "Claude Code command")
	m := regexp.MustCompile(`^claude mcp add --transport http switchboard '([^']+)' --header 'Authorization: Bearer (sbt_[^']+)'$`).FindStringSubmatch(cmdLine)
	if m == nil {
		t.Fatalf("clipboard after Copy client config ▸ Claude Code command is not the command (%d bytes)", len(cmdLine))
	}
	if m[1] != endpoint {
		t.Errorf("the command names %s, want the live endpoint %s", m[1], endpoint)
	}
	if res := post(t, endpoint, m[2], `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","arguments":{}}}`); res.Status != 200 || res.Result.IsError {
		t.Errorf("the token in the copied command does not work: HTTP %d %s", res.Status, res.Body)
	}

	if code := trayQuit(t, p, menu); code != 0 {
		t.Fatalf("switchboard exited %d after Quit, want 0", code)
	}
	_, secret, _ := strings.Cut(token[len("sbt_"):], "_")
	if out := p.rawOutput(); strings.Contains(out, secret) {
		t.Error("switchboard printed the client token's secret (output redacted)")
	}
}

// trayRequireDesktop skips without a display or session bus, unless SWITCHBOARD_E2E_GUI=1
// says this run is meant to cover the GUI, where a silent skip would hide a broken setup.
func trayRequireDesktop(t *testing.T) {
	t.Helper()
	var missing []string
	if os.Getenv("DISPLAY") == "" {
		missing = append(missing, "DISPLAY")
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		missing = append(missing, "DBUS_SESSION_BUS_ADDRESS")
	}
	if _, err := exec.LookPath("xclip"); err != nil {
		missing = append(missing, "xclip")
	}
	if len(missing) == 0 {
		return
	}
	if os.Getenv("SWITCHBOARD_E2E_GUI") == "1" {
		t.Fatalf("SWITCHBOARD_E2E_GUI=1 but %s missing", strings.Join(missing, ", "))
	}
	t.Skip("run under xvfb-run and dbus-run-session; make test does")
}

// requireImport skips without imagemagick's import, which the tests that look at a window
// take screenshots with; under SWITCHBOARD_E2E_GUI=1 its absence fails the test instead.
func requireImport(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("import"); err != nil {
		if os.Getenv("SWITCHBOARD_E2E_GUI") == "1" {
			t.Fatal("imagemagick's import is missing")
		}
		t.Skip("no imagemagick to see the window")
	}
}

// trayEnv is the binary's environment: the caller's (DISPLAY and the session bus included)
// without any Switchboard setting, with data and runtime folders under base, a private HOME,
// so neither Fyne's preferences nor a keyring file land in the user's, and a locale Fyne
// can parse (with LANG=C it logs an error and the labels could differ).
func trayEnv(base string) []string {
	home := filepath.Join(base, "home")
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "SWITCHBOARD_"), strings.HasPrefix(k, "LC_"),
			k == "HOME", k == "LANG", k == "XDG_CONFIG_HOME", k == "XDG_DATA_HOME", k == "XDG_CACHE_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"SWITCHBOARD_DATA_DIR="+filepath.Join(base, "data"),
		"SWITCHBOARD_RUNTIME_DIR="+filepath.Join(base, "run"),
		"HOME="+home,
		"LANG=en_US.UTF-8",
	)
}

// trayProc is the running binary and what it printed.
type trayProc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when Wait returned
	err  error         // Wait's result, set before done closes

	mu     sync.Mutex
	out    bytes.Buffer // stdout and stderr; guarded by mu
	secret string       // redacted from logged output; guarded by mu
}

// trayStartOnBus starts the tray app with data under base and waits for its
// endpoint and its menu on the session bus.
func trayStartOnBus(t *testing.T, bin string, env []string, base string) (*trayProc, string, dbus.BusObject) {
	t.Helper()
	p := trayStart(t, bin, env)
	endpoint := trayWaitEndpoint(t, p, filepath.Join(base, "run", "mcp-http-endpoint"))
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("connect to the session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", p.cmd.Process.Pid)
	trayWaitName(t, p, conn, name)
	return p, endpoint, conn.Object(name, trayMenuPath)
}

func trayStart(t *testing.T, bin string, env []string) *trayProc {
	t.Helper()
	p := &trayProc{cmd: exec.Command(bin), done: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout = p
	p.cmd.Stderr = p
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("switchboard output:\n%s", p.output())
		}
	})
	return p
}

func (p *trayProc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

// setSecret names a value that output must never show in the test log.
func (p *trayProc) setSecret(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.secret = s
}

func (p *trayProc) rawOutput() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// output is what the process printed, with the secret (if known) redacted.
func (p *trayProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.secret == "" {
		return p.out.String()
	}
	return strings.ReplaceAll(p.out.String(), p.secret, "<client token>")
}

// mustRun fails the test if the process has ended: every caller is waiting for something
// only a running process does.
func (p *trayProc) mustRun(t *testing.T, waitingFor string) {
	t.Helper()
	select {
	case <-p.done:
		t.Fatalf("switchboard exited (%v) while waiting for %s", p.err, waitingFor)
	default:
	}
}

// trayQuit clicks Quit and returns the exit code. An app still running
// trayQuitTimeout later fails the test after being sent SIGQUIT: the Go
// runtime then prints every goroutine's stack into the output the cleanup
// logs, which says where quitting stuck.
func trayQuit(t *testing.T, p *trayProc, menu dbus.BusObject) int {
	t.Helper()
	trayClick(t, menu, trayMenuItems(t, menu), "Quit")
	code, exited := p.wait(trayQuitTimeout)
	if !exited {
		p.cmd.Process.Signal(syscall.SIGQUIT)
		p.wait(5 * time.Second)
		t.Fatalf("switchboard still ran %s after Quit (its goroutines, after SIGQUIT, are in its output)", trayQuitTimeout)
	}
	return code
}

// wait waits up to d for the process to end and returns its exit code.
func (p *trayProc) wait(d time.Duration) (code int, exited bool) {
	select {
	case <-p.done:
	case <-time.After(d):
		return 0, false
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0, true
	case errors.As(p.err, &ee):
		return ee.ExitCode(), true
	default:
		return -1, true
	}
}

// trayWaitEndpoint waits for the endpoint file, which holds one line with the URL.
func trayWaitEndpoint(t *testing.T, p *trayProc, path string) string {
	t.Helper()
	var b []byte
	waitUntil(t, "the endpoint in "+path, func() bool {
		p.mustRun(t, "the endpoint file")
		var err error
		b, err = os.ReadFile(path)
		return err == nil && bytes.HasSuffix(b, []byte("\n"))
	})
	s := strings.TrimSpace(string(b))
	if u, err := url.Parse(s); err != nil || u.Scheme != "http" || u.Host == "" {
		t.Fatalf("%s holds %q, want an http URL", path, s)
	}
	return s
}

// trayWaitName waits until the process owns its StatusNotifierItem name on the bus.
func trayWaitName(t *testing.T, p *trayProc, conn *dbus.Conn, name string) {
	t.Helper()
	waitUntil(t, "the bus name "+name, func() bool {
		p.mustRun(t, "its tray item on the session bus")
		var names []string
		if err := conn.BusObject().Call("org.freedesktop.DBus.ListNames", 0).Store(&names); err != nil {
			t.Fatalf("ListNames: %v", err)
		}
		return slices.Contains(names, name)
	})
}

// trayItem is one entry of a dbusmenu layout.
type trayItem struct {
	id       int32
	label    string
	enabled  bool
	checked  bool // a checkmark item's toggle-state is 1
	children []trayItem
}

// trayMenuItems reads the whole menu with GetLayout(0, -1, []) and returns the root's items.
func trayMenuItems(t *testing.T, menu dbus.BusObject) []trayItem {
	t.Helper()
	call := menu.Call(trayMenuIface+".GetLayout", 0, int32(0), int32(-1), []string{})
	if call.Err != nil {
		t.Fatalf("GetLayout: %v", call.Err)
	}
	if len(call.Body) != 2 {
		t.Fatalf("GetLayout answered %d values, want revision and layout", len(call.Body))
	}
	root, err := trayParseItem(call.Body[1])
	if err != nil {
		t.Fatalf("GetLayout: %v", err)
	}
	return root.children
}

// trayParseItem decodes one layout node, signature (ia{sv}av): id, properties, children.
// godbus hands a struct inside a variant over as []any, so the children arrive that way.
func trayParseItem(v any) (trayItem, error) {
	fields, ok := v.([]any)
	if !ok || len(fields) != 3 {
		return trayItem{}, fmt.Errorf("layout node is %T, want a struct (ia{sv}av)", v)
	}
	id, ok1 := fields[0].(int32)
	props, ok2 := fields[1].(map[string]dbus.Variant)
	kids, ok3 := fields[2].([]dbus.Variant)
	if !ok1 || !ok2 || !ok3 {
		return trayItem{}, fmt.Errorf("layout node fields are %T, %T, %T, want int32, a{sv}, av", fields[0], fields[1], fields[2])
	}
	it := trayItem{id: id, enabled: true}
	if l, ok := props["label"].Value().(string); ok {
		it.label = l
	}
	if e, ok := props["enabled"].Value().(bool); ok {
		it.enabled = e
	}
	if c, ok := props["toggle-state"].Value().(int32); ok {
		it.checked = c == 1
	}
	for _, k := range kids {
		child, err := trayParseItem(k.Value())
		if err != nil {
			return trayItem{}, fmt.Errorf("child of %d: %w", id, err)
		}
		it.children = append(it.children, child)
	}
	return it, nil
}

// trayClick sends the "clicked" event a panel sends when the user picks the item.
func trayClick(t *testing.T, menu dbus.BusObject, items []trayItem, label string) {
	t.Helper()
	i := slices.IndexFunc(items, func(it trayItem) bool { return it.label == label })
	if i < 0 {
		t.Fatalf("no tray item %q", label)
	}
	call := menu.Call(trayMenuIface+".Event", 0, items[i].id, "clicked", dbus.MakeVariant(""), uint32(0))
	if call.Err != nil {
		t.Fatalf("click %q: %v", label, call.Err)
	}
}

// trayCopy clicks the item at path (labels from the top of the menu down)
// until the clipboard holds what ok accepts, or the test's deadline is
// near, and returns the last value read.
func trayCopy(t *testing.T, p *trayProc, menu dbus.BusObject, ok func(string) bool, path ...string) string {
	t.Helper()
	var last string
	trayClickUntil(t, p, menu, func() bool { last = trayReadClipboard(); return ok(last) }, path...)
	return last
}

// trayClickUntil clicks the item at path (labels from the top of the menu
// down) until done holds, and reports whether it did before the test's
// deadline came near. The app handles a click on its loop, a little after
// the D-Bus call returns; and Fyne rebuilds the tray menu now and then
// (after a click, and once early on) with new item ids, dropping a click
// on an id that is gone ("no menu item with ID"), which leaves no trace:
// so the layout is read again before each click, and a click after which
// done has not held for 2 s is made again. A layout read in the middle of
// a rebuild may lack the item (TestTrayMenuOverDBus failed so, the item
// in the layout read just before): it is read again until the item is
// there, and only an item never there fails the test.
func trayClickUntil(t *testing.T, p *trayProc, menu dbus.BusObject, done func() bool, path ...string) bool {
	t.Helper()
	near, stop := nearDeadline(t)
	defer stop()
	// end is closed once near fires, so that both waits below see it.
	end, quit := make(chan time.Time), make(chan struct{})
	defer close(quit)
	go func() {
		select {
		case <-near:
			close(end)
		case <-quit:
		}
	}()
	for {
		var items []trayItem
		found := poll(end, func() bool {
			var ok bool
			items, ok = trayItemsAt(trayMenuItems(t, menu), path[:len(path)-1])
			return ok && slices.ContainsFunc(items, func(it trayItem) bool { return it.label == path[len(path)-1] })
		})
		if !found {
			t.Fatalf("no tray item %q in the menu until near the test's deadline", strings.Join(path, " > "))
		}
		trayClick(t, menu, items, path[len(path)-1])
		if poll(time.After(2*time.Second), func() bool { p.mustRun(t, strings.Join(path, " > ")); return done() }) {
			return true
		}
		select {
		case <-end:
			return false
		default:
		}
	}
}

// trayItemsAt returns the items of the submenu at path (labels from the
// top of the menu down), and whether the menu has it.
func trayItemsAt(items []trayItem, path []string) ([]trayItem, bool) {
	for _, label := range path {
		i := slices.IndexFunc(items, func(it trayItem) bool { return it.label == label })
		if i < 0 {
			return nil, false
		}
		items = items[i].children
	}
	return items, true
}

// trayReadClipboard is `xclip -o -selection clipboard`, "" when the selection is empty or
// its owner does not answer within 2 s.
func trayReadClipboard() string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "xclip", "-o", "-selection", "clipboard").Output()
	if err != nil {
		return ""
	}
	return string(out)
}
