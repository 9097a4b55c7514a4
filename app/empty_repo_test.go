package app

import (
	"context"
	"os/exec"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
)

// Starting an agent in a repository with no commit offers the two ways on:
// a first commit (then the agent starts in a worktree of it), or the agent
// in the folder itself (and no commit is made).
func TestStartInAnEmptyRepository(t *testing.T) {
	for _, tc := range []struct {
		choice     string
		wantCommit bool
	}{
		{labelFirstCommit, true},
		{labelRunInFolder, false},
	} {
		t.Run(tc.choice, func(t *testing.T) {
			a := test.NewTempApp(t)
			log, _ := newTestLogger()
			g := &gui{app: a, core: newWorktreeCore(t, &fakeBackend{endpoint: testEndpoint, token: testToken}), log: log, quit: func() {}}
			t.Cleanup(func() {
				if g.sessions != nil {
					onUI(func() { g.sessions.win.Close() })
				}
			})
			repoDir := t.TempDir()
			git := func(args ...string) error {
				return exec.Command("git", append([]string{"-C", repoDir}, args...)...).Run()
			}
			for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Dev"}, {"config", "user.email", "dev@example.com"}} {
				mustDo(t, git(args...))
			}
			repo, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: repoDir, Name: "empty"})
			mustDo(t, err)
			_, err = invoke(g, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: profile.Profile{
				ID: "sleeper", Name: "Sleeper", Command: "/bin/sh", Args: []string{"-c", "exec sleep 600"}, Prompt: profile.PromptNone}})
			mustDo(t, err)

			g.startAgent("sleeper", repo.Repository.ID, "", false)
			var button *widget.Button
			waitUntil(t, "the offer", func() bool {
				ok := false
				onUI(func() {
					if g.sessions == nil {
						return
					}
					if top := g.sessions.win.Canvas().Overlays().Top(); top != nil {
						button, ok = findIn(top, func(b *widget.Button) bool { return b.Text == tc.choice })
					}
				})
				return ok
			})
			onUI(func() { test.Tap(button) })
			g.busy.Wait()
			if got := git("rev-parse", "--verify", "--quiet", "main") == nil; got != tc.wantCommit {
				t.Errorf("main has a commit: %v, want %v", got, tc.wantCommit)
			}
			var selected string
			waitUntil(t, "the agent's session shown", func() bool {
				onUI(func() { selected = g.sessions.selected })
				return selected != ""
			})
			s, ok := g.core.Agents().Get(selected)
			if !ok {
				t.Fatalf("no agent runs for session %s", selected)
			}
			defer s.Stop(context.Background(), true)
			d, err := invoke(g, mcpserver.MethodSessionGet, mcpserver.SessionGetArgs{SessionID: selected})
			mustDo(t, err)
			if inWorktree := d.Session.Workspace != nil; inWorktree != tc.wantCommit {
				t.Errorf("the agent works in a worktree: %v, want %v", inWorktree, tc.wantCommit)
			}
		})
	}
}
