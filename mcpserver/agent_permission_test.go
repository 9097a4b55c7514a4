package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/internal/coretest"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// agentFixture is a registry with a real supervisor and a worktree root,
// and a stored profile "modes" (a shell that waits) offering all three
// permission modes.
func agentFixture(t *testing.T) (*fixture, *supervisor.Supervisor) {
	t.Helper()
	f := &fixture{clock: coretest.NewClock(), env: &coretest.Env{}, logs: &coretest.SyncBuffer{}}
	f.db = openTestDB(t, f.clock)
	f.log = slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	dir := t.TempDir()
	agents := supervisor.New(supervisor.Config{RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "rec"),
		Exited: func(id string, e supervisor.Exit) { f.reg.AgentExited(id, e) }})
	// Confined, as the app's agents are: full auto runs only so.
	f.reg = New(f.db, Options{Version: testVersion, Env: f.env, Log: f.log, Agents: agents, Worktrees: filepath.Join(dir, "worktrees"), Sandbox: &Sandbox{}})
	t.Cleanup(func() {
		agents.Close(context.Background())
		f.reg.WaitTidy(context.Background())
	})
	f.update(t, func(tx *store.Tx) error {
		return tx.PutProfile(profile.Profile{ID: "modes", Name: "Modes", Command: "sh", Args: []string{"-c", "sleep 60"}, Prompt: profile.PromptNone,
			Permissions: map[profile.Permission][]string{profile.PermissionAsk: {"ask"}, profile.PermissionEdits: {"edits"}, profile.PermissionAuto: {"auto"}}})
	})
	return f, agents
}

func startArgs(t *testing.T, in AgentStartArgs) string {
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The rules of agent.start's permission: a known mode the profile offers;
// auto only with a worktree and the repository's confirmation, which
// confirm_full_auto records once (who, when) and which later starts reuse.
func TestAgentStartPermission(t *testing.T) {
	f, agents := agentFixture(t)
	git := f.registerRepo(t, personGitRepo(t, map[string]string{"a.txt": "a\n"}))
	plain := f.registerRepo(t, t.TempDir()) // not a git repository: no worktree
	steps := []struct {
		name string
		in   AgentStartArgs
		code store.Code
		msg  string             // a piece of the error
		mode profile.Permission // recorded on the session when ok
	}{
		{"unknown mode", AgentStartArgs{Profile: "modes", RepositoryID: git.ID, Permission: "yolo"}, store.CodeInvalidArgument, "permission must be", ""},
		{"mode the profile lacks", AgentStartArgs{Profile: "shell", RepositoryID: git.ID, Permission: profile.PermissionEdits}, store.CodeInvalidArgument, "has no edits mode", ""},
		{"confirm without auto", AgentStartArgs{Profile: "modes", RepositoryID: git.ID, Permission: profile.PermissionEdits, ConfirmFullAuto: true}, store.CodeInvalidArgument, "goes with permission auto", ""},
		{"auto without a worktree", AgentStartArgs{Profile: "modes", RepositoryID: git.ID, Permission: profile.PermissionAuto, NoWorktree: true, ConfirmFullAuto: true}, store.CodeInvalidArgument, "worktree", ""},
		{"auto not confirmed", AgentStartArgs{Profile: "modes", RepositoryID: git.ID, Permission: profile.PermissionAuto}, store.CodeInvalidState, "not confirmed", ""},
		{"default is ask", AgentStartArgs{Profile: "modes", RepositoryID: git.ID}, "ok", "", profile.PermissionAsk},
		{"edits", AgentStartArgs{Profile: "modes", RepositoryID: git.ID, Permission: profile.PermissionEdits}, "ok", "", profile.PermissionEdits},
		{"auto confirmed now", AgentStartArgs{Profile: "modes", RepositoryID: git.ID, Permission: profile.PermissionAuto, ConfirmFullAuto: true}, "ok", "", profile.PermissionAuto},
		{"auto again", AgentStartArgs{Profile: "modes", RepositoryID: git.ID, Permission: profile.PermissionAuto}, "ok", "", profile.PermissionAuto},
		// Confirmed, but the folder gives no worktree: the supervisor
		// refuses before anything runs.
		{"auto in a plain folder", AgentStartArgs{Profile: "modes", RepositoryID: plain.ID, Permission: profile.PermissionAuto, ConfirmFullAuto: true}, store.CodeAgentUnavailable, "only in a worktree", ""},
	}
	for _, s := range steps {
		res := f.invoke(OperatorPrincipal(), TransportGUI, string(MethodAgentStart), startArgs(t, s.in))
		wantCode(t, res, s.code)
		if s.code != "ok" {
			if !strings.Contains(res.Err.Error(), s.msg) {
				t.Errorf("%s: %v, want %q in it", s.name, res.Err, s.msg)
			}
			continue
		}
		out := res.Value.(AgentStarted)
		if out.Permission != s.mode {
			t.Errorf("%s: started in %q, want %q", s.name, out.Permission, s.mode)
		}
		f.view(t, func(tx *store.Tx) error {
			ses, err := tx.Session(out.SessionID)
			if err != nil {
				return err
			}
			if ses.Permission != s.mode {
				t.Errorf("%s: session records %q", s.name, ses.Permission)
			}
			return nil
		})
		s, _ := agents.Get(out.SessionID)
		if s == nil || s.Info().Permission != out.Permission {
			t.Errorf("%s: agent.list's info %+v", out.SessionID, s)
		}
	}
	f.view(t, func(tx *store.Tx) error {
		r, err := tx.Repository(git.ID)
		if err != nil {
			return err
		}
		if r.FullAuto == nil || r.FullAuto.By != string(TransportGUI) || !r.FullAuto.At.Equal(f.clock.Now()) {
			t.Errorf("the confirmation recorded: %+v", r.FullAuto)
		}
		return nil
	})
}

// repository.full_auto confirms apart from a start, and withdraws: the next
// full-auto start asks again.
func TestRepositoryFullAuto(t *testing.T) {
	f, _ := agentFixture(t)
	git := f.registerRepo(t, personGitRepo(t, map[string]string{"a.txt": "a\n"}))
	fullAuto := func(confirmed bool) *store.FullAutoConfirmation {
		t.Helper()
		res := f.invoke(OperatorPrincipal(), TransportGUI, string(MethodRepositoryFullAuto), fmt.Sprintf(`{"repository_id":%q,"confirmed":%v}`, git.ID, confirmed))
		wantCode(t, res, "ok")
		return res.Value.(RepositoryResult).Repository.FullAuto
	}
	auto := startArgs(t, AgentStartArgs{Profile: "modes", RepositoryID: git.ID, Permission: profile.PermissionAuto})
	if c := fullAuto(true); c == nil || c.By != "gui" {
		t.Fatalf("confirmed: %+v", c)
	}
	wantCode(t, f.invoke(OperatorPrincipal(), TransportGUI, string(MethodAgentStart), auto), "ok")
	if c := fullAuto(false); c != nil {
		t.Fatalf("withdrawn: %+v", c)
	}
	wantCode(t, f.invoke(OperatorPrincipal(), TransportGUI, string(MethodAgentStart), auto), store.CodeInvalidState)
	wantCode(t, f.invoke(OperatorPrincipal(), TransportGUI, string(MethodRepositoryFullAuto), `{"repository_id":"repo_none","confirmed":true}`), store.CodeRepoNotRegistered)
}
