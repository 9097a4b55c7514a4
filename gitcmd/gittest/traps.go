package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TrapHooks are the hooks the app's git calls would run, were hooks on.
func TrapHooks() []string {
	return []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-checkout",
		"post-merge", "reference-transaction", "pre-push", "post-rewrite"}
}

// PlantTraps leaves in repo what an agent running as the person could
// have: every hook of TrapHooks in .git/hooks and in a tracked folder that
// a relative core.hooksPath names (as husky and lefthook do), and a
// core.fsmonitor command in the shared .git/config. Each writes a file
// named after itself in the folder returned (Fired lists them).
func PlantTraps(t testing.TB, repo string) (markers string) {
	t.Helper()
	markers = t.TempDir()
	for _, name := range TrapHooks() {
		body := "#!/bin/sh\ntouch '" + filepath.Join(markers, name) + "'\n"
		for _, dir := range []string{filepath.Join(repo, ".git", "hooks"), filepath.Join(repo, ".husky")} {
			WriteFile(t, filepath.Join(dir, name), body)
			if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Planting runs none of what it plants.
	run := func(args ...string) {
		t.Helper()
		args = append([]string{"-C", repo, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}, args...)
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("add", ".husky")
	run("commit", "-q", "-m", "hooks")
	run("config", "core.hooksPath", ".husky")
	run("config", "core.fsmonitor", "touch '"+filepath.Join(markers, "fsmonitor")+"'; false #")
	return markers
}

// Fired lists the markers the traps (or others written there) left.
func Fired(t testing.TB, markers string) []string {
	t.Helper()
	entries, err := os.ReadDir(markers)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
