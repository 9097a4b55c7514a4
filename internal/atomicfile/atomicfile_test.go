package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before string // "" for no file
		mode   fs.FileMode
	}{
		{"new file", "", 0o600},
		{"replaces", "old content that is longer than the new", 0o600},
		{"keeps a wider mode asked for", "old", 0o644},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			if tc.before != "" {
				if err := os.WriteFile(path, []byte(tc.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := Write(path, []byte("new"), tc.mode); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil || string(b) != "new" {
				t.Fatalf("content %q, %v", b, err)
			}
			st, err := os.Stat(path)
			if err != nil || st.Mode().Perm() != tc.mode {
				t.Fatalf("mode %v, want %v (%v)", st.Mode().Perm(), tc.mode, err)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				t.Fatalf("left beside it: %v", ents)
			}
		})
	}
}

// A folder that cannot be written leaves the old file as it was.
func TestWriteFails(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only folder")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	os.WriteFile(path, []byte("old"), 0o600)
	os.Chmod(dir, 0o500)
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if err := Write(path, []byte("new"), 0o600); err == nil {
		t.Fatal("no error")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("content %q", b)
	}
}
