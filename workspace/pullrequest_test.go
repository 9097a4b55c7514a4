package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// standInGH writes, into bin, a gh that records each call's arguments in
// the file it returns and answers `auth status` with authExit and `pr
// create` with prScript (shell). With authExit < 0 there is no gh.
func standInGH(t *testing.T, bin string, authExit int, prScript string) string {
	t.Helper()
	args := filepath.Join(t.TempDir(), "gh-args")
	if authExit < 0 {
		return args
	}
	// \037 between arguments, \036 after each call: a body has line
	// breaks.
	script := fmt.Sprintf(`#!/bin/sh
for a in "$@"; do printf '%%s\037' "$a"; done >> '%s'
printf '\036' >> '%s'
case "$1" in
auth) exit %d ;;
pr) %s ;;
esac
exit 0
`, args, args, authExit, prScript)
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return args
}

// ghCalls reads what standInGH recorded.
func ghCalls(t *testing.T, file string) [][]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var calls [][]string
	for _, c := range strings.Split(strings.TrimSuffix(string(b), "\036"), "\036") {
		calls = append(calls, strings.Split(strings.TrimSuffix(c, "\037"), "\037"))
	}
	return calls
}

// pathWithOnlyGit points PATH at a new folder holding git alone, which
// the test may add a gh to; a gh of the machine's own stays out of it.
func pathWithOnlyGit(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(real, filepath.Join(bin, "git")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	return bin
}

// A pull request pushes the branch to a bare remote and runs gh pr create
// when gh is there and signed in; without it the branch is pushed all the
// same and the result says why there is no address. The base never moves.
// Not parallel: PATH is the test's.
func TestOpenPullRequest(t *testing.T) {
	const prURL = "https://github.test/person/project/pull/7"
	body := "What the agent did,\non two lines."
	for _, tt := range []struct {
		name     string
		authExit int // -1: no gh on PATH
		pr       string
		remote   string // "" origin
		upTo     bool   // push the first commit only
		wantURL  string
		wantNote string
		wantPR   bool   // gh pr create was run
		nothing  bool   // the agent made no commit
		from     string // the packet's range starts at: "base" (main's tip) or "first" (the first commit, another packet's)
		err      error
	}{
		{name: "gh signed in", pr: `echo "Creating pull request" >&2; echo ` + prURL, wantURL: prURL, wantPR: true},
		{name: "up to a commit", upTo: true, pr: `echo ` + prURL, wantURL: prURL, wantPR: true},
		{name: "another remote", remote: "upstream", pr: `echo ` + prURL, wantURL: prURL, wantPR: true},
		{name: "gh signed out", authExit: 1, wantNote: "not signed in"},
		{name: "no gh", authExit: -1, wantNote: "not installed"},
		{name: "gh fails", pr: `echo "GraphQL: base branch not found" >&2; exit 1`, wantNote: "gh pr create failed: GraphQL: base branch not found", wantPR: true},
		{name: "no such remote", remote: "nowhere", err: ErrNoRemote},
		{name: "nothing new", nothing: true, err: ErrNothingToLand},
		{name: "the packet's own commits", from: "base", pr: `echo ` + prURL, wantURL: prURL, wantPR: true},
		{name: "another packet's under it", from: "first", err: ErrCarriesOthers},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := pathWithOnlyGit(t)
			calls := standInGH(t, bin, tt.authExit, tt.pr)
			ctx := context.Background()
			repo := newRepo(t, "")
			bare := t.TempDir()
			git(t, bare, "init", "-q", "--bare")
			remote := tt.remote
			if remote == "" || tt.err != nil {
				remote = "origin"
			}
			git(t, repo, "remote", "add", remote, bare)
			git(t, repo, "push", "-q", remote, "main")
			ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
			var first, tip string
			if !tt.nothing {
				first = commitWS(t, ws, "add c", map[string]string{"c.txt": "sea\n"})
				tip = commitWS(t, ws, "add e", map[string]string{"e.txt": "ee\n"})
			}
			base := gitLine(t, repo, "rev-parse", "main")
			before := checkout(t, repo)
			req := PullRequestRequest{Remote: tt.remote, Title: "Fix the login bug", Body: body}
			want := tip
			if tt.upTo {
				req.To, want = first, first
			}
			switch tt.from {
			case "base":
				req.From = base
			case "first":
				req.From = first
			}

			p, err := OpenPullRequest(ctx, repo, ws, req)
			if gitLine(t, repo, "rev-parse", "main") != base || gitLine(t, bare, "rev-parse", "main") != base {
				t.Error("the base branch moved")
			}
			if after := checkout(t, repo); after != before {
				t.Errorf("the checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("OpenPullRequest: %v; want %v", err, tt.err)
				}
				if got := git(t, bare, "branch", "--list"); strings.Contains(got, ws.Branch) {
					t.Errorf("the branch reached the remote: %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantRemote := tt.remote
			if wantRemote == "" {
				wantRemote = "origin"
			}
			if p.Commit != want || p.Remote != wantRemote || p.Branch != ws.Branch || p.URL != tt.wantURL || !strings.Contains(p.Note, tt.wantNote) || tt.wantNote == "" && p.Note != "" {
				t.Errorf("OpenPullRequest = %+v; want commit %s on %s/%s, URL %q, note with %q", p, want, wantRemote, ws.Branch, tt.wantURL, tt.wantNote)
			}
			if on := gitLine(t, bare, "rev-parse", "refs/heads/"+ws.Branch); on != want {
				t.Errorf("the remote's %s is at %s, want %s", ws.Branch, on, want)
			}
			var got [][]string
			if tt.authExit >= 0 {
				got = append(got, []string{"auth", "status"})
			}
			if tt.wantPR {
				got = append(got, []string{"pr", "create", "--base", "main", "--head", ws.Branch, "--title", "Fix the login bug", "--body", body})
			}
			if calls := ghCalls(t, calls); !reflect.DeepEqual(calls, got) {
				t.Errorf("gh was run with\n%q\nwant\n%q", calls, got)
			}
		})
	}
}

// A remote branch with commits the packet lacks refuses the push, and
// keeps them: nothing is forced.
func TestOpenPullRequestNeverForces(t *testing.T) {
	pathWithOnlyGit(t)
	ctx := context.Background()
	repo := newRepo(t, "")
	bare := t.TempDir()
	git(t, bare, "init", "-q", "--bare")
	git(t, repo, "remote", "add", "origin", bare)
	ws := create(t, spec(repo, filepath.Join(t.TempDir(), "worktrees")))
	commitWS(t, ws, "add c", map[string]string{"c.txt": "sea\n"})
	// Someone else's commit on the remote's branch of that name.
	other := gitLine(t, repo, "commit-tree", "-p", "main", "-m", "someone else's", "main^{tree}")
	git(t, repo, "push", "-q", "origin", other+":refs/heads/"+ws.Branch)

	_, err := OpenPullRequest(ctx, repo, ws, PullRequestRequest{Title: "t"})
	if !errors.Is(err, ErrPushRejected) {
		t.Fatalf("OpenPullRequest: %v; want ErrPushRejected", err)
	}
	if on := gitLine(t, bare, "rev-parse", "refs/heads/"+ws.Branch); on != other {
		t.Errorf("the remote's branch is at %s, want %s kept", on, other)
	}
}

func TestLastURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Creating…\nhttps://github.com/o/r/pull/1\n":  "https://github.com/o/r/pull/1",
		"no address here\n":                           "",
		"https://user:secret@github.com/o/r/pull/1":   "",
		"http://ghe.example/o/r/pull/2\nwarning: x\n": "http://ghe.example/o/r/pull/2",
	} {
		if got := lastURL(in); got != want {
			t.Errorf("lastURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// gh gets the person's environment for its token, not the app's secrets,
// and its gits get gitcmd's configuration in place of any inherited.
func TestGHEnviron(t *testing.T) {
	t.Parallel()
	env := ghEnviron([]string{"PATH=/bin", "GH_TOKEN=g", "HOME=/h", "SWITCHBOARD_CLIENT_TOKEN=t", "PGPASSWORD=p",
		"DATABASE_URL=postgres://x", "GIT_DIR=/x", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath",
		"GIT_CONFIG_VALUE_0=.husky", "GIT_CONFIG_PARAMETERS='core.fsmonitor'='x'"})
	got := "\n" + strings.Join(env, "\n") + "\n"
	for _, want := range []string{"PATH=/bin", "GH_TOKEN=g", "HOME=/h", "GH_PROMPT_DISABLED=1",
		"GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false", "GIT_CONFIG_KEY_1=core.hooksPath", "GIT_CONFIG_VALUE_1=/dev/null"} {
		if !strings.Contains(got, "\n"+want+"\n") {
			t.Errorf("gh's environment lacks %s:%s", want, got)
		}
	}
	for _, bad := range []string{"SWITCHBOARD_", "PGPASSWORD", "DATABASE_URL", "GIT_DIR", ".husky", "GIT_CONFIG_PARAMETERS"} {
		if strings.Contains(got, bad) {
			t.Errorf("gh's environment has %s:%s", bad, got)
		}
	}
}
