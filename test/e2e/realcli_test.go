//go:build unix

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
	"github.com/switchboard-dev/switchboard/test/standinmodel"
)

// The real agent CLIs (Claude Code, Codex, Gemini CLI) are pinned in
// test/agents and installed from npm by the first test that needs them.
// They run offline: each is pointed at the stand-in model
// (test/standinmodel) on loopback, never signed in to anything.

// agentFiles are what the real-CLI tests run, checked after an install.
var agentFiles = []string{
	"node_modules/.bin/claude",
	"node_modules/.bin/codex",
	"node_modules/.bin/gemini",
}

var (
	agentsMu   sync.Mutex
	agentsDone bool
	agentsErr  error
)

// requireAgentCLIs skips unless SWITCHBOARD_E2E_NODE=1, installs
// test/agents when needed, and returns the folder holding the three
// commands (for PATH).
func requireAgentCLIs(t *testing.T) string {
	t.Helper()
	if os.Getenv("SWITCHBOARD_E2E_NODE") != "1" {
		t.Skip(nodeSkip)
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "agents")
	agentsMu.Lock()
	defer agentsMu.Unlock()
	if !agentsDone {
		agentsErr = installAgents(dir)
		agentsDone = true
	}
	if agentsErr != nil {
		t.Fatal(agentsErr)
	}
	return filepath.Join(dir, "node_modules", ".bin")
}

// installAgents runs npm ci in dir unless its node_modules is a link to
// another checkout's install (a worktree sharing the main checkout's):
// npm ci would empty the folder it points to under every other user of it,
// and a newer checkout's lockfile looks out of date to npmCI by its time
// alone. A link is used as it is when the commands are there.
func installAgents(dir string) error {
	fi, err := os.Lstat(filepath.Join(dir, "node_modules"))
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return npmCI(dir, agentFiles)
	}
	for _, f := range agentFiles {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return fmt.Errorf("%s/node_modules is a link and lacks %s: install where it points (npm ci there), not through the link", dir, f)
		}
	}
	return nil
}

// realCLI is how a test plays the person who installed one agent CLI: the
// profile the tray starts, and what the person did once by hand (a login,
// here pointed at the stand-in model, and what the profile's notes ask).
type realCLI struct {
	profile string
	// user writes the person's own config for the CLI into home and returns
	// the variables their desktop session would set.
	user func(t *testing.T, home string, model *standinmodel.Server) []string
}

// cliVars are the prefixes of the agent CLIs' own variables: none of the
// test runner's reaches the app (and so the agent). An empty value is not
// the same as none (Claude Code takes CLAUDE_CONFIG_DIR= for the current
// folder and would keep its files in the agent's worktree).
var cliVars = []string{"ANTHROPIC_", "CLAUDE_", "CODEX_", "OPENAI_", "GEMINI_", "GOOGLE_"}

// env is the app's environment for a run of c: the instance's, none of
// the CLIs' own variables from the test runner, the CLIs on PATH, and
// what the person's desktop session sets for c.
func (c realCLI) env(t *testing.T, d dirs, bin string, model *standinmodel.Server) []string {
	t.Helper()
	env := slices.DeleteFunc(d.env(false), func(kv string) bool {
		return slices.ContainsFunc(cliVars, func(p string) bool { return strings.HasPrefix(kv, p) })
	})
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "TERM=xterm-256color")
	return append(env, c.user(t, d.home, model)...)
}

// realRun is one run of a real CLI through the supervisor.
type realRun struct {
	env     []string
	d       dirs
	repo    string
	session string
	model   *standinmodel.Server
	// firstCall is the time from agent start to the model's first tool call.
	firstCall time.Duration
}

