//go:build !ios && !android && !mobile && !wasm

package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/internal"
	"fyne.io/fyne/v2/test"
)

// The patch's own test: a save replaces the preferences file whole. While
// it writes, the file holds the old preferences; after, the new ones, owner
// only; a save that fails, or whose file cannot take the place, leaves the
// old ones; no new file is left beside it.
func TestPreferencesReplacedWhole(t *testing.T) {
	test.NewTempApp(t) // a save's reset of savedRecently runs through fyne.DoAndWait
	dir := t.TempDir()
	path := filepath.Join(dir, "preferences.json")
	old := []byte(`{"a":1}` + "\n")
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	p := &preferences{}
	leftovers := func() {
		t.Helper()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 || entries[0].Name() != "preferences.json" {
			t.Errorf("the folder holds %v, want preferences.json alone", entries)
		}
	}
	holds := func(want string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Errorf("preferences.json holds %q, want %q", b, want)
		}
	}

	t.Run("mid-write the old file is whole", func(t *testing.T) {
		w, err := p.storageWriterForPath(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(`{"a":2,`)); err != nil {
			t.Fatal(err)
		}
		holds(string(old))
		if _, err := w.Write([]byte(`"b":3}` + "\n")); err != nil {
			t.Fatal(err)
		}
		if err := w.Sync(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		holds(`{"a":2,"b":3}` + "\n")
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("preferences.json: %v, mode %v, want 0600", err, fi.Mode().Perm())
		}
		leftovers()
	})

	t.Run("a failed save keeps the old file", func(t *testing.T) {
		before, _ := os.ReadFile(path)
		w, err := p.storageWriterForPath(path)
		if err != nil {
			t.Fatal(err)
		}
		// JSON cannot hold a channel: the encoding fails, and the new
		// file (empty) must not take the old one's place.
		p.InMemoryPreferences = newTestInMemory(map[string]any{"bad": make(chan int)})
		if err := p.saveToStorage(w); err == nil {
			t.Fatal("saving an unencodable value succeeded")
		}
		holds(string(before))
		leftovers()
	})

	t.Run("a file that cannot take the place is dropped", func(t *testing.T) {
		sub := filepath.Join(dir, "gone")
		w, err := p.storageWriterForPath(filepath.Join(sub, "preferences.json"))
		if err != nil {
			t.Fatal(err)
		}
		// The place becomes a folder: the rename fails.
		if err := os.Mkdir(filepath.Join(sub, "preferences.json"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err == nil {
			t.Fatal("Close renamed a file over a folder")
		}
		entries, _ := os.ReadDir(sub)
		if len(entries) != 1 || !entries[0].IsDir() {
			t.Errorf("%s holds %v, want the folder alone", sub, entries)
		}
		if err := os.RemoveAll(sub); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("the JSON read back is the preferences saved", func(t *testing.T) {
		w, err := p.storageWriterForPath(path)
		if err != nil {
			t.Fatal(err)
		}
		p.InMemoryPreferences = newTestInMemory(map[string]any{"window.sessions.width": 1280.0})
		if err := p.saveToStorage(w); err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		b, _ := os.ReadFile(path)
		if err := json.Unmarshal(b, &got); err != nil || got["window.sessions.width"] != 1280.0 {
			t.Errorf("read back %s: %v", b, err)
		}
		leftovers()
	})
}

// newTestInMemory is in-memory preferences holding values.
func newTestInMemory(values map[string]any) *internal.InMemoryPreferences {
	m := internal.NewInMemoryPreferences()
	m.WriteValues(func(v map[string]any) {
		for k, x := range values {
			v[k] = x
		}
	})
	return m
}
