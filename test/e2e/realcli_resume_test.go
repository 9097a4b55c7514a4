//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
	"github.com/switchboard-dev/switchboard/test/standinmodel"
)

// helpOf runs an installed agent CLI with args (a --help) in a throwaway
// HOME and returns what it printed.
func helpOf(t *testing.T, bin, command string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, command), args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"), "NO_COLOR=1", "CI=1")
	cmd.Dir = home
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", command, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// offers reports whether help lists flag as an option of its own.
func offers(help, flag string) bool {
	return regexp.MustCompile(`(?m)(^|[\s,])` + regexp.QuoteMeta(flag) + `([\s,=]|$)`).MatchString(help)
}

// Every flag and subcommand the built-in profiles use to start and resume
// a conversation is one the installed CLI offers; a resume subcommand
// (Codex's) takes a session id and the profile's own options too.
func TestConversationFlagsInHelp(t *testing.T) {
	bin := requireAgentCLIs(t)
	checked := 0
	for _, p := range supervisor.Builtins() {
		c := p.Conversation
		if c == nil {
			continue
		}
		checked++
		help := helpOf(t, bin, p.Command, "--help")
		for _, a := range slices.Concat(c.StartArgs, c.ResumeArgs) {
			flag, _, _ := strings.Cut(a, "=")
			if strings.HasPrefix(flag, "-") && !offers(help, flag) {
				t.Errorf("%s: %s --help does not offer %s", p.ID, p.Command, flag)
			}
		}
		if len(c.ResumePrefix) == 0 {
			continue
		}
		sub := helpOf(t, bin, p.Command, c.ResumePrefix[0], "--help")
		if !strings.Contains(sub, "SESSION_ID") {
			t.Errorf("%s: %s %s --help takes no SESSION_ID:\n%s", p.ID, p.Command, c.ResumePrefix[0], sub)
		}
		for _, a := range p.Args {
			if flag, _, _ := strings.Cut(a, "="); strings.HasPrefix(flag, "-") && !offers(sub, flag) {
				t.Errorf("%s: %s %s does not take the profile's option %s", p.ID, p.Command, c.ResumePrefix[0], flag)
			}
		}
	}
	if checked != 3 {
		t.Errorf("%d built-in profiles resume conversations, want 3 (Claude Code, Codex, Gemini CLI)", checked)
	}
}

// TestResumeClaudeAfterKill is issue 16's check of a resume: the real
// Claude Code, started by the built-in profile in a worktree of its own,
// claims and acks a packet; the app is killed (SIGKILL) while the model
// holds its next reply; at the next start the session is lost but can be
// resumed, its lease kept; `agent resume` starts Claude Code again on the
// same conversation in the same worktree, and it publishes and completes
// that packet where it left off: the model saw one claim in all, and
// Claude Code wrote a single conversation, the one the session records.
func TestResumeClaudeAfterKill(t *testing.T) {
	resumeAfterKill(t, claudeCLI, func(d dirs) []string {
		files, _ := filepath.Glob(filepath.Join(d.home, ".claude", "projects", "*", "*.jsonl"))
		return idsOf(files, "")
	}, claudeAnswered)
}

// idsOf is the conversation ids in the names of a CLI's conversation
// files: the UUID that ends each name.
func idsOf(files []string, prefix string) []string {
	uuid := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	var ids []string
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), prefix), ".jsonl")
		if id := uuid.FindString(name); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// resumeAfterKill runs one packet through c's CLI with a SIGKILL of the
