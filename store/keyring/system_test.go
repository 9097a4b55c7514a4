package keyring

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/godbus/dbus/v5"
	gokeyring "github.com/zalando/go-keyring"
)

// blockingBackend is a keyring that never answers until release is closed.
// It counts the calls that reached it.
func blockingBackend(release <-chan struct{}, calls *atomic.Int32) backend {
	wait := func() { calls.Add(1); <-release }
	return backend{
		get: func(string, string) (string, error) { wait(); return "late", nil },
		set: func(string, string, string) error { wait(); return nil },
		del: func(string, string) error { wait(); return nil },
	}
}

// The timeout and the context, on the fake clock of a synctest bubble: the
// backend hangs on a channel and the calls wait on timers, so the bubble's
// clock moves only when all of them are blocked, and each duration below
// is exact, however loaded the machine.

func TestSystemTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 100 * time.Millisecond
		release := make(chan struct{})
		var calls atomic.Int32
		s := newSystem(timeout, blockingBackend(release, &calls))
		ctx := context.Background()

		if got := s.State(); got != "unknown" {
			t.Errorf("State before any call = %q, want unknown", got)
		}
		start := time.Now()
		_, err := s.Get(ctx, "svc", "alice")
		if d := time.Since(start); d != timeout {
			t.Errorf("Get returned after %v, want %v", d, timeout)
		}
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Get: err = %v, want ErrUnavailable", err)
		}
		if s.Available() || !strings.HasPrefix(s.State(), "unavailable: ") {
			t.Errorf("after a timeout: Available = %v, State = %q", s.Available(), s.State())
		}

		// While the abandoned call hangs, every call fails at once and
		// none reaches the backend: goroutines do not pile up.
		fast := []struct {
			name string
			call func() error
		}{
			{"get", func() error { _, err := s.Get(ctx, "svc", "alice"); return err }},
			{"set", func() error { return s.Set(ctx, "svc", "alice", "pw-not-in-errors") }},
			{"delete", func() error { return s.Delete(ctx, "svc", "alice") }},
		}
		for _, f := range fast {
			start := time.Now()
			err := f.call()
			if d := time.Since(start); d != 0 {
				t.Errorf("%s took %v after a timeout, want an immediate failure", f.name, d)
			}
			if !errors.Is(err, ErrUnavailable) {
				t.Errorf("%s: err = %v, want ErrUnavailable", f.name, err)
			}
			if err != nil && strings.Contains(err.Error(), "pw-not-in-errors") {
				t.Errorf("%s: error contains the secret: %v", f.name, err)
			}
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("backend reached %d times, want 1", n)
		}

		// Once the wedged call returns (Wait: its goroutine has ended),
		// the keyring is tried again.
		close(release)
		synctest.Wait()
		if _, err := s.Get(ctx, "svc", "alice"); err != nil {
			t.Fatalf("keyring did not recover after the hung call returned: %v", err)
		}
		if !s.Available() || s.State() != "available" {
			t.Errorf("after recovery: Available = %v, State = %q", s.Available(), s.State())
		}
	})
}

func TestSystemContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		var calls atomic.Int32
		s := newSystem(time.Hour, blockingBackend(release, &calls))

		const wait = 50 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		start := time.Now()
		err := s.Set(ctx, "svc", "alice", "pw")
		if d := time.Since(start); d != wait {
			t.Errorf("Set returned after %v, want %v (when its context ended)", d, wait)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrUnavailable) {
			t.Errorf("Set: err = %v, want DeadlineExceeded and ErrUnavailable", err)
		}

		// A context that has already ended does not start a call at all.
		done, cancel2 := context.WithCancel(context.Background())
		cancel2()
		if _, err := newSystem(time.Hour, blockingBackend(release, &calls)).Get(done, "svc", "alice"); !errors.Is(err, context.Canceled) {
			t.Errorf("Get with a canceled context: err = %v, want context.Canceled", err)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("backend reached %d times, want 1", n)
		}
	})
}