// runRealCLI starts the headless app, a repository with n packets, and the
// CLI through the profile exactly as the tray's Start agent does (agent
// start PROFILE --repo ID, plus args); it waits until every packet is done
// and fails with the agent's last screen and the model's log when the run
// stalls.
func runRealCLI(t *testing.T, c realCLI, n int, args ...string) *realRun {
	t.Helper()
	bin := requireAgentCLIs(t)
	model, err := standinmodel.Start(standinmodel.Worker(n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	d := newDirs(t)
	env := c.env(t, d, bin, model)
	p := start(t, env, "--headless")
	t.Cleanup(p.stop)
	waitEndpoint(t, p, d, 10*time.Second)

	repoDir := filepath.Join(d.home, "project")
	lcGit(t, "", "init", "-q", "-b", "main", repoDir)
	lcGit(t, repoDir, "config", "user.name", "Dev Person")
	lcGit(t, repoDir, "config", "user.email", "dev@example.com")
	lcWrite(t, filepath.Join(repoDir, "README"), "a project\n")
	lcGit(t, repoDir, "add", "-A")
	lcGit(t, repoDir, "commit", "-q", "-m", "first")
	r := &realRun{env: env, d: d, model: model}
	for _, l := range lines(mustCLI(t, env, "repo", "add", repoDir)) {
		if strings.HasPrefix(l, "repo_") {
			r.repo = l
		}
	}
	for i := range n {
		mustCLI(t, env, "work", "create", "--repo", r.repo, "--title", fmt.Sprintf("Packet %d", i+1), "--instructions", "Write the notes.", "--artifact", "notes:text")
	}
	begin := time.Now()
	for _, l := range lines(mustCLI(t, env, append([]string{"agent", "start", c.profile, "--repo", r.repo}, args...)...)) {
		if strings.HasPrefix(l, "ses_") {
			r.session = l
		}
	}
	if r.session == "" {
		t.Fatalf("agent start %s printed no session", c.profile)
	}
	// Every real CLI works inside its sandbox: the checks below are of a
	// confined agent.
	var list struct {
		Agents []struct {
			SessionID   string `json:"session_id"`
			Confinement struct {
				Level, Method string
			} `json:"confinement"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, env, "agent", "list", "--json")), &list); err != nil {
		t.Fatalf("agent list --json: %v", err)
	}
	for _, a := range list.Agents {
		if a.SessionID == r.session && (a.Confinement.Level != "confined" || a.Confinement.Method != "bubblewrap") {
			t.Errorf("%s runs %+v, want confined by bubblewrap", c.profile, a.Confinement)
		}
	}
	// The agent's turn ends with the model's last text: after its last
	// call's result, so what that call did is committed. With no packets
	// asked for there is nothing to wait for.
	if n > 0 {
		select {
		case <-model.Finished():
		case <-time.After(60 * time.Second):
		}
	}
	if done := r.packetsDone(t); done != n {
		t.Fatalf("%s: %d of %d packets done when the agent stopped or 60 s passed.\nThe agent's last screen:\n%s\nThe stand-in model's log:\n%s\nThe app's output:\n%s",
			c.profile, done, n, lastScreen(d, r.session), model.Log(), p.Output())
	}
	if fc := model.FirstCall(); !fc.IsZero() {
		r.firstCall = fc.Sub(begin)
	}
	// The packets asked for no change: anything in the worktree is the
	// CLI's own (a config or history kept in the working folder), and
	// would show in the agent's diff and land with its work.
	for _, w := range workspaces(t, env) {
		if w.SessionID == r.session && !w.Gone {
			if st := lcGit(t, w.Workspace.Path, "status", "--porcelain", "--untracked-files=all", "--ignored"); st != "" {
				t.Errorf("%s left files in its worktree:\n%s", c.profile, st)
			}
		}
	}
	return r
}

// asksTrust waits for the CLI's folder-trust question on its screen (the
// recording, flushed whenever the agent pauses, is all a test outside the
// app can watch, so it is read again until the question shows) and checks
// the model was asked for no tool call before it.
func (r *realRun) asksTrust(t *testing.T, question string) {
	t.Helper()
	var screen string
	if !eventually(t, func() bool { screen = lastScreen(r.d, r.session); return strings.Contains(screen, question) }) {
		t.Fatalf("no trust question in the person's own folder; the last screen:\n%s", screen)
	}
	if calls := r.model.Calls(); len(calls) != 0 {
		t.Errorf("the model was asked for tool calls before the folder was trusted: %v", calls)
	}
}

// packetsDone counts the repository's packets in state done.
func (r *realRun) packetsDone(t *testing.T) int {
	t.Helper()
	var list mcpserver.WorkList
	if err := json.Unmarshal([]byte(mustCLI(t, r.env, "work", "list", "--repo", r.repo, "--json")), &list); err != nil {
		t.Fatalf("work list --json: %v", err)
	}
	n := 0
	for _, p := range list.Packets {
		if p.State == "done" {
			n++
		}
	}
	return n
}

// lastScreen replays the session's recording through the emulator the
// supervisor uses and returns the screen it ends on, as text.
func lastScreen(d dirs, ses string) string {
	f, err := os.Open(filepath.Join(d.data, "recordings", ses+".cast"))
	if err != nil {
		return "(no recording: " + err.Error() + ")"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	term := vt.New(120, 40)
	if sc.Scan() {
		var h struct {
			Term          struct{ Cols, Rows int } `json:"term"`
			Width, Height int
		}
		json.Unmarshal(sc.Bytes(), &h)
		switch {
		case h.Term.Cols > 0 && h.Term.Rows > 0:
			term = vt.New(h.Term.Cols, h.Term.Rows)
		case h.Width > 0 && h.Height > 0:
			term = vt.New(h.Width, h.Height)
		}
	}
	for sc.Scan() {
		var ev []any
		if json.Unmarshal(sc.Bytes(), &ev) != nil || len(ev) != 3 || ev[1] != "o" {
			continue
		}
		s, _ := ev[2].(string)
		term.Write([]byte(s))
	}
	var b strings.Builder
	for _, l := range strings.Split(term.Text(), "\n") {
		b.WriteString("  │ " + strings.TrimRight(l, " ") + "\n")
	}
	return b.String()
}
