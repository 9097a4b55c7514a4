package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
)

// agent start --permission: the mode reaches the session and agent list;
// full auto needs --yes the first time in a repository when nobody can be
// asked (stdin is not a terminal here), and not again after.
func TestCLIAgentStartPermission(t *testing.T) {
	ctx := context.Background()
	repoDir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=D", "-c", "user.email=d@example.com", "commit", "-q", "--allow-empty", "-m", "first"}} {
		if out, err := gitcmd.Run(ctx, repoDir, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	h := newHarness(t)
	d := h.start()
	defer d.Close(ctx)
	repoID := line(h.ok("repo", "add", repoDir).stdout)
	if _, err := mcpserver.Invoke(ctx, d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: profile.Profile{
		ID: "modes", Name: "Modes", Command: "/bin/sh", Args: []string{"-c", "sleep 60"}, Prompt: profile.PromptNone,
		Permissions: map[profile.Permission][]string{profile.PermissionAsk: {"ask"}, profile.PermissionEdits: {"edits"}, profile.PermissionAuto: {"auto"}},
	}}); err != nil {
		t.Fatal(err)
	}

	if r := h.fails(1, "agent", "start", "modes", "--repo", repoID, "--permission", "yolo"); !strings.Contains(r.stderr, "permission must be") {
		t.Errorf("an unknown mode:\n%v", r)
	}
	if r := h.fails(1, "agent", "start", "shell", "--repo", repoID, "--permission", "edits"); !strings.Contains(r.stderr, "has no edits mode") {
		t.Errorf("a mode the profile lacks:\n%v", r)
	}
	if r := h.fails(1, "agent", "start", "modes", "--repo", repoID, "--permission", "auto"); !strings.Contains(r.stderr, "--yes") {
		t.Errorf("auto, not confirmed, no terminal:\n%v", r)
	}
	edits := h.ok("agent", "start", "modes", "--repo", repoID, "--permission", "edits")
	if !strings.Contains(edits.stderr, "permission edits") {
		t.Errorf("agent start --permission edits says:\n%s", edits.stderr)
	}
	auto := line(h.ok("agent", "start", "modes", "--repo", repoID, "--permission", "auto", "--yes").stdout)
	again := line(h.ok("agent", "start", "modes", "--repo", repoID, "--permission", "auto").stdout)
	if r := h.ok("repo", "set", repoID, "--full-auto", "withdraw"); !strings.Contains(r.stdout, "full auto: not confirmed") {
		t.Errorf("repo set --full-auto withdraw:\n%v", r)
	}
	h.fails(1, "agent", "start", "modes", "--repo", repoID, "--permission", "auto")
	if r := h.ok("repo", "set", repoID, "--full-auto", "confirm"); !strings.Contains(r.stdout, "full auto: confirmed through rpc") {
		t.Errorf("repo set --full-auto confirm:\n%v", r)
	}
	h.fails(1, "repo", "set", repoID, "--full-auto", "maybe")
	list := h.ok("agent", "list").stdout
	for ses, mode := range map[string]string{line(edits.stdout): "edits", auto: "auto", again: "auto"} {
		if !strings.Contains(list, ses) || !strings.Contains(lineOf(list, ses), " "+mode+" ") {
			t.Errorf("agent list does not show %s in %s:\n%s", ses, mode, list)
		}
	}
}

// lineOf is the line of text that holds s.
func lineOf(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// profile add --mode-arg maps the modes; a mode with MODE= only is offered
// with no argument; an unknown mode is refused by the server.
func TestCLIProfileModeArgs(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	h.ok("profile", "add", "mine", "--command", "/bin/sh", "--prompt", "none",
		"--mode-arg", "ask=", "--mode-arg", "auto=--permission-mode", "--mode-arg", "auto=yolo")
	var out mcpserver.ProfileList
	h.jsonOut(&out, "profile", "list", "--json")
	found := false
	for _, p := range out.Profiles {
		if p.ID != "mine" {
			continue
		}
		found = true
		if !p.Offers(profile.PermissionAsk) || p.Offers(profile.PermissionEdits) || !p.Offers(profile.PermissionAuto) ||
			strings.Join(p.Permissions[profile.PermissionAuto], " ") != "--permission-mode yolo" {
			t.Errorf("stored permissions %q", p.Permissions)
		}
	}
	if !found {
		t.Fatal("profile mine not listed")
	}
	list := h.ok("profile", "list").stdout
	if !strings.HasSuffix(strings.TrimSpace(lineOf(list, "mine")), " ask,auto") || !strings.HasSuffix(strings.TrimSpace(lineOf(list, "claude")), " ask,edits,auto") {
		t.Errorf("profile list does not say the modes:\n%s", list)
	}
	if r := h.fails(1, "profile", "add", "bad", "--command", "/bin/sh", "--mode-arg", "yolo=--x"); !strings.Contains(r.stderr, "is not a mode") {
		t.Errorf("an unknown mode:\n%v", r)
	}
	if r := h.fails(1, "profile", "add", "bad", "--command", "/bin/sh", "--mode-arg", "auto"); !strings.Contains(r.stderr, "MODE=ARGUMENT") {
		t.Errorf("no =:\n%v", r)
	}
}