func TestSystemErrors(t *testing.T) {
	boom := errors.New("org.freedesktop.DBus.Error.ServiceUnknown: no secrets here")
	tests := []struct {
		name      string
		err       error
		want      error // nil: success
		wantState string
	}{
		{"ok", nil, nil, "available"},
		{"not found", gokeyring.ErrNotFound, ErrNotFound, "available"},
		{"failure", boom, ErrUnavailable, "unavailable: " + boom.Error()},
		{"long failure", errors.New(strings.Repeat("é", 300) + "\nsecond line"), ErrUnavailable, "unavailable: " + strings.Repeat("é", 100) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSystem(time.Second, backend{
				get: func(string, string) (string, error) { return "v", tt.err },
				set: func(string, string, string) error { return tt.err },
				del: func(string, string) error { return tt.err },
			})
			ctx := context.Background()
			errs := map[string]error{
				"set":    s.Set(ctx, "svc", "alice", "pw-not-in-errors"),
				"delete": s.Delete(ctx, "svc", "alice"),
			}
			_, errs["get"] = s.Get(ctx, "svc", "alice")
			for op, err := range errs {
				if tt.want == nil && err != nil || !errors.Is(err, tt.want) {
					t.Errorf("%s: err = %v, want %v", op, err, tt.want)
				}
				if tt.want == ErrNotFound && errors.Is(err, ErrUnavailable) {
					t.Errorf("%s: not found reported as unavailable: %v", op, err)
				}
				if err != nil && strings.Contains(err.Error(), "pw-not-in-errors") {
					t.Errorf("%s: error contains the secret: %v", op, err)
				}
			}
			if got := s.State(); got != tt.wantState {
				t.Errorf("State = %q, want %q", got, tt.wantState)
			}
			if got, want := s.Available(), tt.wantState == "available"; got != want {
				t.Errorf("Available = %v, want %v", got, want)
			}
		})
	}
}

func TestSystemConcurrent(t *testing.T) {
	m := NewMemory()
	s := newSystem(time.Second, backend{
		get: func(svc, user string) (string, error) {
			v, err := m.Get(context.Background(), svc, user)
			if errors.Is(err, ErrNotFound) {
				return "", gokeyring.ErrNotFound
			}
			return v, err
		},
		set: func(svc, user, secret string) error { return m.Set(context.Background(), svc, user, secret) },
		del: func(svc, user string) error { return m.Delete(context.Background(), svc, user) },
	})
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			user := fmt.Sprint("user", i)
			for j := range 20 {
				secret := fmt.Sprint("secret", i, j)
				if err := s.Set(ctx, "svc", user, secret); err != nil {
					t.Errorf("Set: %v", err)
					return
				}
				if got, err := s.Get(ctx, "svc", user); err != nil || got != secret {
					t.Errorf("Get = %q, %v; want %q", got, err, secret)
					return
				}
				_ = s.State()
			}
		})
	}
	wg.Wait()
	if !s.Available() {
		t.Errorf("State = %q, want available", s.State())
	}
}

// helperEnv tells a re-executed test binary which helper scenario to run.
const helperEnv = "SWITCHBOARD_KEYRING_TEST_HELPER"

// TestSystemWedgedBus runs the real go-keyring against a D-Bus session bus
// that accepts connections and never answers, against an address with no bus
// behind it, and with no address at all. It runs in a child process: godbus
// caches the session bus connection for the life of the process and
// go-keyring reads DBUS_SESSION_BUS_ADDRESS only when it connects, and a
// wedged connection holds godbus's session-bus lock forever.
func TestSystemWedgedBus(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("go-keyring uses D-Bus only on Linux and the BSDs")
	}
	tests := []struct {
		name string
		bus  string // "silent", "missing" or "unset"
	}{
		{"silent bus", "silent"},
		{"no bus at the address", "missing"},
		{"no address", "unset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			sock := filepath.Join(dir, "bus")
			var accepted atomic.Int32
			if tt.bus == "silent" {
				ln, err := net.Listen("unix", sock)
				if err != nil {
					t.Fatal(err)
				}
				var mu sync.Mutex
				var held []net.Conn // kept open and unanswered
				t.Cleanup(func() {
					ln.Close()
					mu.Lock()
					defer mu.Unlock()
					for _, c := range held {
						c.Close()
					}
				})
				go func() {
					for {
						c, err := ln.Accept()
						if err != nil {
							return
						}
						accepted.Add(1)
						mu.Lock()
						held = append(held, c)
						mu.Unlock()
					}
				}()
			}

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperWedged$", "-test.count=1", "-test.v", "-test.timeout=20s")
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") && !strings.HasPrefix(kv, "PATH=") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(cmd.Env, helperEnv+"=wedged")
			// A dbus-launch that leaves a mark shows whether godbus tried to
			// autolaunch a bus.
			marker := filepath.Join(dir, "dbus-launch-ran")
			script := "#!/bin/sh\ntouch '" + marker + "'\nexit 1\n"
			if err := os.WriteFile(filepath.Join(dir, "dbus-launch"), []byte(script), 0o700); err != nil {
				t.Fatal(err)
			}
			cmd.Env = append(cmd.Env, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
			if tt.bus == "unset" {
				if checkSessionBus("", fmt.Sprintf("/run/user/%d", os.Getuid())) == nil {
					t.Skip("this user has a session bus under /run/user that godbus would find")
				}
			} else {
				cmd.Env = append(cmd.Env, "DBUS_SESSION_BUS_ADDRESS=unix:path="+dbus.EscapeBusAddressValue(sock))
			}

			out, err := cmd.CombinedOutput()
			t.Logf("helper:\n%s", out)
			if err != nil {
				t.Fatalf("helper: %v", err)
			}
			if !strings.Contains(string(out), "wedged helper: ok") {
				t.Fatal("helper did not run its checks")
			}
			if tt.bus == "silent" && accepted.Load() == 0 {
				t.Error("go-keyring never connected to the fake bus")
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("godbus ran dbus-launch")
			}
		})
	}
}

