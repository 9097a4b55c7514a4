package workspace

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// writeBytes writes n bytes that no file system compresses away.
func writeBytes(t *testing.T, path string, n int) {
	t.Helper()
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7919 + i>>8)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func measure(t *testing.T, dir string) DiskUse {
	t.Helper()
	use, err := MeasureDisk(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return use
}

func TestMeasureDisk(t *testing.T) {
	const kib = 1 << 10
	// base is what an empty folder takes: its own blocks, which the
	// cases' folders have too.
	base := measure(t, t.TempDir()).Bytes
	cases := []struct {
		name string
		make func(t *testing.T, dir string)
		// files is the expected count; the bytes beyond base must lie in
		// [min, max): blocks round each file up, and folders add theirs.
		files    int
		min, max int64
	}{
		{"empty", func(*testing.T, string) {}, 0, 0, 1},
		{"one file of 100 KiB", func(t *testing.T, dir string) {
			writeBytes(t, filepath.Join(dir, "f"), 100*kib)
		}, 1, 100 * kib, 100*kib + 64*kib},
		{"files in nested folders", func(t *testing.T, dir string) {
			writeBytes(t, filepath.Join(dir, "a", "b", "c", "f1"), 40*kib)
			writeBytes(t, filepath.Join(dir, "a", "f2"), 40*kib)
		}, 2, 80 * kib, 80*kib + 128*kib},
		{"a sparse file counts its blocks, not its length", func(t *testing.T, dir string) {
			f, err := os.Create(filepath.Join(dir, "sparse"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(1 << 30); err != nil {
				t.Fatal(err)
			}
		}, 1, 0, 64 * kib},
		{"a symlink is not followed", func(t *testing.T, dir string) {
			outside := filepath.Join(t.TempDir(), "big")
			writeBytes(t, outside, 1<<20)
			if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Dir(outside), filepath.Join(dir, "dirlink")); err != nil {
				t.Fatal(err)
			}
		}, 2, 0, 64 * kib},
		{"a file linked twice counts once", func(t *testing.T, dir string) {
			writeBytes(t, filepath.Join(dir, "f"), 200*kib)
			if err := os.Link(filepath.Join(dir, "f"), filepath.Join(dir, "g")); err != nil {
				t.Fatal(err)
			}
		}, 1, 200 * kib, 200*kib + 64*kib},
		{"the worktree's .git file is left out, a nested repository's is not", func(t *testing.T, dir string) {
			writeBytes(t, filepath.Join(dir, ".git"), 500*kib)
			writeBytes(t, filepath.Join(dir, "vendor", "lib", ".git"), 20*kib)
		}, 1, 20 * kib, 20*kib + 128*kib},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && strings.Contains(c.name, "sparse") {
				t.Skip("no block counts")
			}
			dir := t.TempDir()
			c.make(t, dir)
			use := measure(t, dir)
			if use.Files != c.files {
				t.Errorf("files = %d, want %d", use.Files, c.files)
			}
			if got := use.Bytes - base; got < c.min || got >= c.max {
				t.Errorf("bytes = %d + %d, want the second in [%d, %d)", base, got, c.min, c.max)
			}
			if use.Unreadable != 0 {
				t.Errorf("unreadable = %d", use.Unreadable)
			}
		})
	}
}

// MeasureDisk agrees with du(1) on a folder of many files, links and a
// sparse file (du counts the .git file, so there is none).
func TestMeasureDiskAgreesWithDu(t *testing.T) {
	du, err := exec.LookPath("du")
	if err != nil || runtime.GOOS != "linux" {
		t.Skip("needs GNU du")
	}
	dir := t.TempDir()
	for i := range 300 {
		writeBytes(t, filepath.Join(dir, "d"+strconv.Itoa(i%17), "f"+strconv.Itoa(i)), i*97)
	}
	if err := os.Link(filepath.Join(dir, "d1", "f1"), filepath.Join(dir, "hard")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(dir, "root")); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(du, "-s", "-x", "-B1", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	want, err := strconv.ParseInt(string(bytes.Fields(out)[0]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if got := measure(t, dir); got.Bytes != want || got.Files != 300+1 {
		t.Errorf("measured %+v; du says %d bytes, and there are 301 files", got, want)
	}
}

// A real worktree: its files count, the .git file pointing at the
// repository does not.
func TestMeasureDiskWorktree(t *testing.T) {
	repo := newRepo(t, "")
	ws := create(t, spec(repo, t.TempDir()))
	before := measure(t, ws.Path)
	if before.Files != 2 {
		t.Errorf("a fresh worktree of a.txt and src/b.txt counts %d files", before.Files)
	}
	writeBytes(t, filepath.Join(ws.Path, "build", "out.bin"), 256<<10)
	gittest.WriteFile(t, filepath.Join(ws.Path, "notes.txt"), "untracked\n")
	after := measure(t, ws.Path)
	if after.Files != 4 || after.Bytes-before.Bytes < 256<<10 {
		t.Errorf("after writing 256 KiB in two files: %+v, before %+v", after, before)
	}
}

func TestMeasureDiskStopsWithItsContext(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 * ctxCheckEvery {
		writeBytes(t, filepath.Join(dir, strconv.Itoa(i%5), strconv.Itoa(i)), 1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	use, err := MeasureDisk(ctx, dir)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if use.Files >= 3*ctxCheckEvery {
		t.Errorf("walked all %d files after the context ended", use.Files)
	}
}

func TestMeasureDiskRefusals(t *testing.T) {
	if _, err := MeasureDisk(context.Background(), filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing folder: err = %v, want ErrNotExist", err)
	}
	if os.Geteuid() == 0 || runtime.GOOS == "windows" {
		t.Skip("root reads every folder")
	}
	dir := t.TempDir()
	writeBytes(t, filepath.Join(dir, "shut", "f"), 10)
	writeBytes(t, filepath.Join(dir, "open"), 10)
	if err := os.Chmod(filepath.Join(dir, "shut"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "shut"), 0o755) })
	use := measure(t, dir)
	if use.Unreadable != 1 || use.Files != 1 {
		t.Errorf("with one folder shut: %+v, want 1 file and 1 unreadable", use)
	}
}

func TestFormatBytes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"}, {10188, "9.9 KiB"}, {10189, "10 KiB"},
		{204 << 10, "204 KiB"}, {1<<20 - 1, "1.0 MiB"}, {3435973837, "3.2 GiB"}, {1 << 62, "4.0 EiB"},
	} {
		if got := FormatBytes(c.n); got != c.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// BenchmarkMeasureDisk walks a worktree-sized folder: 20,000 small files
// in 400 folders, as a generated repository of the bench has.
func BenchmarkMeasureDisk(b *testing.B) {
	dir := b.TempDir()
	for i := range 400 {
		sub := filepath.Join(dir, "pkg"+strconv.Itoa(i/20), "mod"+strconv.Itoa(i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 50 {
			if err := os.WriteFile(filepath.Join(sub, "f"+strconv.Itoa(j)+".go"), []byte("package p\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		use, err := MeasureDisk(context.Background(), dir)
		if err != nil || use.Files != 20000 {
			b.Fatalf("%+v, %v", use, err)
		}
	}
}
