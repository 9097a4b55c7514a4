package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// A repository set to land by pull request pushes a packet's branch to
// its remote (a bare repository here) and opens the pull request with the
// gh on PATH (a stand-in that records its arguments), its address on the
// packet; the base branch stays. A packet landed by rebase puts its
// commit on main after the person's, in a line.
func TestLandPullRequestAndRebase(t *testing.T) {
	const prURL = "https://github.test/dev/project/pull/12"
	bin, ghArgs := t.TempDir(), filepath.Join(t.TempDir(), "gh-args")
	gh := fmt.Sprintf(`#!/bin/sh
for a in "$@"; do printf '%%s\037' "$a"; done >> '%s'
printf '\036' >> '%s'
case "$1" in
pr) echo %s ;;
esac
exit 0
`, ghArgs, ghArgs, prURL)
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(gh), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("SHELL", "/bin/sh")

	repoDir, bare := personRepo(t, map[string]string{"greet.txt": "hello\n"}), t.TempDir()
	git(t, bare, "init", "-q", "--bare")
	git(t, repoDir, "remote", "add", "origin", bare)
	git(t, repoDir, "push", "-q", "origin", "main")

	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory()})
	ctx := context.Background()
	reg := d.Registry()
	repo := registerRepo(t, reg, repoDir)
	var err error
	_, err = mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodRepositoryConfigure,
		mcpserver.RepositoryConfigureArgs{RepositoryID: repo.ID, RepositorySettings: store.RepositorySettings{Landing: store.LandingPullRequest}})
	mustOK(t, err)

	// work runs one agent through a packet that writes name.
	work := func(name, text string) store.Packet {
		t.Helper()
		started, err := mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart, mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repo.ID})
		mustOK(t, err)
		var ses store.Session
		d.db.View(ctx, func(tx *store.Tx) error { ses, _ = tx.Session(started.SessionID); return nil })
		agent := mcpserver.Principal{KeyID: ses.TokenKeyID, SessionID: ses.ID}
		_, err = mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkCreate, mcpserver.WorkCreateArgs{RepositoryID: repo.ID, Title: "Write " + name})
		mustOK(t, err)
		got, err := mcpserver.Invoke(ctx, reg, agent, mcpserver.TransportMCP, mcpserver.MethodWorkAwaitPacket, mcpserver.AwaitArgs{RepositoryID: repo.ID, WaitSeconds: -1})
		mustOK(t, err)
		writeFile(t, got.Workspace.Path, name, text)
		done, err := mcpserver.Invoke(ctx, reg, agent, mcpserver.TransportMCP, mcpserver.MethodWorkComplete, mcpserver.CompleteArgs{PacketID: got.Packet.ID, LeaseID: got.LeaseID, Summary: "Wrote " + name + "."})
		mustOK(t, err)
		return done.Packet
	}
	land := func(pkt, mode string) (mcpserver.LandResult, error) {
		return mcpserver.Invoke(ctx, reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkLand, mcpserver.WorkLandArgs{PacketID: pkt, Mode: mode})
	}
	main := func() string { return strings.TrimSpace(git(t, repoDir, "rev-parse", "main")) }

	// The repository's setting: a pull request.
	first := work("one.txt", "one\n")
	base := main()
	landed, err := land(first.ID, "")
	mustOK(t, err)
	l, ch := landed.Packet.Landed, first.Changes
	if l == nil || l.Mode != "pull-request" || l.URL != prURL || l.Remote != "origin" || l.Branch != ch.Branch || l.Commit != ch.To || landed.URL != prURL || landed.Note != "" {
		t.Fatalf("landed %+v, packet's landing %+v; want a pull request at %s of %s", landed, l, prURL, ch.To)
	}
	if main() != base {
		t.Error("a pull request moved main")
	}
	if on := strings.TrimSpace(git(t, bare, "rev-parse", "refs/heads/"+ch.Branch)); on != ch.To {
		t.Errorf("the remote's %s is at %s, want %s", ch.Branch, on, ch.To)
	}
	calls, err := os.ReadFile(ghArgs)
	mustOK(t, err)
	wantPR := strings.Join([]string{"pr", "create", "--base", "main", "--head", ch.Branch, "--title", "Write one.txt",
		"--body", "Wrote one.txt.\n\nSwitchboard-Packet: " + first.ID}, "\037") + "\037\036"
	if want := "auth\037status\037\036" + wantPR; string(calls) != want {
		t.Errorf("gh ran with %q, want %q", calls, want)
	}

	// A rebase named on the call, after the person committed on main.
	second := work("two.txt", "two\n")
	writeFile(t, repoDir, "person.txt", "the person's\n")
	git(t, repoDir, "add", "person.txt")
	git(t, repoDir, "commit", "-q", "-m", "the person's commit")
	personal := main()
	landed, err = land(second.ID, "rebase")
	mustOK(t, err)
	if landed.Packet.Landed.Mode != "rebase" || landed.Commit != main() || landed.URL != "" {
		t.Errorf("landed %+v; main at %s", landed, main())
	}
	if parents := strings.Fields(git(t, repoDir, "rev-list", "--parents", "-n", "1", "main")); len(parents) != 2 || parents[1] != personal {
		t.Errorf("main's tip %q: want one parent, %s", parents, personal)
	}
	if got := git(t, repoDir, "show", "main:two.txt"); got != "two\n" {
		t.Errorf("two.txt on main = %q", got)
	}
	if _, err := land(first.ID, "octopus"); store.CodeOf(err) != store.CodeInvalidArgument {
		t.Errorf("an unknown mode: %v, want invalid_argument", err)
	}
}
