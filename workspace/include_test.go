package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// The files .worktreeinclude names and git does not track are copied into
// a new worktree with their modes; tracked files, links leading out of the
// checkout and files the worktree has are not; the person's checkout is
// not touched.
func TestCopyIncluded(t *testing.T) {
	repo := newRepo(t, "")
	gittest.WriteFile(t, filepath.Join(repo, ".gitignore"), ".env\n*.local\nbin/\n")
	gittest.WriteFile(t, filepath.Join(repo, "tracked.local"), "committed\n")
	git(t, repo, "add", ".gitignore")
	git(t, repo, "add", "-f", "tracked.local")
	git(t, repo, "commit", "-q", "-m", "ignore")
	gittest.WriteFile(t, filepath.Join(repo, IncludeFile),
		"# what an agent needs to run the project\n.env\n*.local\nconfig/dev.json\nbin/\nout-link\nin-link\na.txt\n")
	write := func(rel, text string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write(".env", "TOKEN=local\n", 0o600)
	write("app.local", "local settings\n", 0o640)
	write("config/dev.json", "{}\n", 0o644)
	write("bin/run.sh", "#!/bin/sh\necho run\n", 0o755)
	write("not-listed.txt", "stays\n", 0o644)
	outside := filepath.Join(t.TempDir(), "secret")
	gittest.WriteFile(t, outside, "outside the repository\n")
	if err := os.Symlink(outside, filepath.Join(repo, "out-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".env", filepath.Join(repo, "in-link")); err != nil {
		t.Fatal(err)
	}
	personWorks(t, repo) // a.txt edited: tracked, so never copied
	before := checkout(t, repo)

	ws := create(t, spec(repo, t.TempDir()))
	inc, err := CopyIncluded(context.Background(), repo, ws.Path)
	if err != nil {
		t.Fatal(err)
	}
	for rel, mode := range map[string]os.FileMode{
		".env": 0o600, "app.local": 0o640, "config/dev.json": 0o644, "bin/run.sh": 0o755, "in-link": 0o600,
	} {
		p := filepath.Join(ws.Path, rel)
		fi, err := os.Lstat(p)
		if err != nil {
			t.Errorf("%s not copied: %v", rel, err)
			continue
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm() != mode {
			t.Errorf("%s copied as %v, want a regular file %v", rel, fi.Mode(), mode)
		}
		from := filepath.Join(repo, rel)
		if got, want := gittest.ReadFile(t, p), gittest.ReadFile(t, from); got != want {
			t.Errorf("%s holds %q, want %q", rel, got, want)
		}
	}
	for rel, want := range map[string]string{"tracked.local": "committed\n", "a.txt": "one\ntwo\nthree\n"} {
		if got := gittest.ReadFile(t, filepath.Join(ws.Path, rel)); got != want {
			t.Errorf("tracked %s is %q in the worktree, want the commit's %q", rel, got, want)
		}
	}
	for _, rel := range []string{"out-link", "not-listed.txt"} {
		if exists(filepath.Join(ws.Path, rel)) {
			t.Errorf("%s was copied", rel)
		}
	}
	if inc.Files != 5 || inc.Cloned > inc.Files || len(inc.Skipped) != 1 || !strings.HasPrefix(inc.Skipped[0], "out-link: a symbolic link leading outside") {
		t.Errorf("CopyIncluded = %+v", inc)
	}
	if strings.Contains(fmt.Sprint(inc.Skipped), outside) {
		t.Errorf("the skip reason names the link's target: %v", inc.Skipped)
	}
	if after := checkout(t, repo); after != before {
		t.Errorf("the person's checkout changed:\n%s", after)
	}
	// Copied again (a second call), nothing is replaced.
	gittest.WriteFile(t, filepath.Join(ws.Path, ".env"), "TOKEN=the agent's\n")
	again, err := CopyIncluded(context.Background(), repo, ws.Path)
	if err != nil {
		t.Fatal(err)
	}
	if again.Files != 0 || gittest.ReadFile(t, filepath.Join(ws.Path, ".env")) != "TOKEN=the agent's\n" {
		t.Errorf("a second copy replaced files: %+v", again)
	}
	if !slices.ContainsFunc(again.Skipped, func(s string) bool { return s == ".env: the worktree has it already" }) {
		t.Errorf("second copy skipped %v", again.Skipped)
	}
}

func TestCopyIncludedWithoutList(t *testing.T) {
	repo := newRepo(t, "")
	gittest.WriteFile(t, filepath.Join(repo, ".env"), "x\n")
	ws := create(t, spec(repo, t.TempDir()))
	inc, err := CopyIncluded(context.Background(), repo, ws.Path)
	if err != nil || inc.Files != 0 || exists(filepath.Join(ws.Path, ".env")) {
		t.Errorf("without %s: %+v, %v", IncludeFile, inc, err)
	}
}

// A list that matches more files than the bound copies none of them.
func TestCopyIncludedBounded(t *testing.T) {
	repo := newRepo(t, "")
	gittest.WriteFile(t, filepath.Join(repo, IncludeFile), "deps/\n")
	dir := filepath.Join(repo, "deps")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range MaxIncludeFiles + 1 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := create(t, spec(repo, t.TempDir()))
	_, err := CopyIncluded(context.Background(), repo, ws.Path)
	if !errors.Is(err, ErrIncludeTooLarge) {
		t.Fatalf("CopyIncluded of %d files: %v, want ErrIncludeTooLarge", MaxIncludeFiles+1, err)
	}
	if exists(filepath.Join(ws.Path, "deps")) {
		t.Error("a refused copy left files behind")
	}
}

// cloneOrCopy gives the same file whether or not the filesystem clones.
func TestCloneOrCopy(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	want := strings.Repeat("block ", 10000)
	gittest.WriteFile(t, src, want)
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(filepath.Join(dir, "dst"))
	if err != nil {
		t.Fatal(err)
	}
	n, cloned, err := cloneOrCopy(out, in)
	out.Close()
	if err != nil || n != int64(len(want)) {
		t.Fatalf("cloneOrCopy = %d, %v, %v", n, cloned, err)
	}
	if got := gittest.ReadFile(t, filepath.Join(dir, "dst")); got != want {
		t.Errorf("copy differs (cloned %v)", cloned)
	}
	t.Logf("reflink on this filesystem: %v", cloned)
}

func TestFindSetup(t *testing.T) {
	for _, tc := range []struct {
		name  string
		make  func(p string) error
		found bool
		err   error
	}{
		{"none", func(string) error { return nil }, false, nil},
		{"executable", func(p string) error { return os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755) }, true, nil},
		{"not executable", func(p string) error { return os.WriteFile(p, []byte("#!/bin/sh\n"), 0o644) }, false, ErrSetupNotRunnable},
		{"a link", func(p string) error { return os.Symlink("/bin/true", p) }, false, ErrSetupNotRunnable},
		{"a folder", func(p string) error { return os.Mkdir(p, 0o755) }, false, ErrSetupNotRunnable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, ".switchboard"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tc.make(filepath.Join(dir, ".switchboard", "setup")); err != nil {
				t.Fatal(err)
			}
			got, err := FindSetup(dir)
			if !errors.Is(err, tc.err) || (got != "") != tc.found {
				t.Errorf("FindSetup = %q, %v", got, err)
			}
			if tc.found && got != filepath.Join(dir, ".switchboard", "setup") {
				t.Errorf("FindSetup = %q", got)
			}
		})
	}
}