// app between its ack and its publish, and a resume. conversations, when
// given, lists the CLI's own conversation ids: there must be one, before
// and after, and it must be the session's. answered, when given, says the
// CLI's conversation holds the ack's result: the kill waits for it.
func resumeAfterKill(t *testing.T, c realCLI, conversations func(dirs) []string, answered func(dirs) bool) {
	bin := requireAgentCLIs(t)
	gate := standinmodel.NewGate(standinmodel.ToolAck)
	model, err := standinmodel.Start(gate.Policy(standinmodel.Worker(1)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	t.Cleanup(gate.Open) // first: no reply is left waiting at the close
	d := newDirs(t)
	env := c.env(t, d, bin, model)
	p := start(t, env, "--headless")
	waitEndpoint(t, p, d, 10*time.Second)

	repoDir := filepath.Join(d.home, "project")
	lcGit(t, "", "init", "-q", "-b", "main", repoDir)
	lcGit(t, repoDir, "config", "user.name", "Dev Person")
	lcGit(t, repoDir, "config", "user.email", "dev@example.com")
	lcWrite(t, filepath.Join(repoDir, "README"), "a project\n")
	lcGit(t, repoDir, "add", "-A")
	lcGit(t, repoDir, "commit", "-q", "-m", "first")
	r := &realRun{env: env, d: d, model: model}
	r.repo = strings.TrimSpace(mustCLI(t, env, "repo", "add", repoDir))
	mustCLI(t, env, "work", "create", "--repo", r.repo, "--title", "Packet 1", "--instructions", "Write the notes.", "--artifact", "notes:text")
	var started mcpserver.AgentStarted
	if err := json.Unmarshal([]byte(mustCLI(t, env, "agent", "start", c.profile, "--repo", r.repo, "--json")), &started); err != nil {
		t.Fatalf("agent start --json: %v", err)
	}
	r.session = started.SessionID
	if started.Workspace == nil {
		t.Fatalf("the agent has no worktree of its own: %+v", started)
	}
	stalled := func(what string, p *proc) {
		t.Helper()
		t.Fatalf("%s: %s.\nThe agent's last screen:\n%s\nThe stand-in model's log:\n%s\nThe app's output:\n%s",
			c.profile, what, lastScreen(d, r.session), model.Log(), p.Output())
	}
	select {
	case <-gate.Reached():
	case <-time.After(60 * time.Second):
		stalled("no ack within 60 s", p)
	}
	if answered != nil && !eventually(t, func() bool { return answered(d) }) {
		stalled("the ack's result never reached the CLI's conversation", p)
	}
	var before []string
	if conversations != nil {
		if before = conversations(d); len(before) != 1 {
			t.Fatalf("%s's conversations before the kill: %v, want one", c.profile, before)
		}
	}

	p.cmd.Process.Signal(syscall.SIGKILL)
	if _, ok := p.wait(10 * time.Second); !ok {
		t.Fatal("the app outlived SIGKILL")
	}
	// The killed run's endpoint file is still there: gone, the next
	// run's tells when it is ready.
	os.Remove(filepath.Join(d.run, "mcp-http-endpoint"))
	p2 := start(t, env, "--headless")
	waitEndpoint(t, p2, d, 20*time.Second)
	gate.Open()
	resumed := mustCLI(t, env, "agent", "resume", r.session)
	if strings.TrimSpace(resumed) != r.session {
		t.Errorf("agent resume printed %q, want the same session %s", resumed, r.session)
	}
	if !eventually(t, func() bool { return r.packetsDone(t) == 1 }) {
		stalled("the packet is not done after the resume", p2)
	}
	p2.stop()

	if conversations != nil {
		if after := conversations(d); !slices.Equal(after, before) {
			t.Errorf("%s's conversations after the resume: %v, want still only %v", c.profile, after, before)
		}
	}
	claims := 0
	for _, call := range model.Calls() {
		if call.Tool == standinmodel.ToolAwait {
			claims++
		}
	}
	if claims != 1 {
		t.Errorf("the model claimed %d times; the resumed conversation should have carried on with its packet.\nThe model's log:\n%s", claims, model.Log())
	}
	db, err := store.Open(filepath.Join(d.data, "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(context.Background(), func(tx *store.Tx) error {
		s, err := tx.Session(r.session)
		if err != nil {
			t.Fatal(err)
		}
		if s.ConversationID == "" || before != nil && s.ConversationID != before[0] || s.Resumes != 1 ||
			s.Workspace == nil || s.Workspace.Path != started.Workspace.Path {
			t.Errorf("the session after the resume: conversation %q (the CLI's: %v), resumed %d times, worktree %+v (was %s)",
				s.ConversationID, before, s.Resumes, s.Workspace, started.Workspace.Path)
		}
		return nil
	})
}

// claudeAnswered reports whether Claude Code's conversation holds the result
// of each tool call it made, the claim and the ack at least. The stand-in
// model has the ack's result as soon as Claude Code sends it on, but Claude
// Code appends it to its transcript a moment later: a kill in between
// resumes a conversation whose ack never answered (Claude Code then tells
// the model the call was interrupted), not the one this test is about.
func claudeAnswered(d dirs) bool {
	files, _ := filepath.Glob(filepath.Join(d.home, ".claude", "projects", "*", "*.jsonl"))
	uses, results := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return false
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			var entry struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			var items []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			}
			// A line cut by the write in progress, or content that is plain
			// text, holds no tool call.
			if json.Unmarshal(line, &entry) != nil || json.Unmarshal(entry.Message.Content, &items) != nil {
				continue
			}
			for _, it := range items {
				switch it.Type {
				case "tool_use":
					uses[it.ID] = true
				case "tool_result":
					results[it.ToolUseID] = true
				}
			}
		}
	}
	if len(uses) < 2 {
		return false
	}
	for id := range uses {
		if !results[id] {
			return false
		}
	}
	return true
}