func TestCheckSessionBus(t *testing.T) {
	withBus := t.TempDir()
	if err := os.WriteFile(filepath.Join(withBus, "bus"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	withFile := t.TempDir()
	if err := os.WriteFile(filepath.Join(withFile, "dbus-session"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	tests := []struct {
		addr, runDir string
		ok           bool
	}{
		{"unix:path=/run/user/1000/bus", empty, true},
		{"", withBus, true},
		{"", withFile, true},
		{"autolaunch:", withBus, true},
		{"", empty, false},
		{"autolaunch:", empty, false},
		{"", filepath.Join(empty, "missing"), false},
	}
	for _, tt := range tests {
		if err := checkSessionBus(tt.addr, tt.runDir); (err == nil) != tt.ok {
			t.Errorf("checkSessionBus(%q, %s) = %v, want ok=%v", tt.addr, tt.runDir, err, tt.ok)
		}
	}
}

// TestHelperWedged is the child half of TestSystemWedgedBus.
func TestHelperWedged(t *testing.T) {
	if os.Getenv(helperEnv) != "wedged" {
		t.Skip("helper process for TestSystemWedgedBus")
	}
	s := NewSystem(time.Second)
	ctx := context.Background()
	start := time.Now()
	_, err := s.Get(ctx, "switchboard-test", "wedged")
	d := time.Since(start)
	t.Logf("Get: %v after %v", err, d)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Get: err = %v, want ErrUnavailable", err)
	}
	if d > 2*time.Second {
		t.Fatalf("Get took %v, want at most about 1s", d)
	}
	start = time.Now()
	err = s.Set(ctx, "switchboard-test", "wedged", "pw")
	if d := time.Since(start); !errors.Is(err, ErrUnavailable) || d > 500*time.Millisecond {
		t.Fatalf("second call: err = %v after %v, want ErrUnavailable at once", err, d)
	}
	t.Logf("State: %s", s.State())
	t.Log("wedged helper: ok")
}

// TestSystemKeyringRoundTrip talks to a real Secret Service. Run it with
//
//	bash scripts/with-keyring.sh go test ./store/keyring/
func TestSystemKeyringRoundTrip(t *testing.T) {
	if os.Getenv("SWITCHBOARD_TEST_KEYRING") != "1" {
		t.Skip("needs a real OS keyring: run `bash scripts/with-keyring.sh go test ./store/keyring/` (or set SWITCHBOARD_TEST_KEYRING=1 in a session with an unlocked keyring)")
	}
	if runtime.GOOS == "linux" && os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		// Without it godbus would run dbus-launch and start a stray bus.
		t.Fatal("SWITCHBOARD_TEST_KEYRING=1 but DBUS_SESSION_BUS_ADDRESS is unset; run under scripts/with-keyring.sh")
	}
	s := NewSystem(10 * time.Second) // the first call may start the keyring daemon
	ctx := context.Background()
	service := fmt.Sprintf("switchboard-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	const user = "round-trip"
	t.Cleanup(func() { s.Delete(context.Background(), service, user) })

	if _, err := s.Get(ctx, service, user); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get before Set: err = %v, want ErrNotFound (State %q)", err, s.State())
	}
	for _, secret := range []string{"first_secret", "second secret, with_under_scores and ünïcode"} {
		if err := s.Set(ctx, service, user, secret); err != nil {
			t.Fatalf("Set: %v", err)
		}
		if got, err := s.Get(ctx, service, user); err != nil || got != secret {
			t.Fatalf("Get = %q, %v; want %q", got, err, secret)
		}
	}
	if err := s.Delete(ctx, service, user); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(ctx, service, user); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: err = %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, service, user); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Delete: err = %v, want ErrNotFound", err)
	}
	if !s.Available() || s.State() != "available" {
		t.Errorf("Available = %v, State = %q", s.Available(), s.State())
	}
}
