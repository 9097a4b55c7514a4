package keyring

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// store is a keyring that needs nothing but this process and a disk.
type store struct {
	name string
	new  func(t *testing.T) Keyring
}

func stores() []store {
	return []store{
		{"memory", func(t *testing.T) Keyring { return NewMemory() }},
		{"file", func(t *testing.T) Keyring { return NewFile(filepath.Join(t.TempDir(), "secrets.json")) }},
	}
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, st := range stores() {
		t.Run(st.name, func(t *testing.T) {
			kr := st.new(t)
			if _, err := kr.Get(ctx, "svc", "alice"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Get before Set: err = %v, want ErrNotFound", err)
			}
			if err := kr.Delete(ctx, "svc", "alice"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Delete before Set: err = %v, want ErrNotFound", err)
			}
			steps := []struct {
				user, secret string
			}{
				{"alice", "s3cret_with_under_scores"},
				{"alice", "overwritten"},
				{"bob", "other user, same service"},
				{"", "empty user"},
			}
			for _, s := range steps {
				if err := kr.Set(ctx, "svc", s.user, s.secret); err != nil {
					t.Fatalf("Set(%q): %v", s.user, err)
				}
				if got, err := kr.Get(ctx, "svc", s.user); err != nil || got != s.secret {
					t.Fatalf("Get(%q) = %q, %v; want %q", s.user, got, err, s.secret)
				}
			}
			if _, err := kr.Get(ctx, "other-svc", "alice"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Get from another service: err = %v, want ErrNotFound", err)
			}
			if err := kr.Delete(ctx, "svc", "alice"); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			_, err := kr.Get(ctx, "svc", "alice")
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("Get after Delete: err = %v, want ErrNotFound", err)
			}
			if errors.Is(err, ErrUnavailable) {
				t.Errorf("not found must not be unavailable: %v", err)
			}
			if got, err := kr.Get(ctx, "svc", "bob"); err != nil || got != "other user, same service" {
				t.Errorf("Get(bob) after deleting alice = %q, %v", got, err)
			}
		})
	}
}

func TestConcurrent(t *testing.T) {
	ctx := context.Background()
	for _, st := range stores() {
		t.Run(st.name, func(t *testing.T) {
			kr := st.new(t)
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Go(func() {
					user := fmt.Sprintf("user%d", i)
					for j := range 20 {
						secret := fmt.Sprintf("secret-%d-%d", i, j)
						if err := kr.Set(ctx, "svc", user, secret); err != nil {
							t.Errorf("Set: %v", err)
							return
						}
						if got, err := kr.Get(ctx, "svc", user); err != nil || got != secret {
							t.Errorf("Get(%s) = %q, %v; want %q", user, got, err, secret)
							return
						}
					}
					if err := kr.Delete(ctx, "svc", user); err != nil {
						t.Errorf("Delete: %v", err)
					}
				})
			}
			wg.Wait()
			for i := range 8 {
				if _, err := kr.Get(ctx, "svc", fmt.Sprintf("user%d", i)); !errors.Is(err, ErrNotFound) {
					t.Errorf("user%d left behind: err = %v", i, err)
				}
			}
		})
	}
}

func TestFilePersistsWithOwnerOnlyModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix permission bits")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data", "switchboard")
	path := filepath.Join(dir, "secrets.json")
	if err := NewFile(path).Set(ctx, "svc", "alice", "s3cret"); err != nil {
		t.Fatal(err)
	}
	// A new File on the same path sees the secret: it is on disk, not cached.
	if got, err := NewFile(path).Get(ctx, "svc", "alice"); err != nil || got != "s3cret" {
		t.Fatalf("Get from a fresh File = %q, %v", got, err)
	}
	for _, c := range []struct {
		path string
		want os.FileMode
	}{
		{path, 0o600},
		{dir, 0o700 | os.ModeDir},
		{filepath.Dir(dir), 0o700 | os.ModeDir},
	} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode() & (os.ModePerm | os.ModeDir); got != c.want {
			t.Errorf("%s: mode %v, want %v", c.path, got, c.want)
		}
	}
	// The atomic write leaves no temporary file behind.
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "secrets.json" {
		t.Errorf("directory holds %v, want only secrets.json", ents)
	}
}

func TestFileRefusesWideMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix permission bits")
	}
	ctx := context.Background()
	tests := []struct {
		mode os.FileMode
		ok   bool
	}{
		{0o600, true},
		{0o400, true},
		{0o640, false},
		{0o644, false},
		{0o604, false},
		{0o700, false},
		{0o666, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%#o", tt.mode), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "secrets.json")
			kr := NewFile(path)
			if err := kr.Set(ctx, "svc", "alice", "s3cret"); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tt.mode); err != nil {
				t.Fatal(err)
			}
			got, err := kr.Get(ctx, "svc", "alice")
			if tt.ok {
				if err != nil || got != "s3cret" {
					t.Fatalf("Get = %q, %v; want the secret", got, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Get of a %#o file succeeded, want refusal", tt.mode)
			}
			if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("%#o", tt.mode)) || !strings.Contains(msg, "wider than 0600") {
				t.Errorf("error %q does not say the mode is too wide", msg)
			}
			// Set must not quietly rewrite (and so hide) an exposed file either.
			if err := kr.Set(ctx, "svc", "alice", "new"); err == nil {
				t.Error("Set on a wide-mode file succeeded, want refusal")
			}
		})
	}
}

func TestFileErrorsHideContent(t *testing.T) {
	ctx := context.Background()
	const secret = "hunter2"
	tests := []struct{ name, content string }{
		{"truncated", `{"secrets": {"svc": {"alice": "` + secret},
		{"bare secret", secret},
		{"wrong type", `{"secrets": {"svc": {"alice": 12345` + `}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "secrets.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := NewFile(path).Get(ctx, "svc", "alice")
			if err == nil {
				t.Fatal("Get of a corrupt file succeeded")
			}
			if msg := err.Error(); strings.Contains(msg, secret) || strings.Contains(msg, "12345") || strings.Contains(msg, "'h'") {
				t.Errorf("error quotes the file's content: %q", msg)
			}
		})
	}
}
