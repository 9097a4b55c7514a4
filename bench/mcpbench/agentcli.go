package main

// The agent CLI rows (issue 16): the time from Start agent to the agent's
// first tool call, for each real agent CLI (Claude Code, Codex, Gemini CLI,
// pinned in test/agents) on the stand-in model (test/standinmodel), beside
// the supervisor's stand-in agent (supervisor/testdata/standin worker),
// whose first action is the same MCP call, started the same way in the same
// run. Each kind runs on a daemon of its own (app/daemon, in this process,
// as in worktree.go) with the environment a person's desktop session would
// give the tray: the CLIs on PATH, a throwaway HOME with the person's setup
// of the CLI (standinmodel.ClaudeHome and the others), the CLI's variables.
// A start is timed from the agent.start call to the model's first tool
// call, and to Switchboard's first audited MCP call of the session: the
// same moment seen from Switchboard's side, once the call has been made.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
	"github.com/switchboard-dev/switchboard/test/standinmodel"
)

// agentBaseline is the kind the CLIs are compared with: the supervisor's
// stand-in agent, a Go binary that claims a packet over MCP first thing.
const agentBaseline = "standin"

// agentCLINames are the real CLIs, by their built-in profile's id.
func agentCLINames() []string { return []string{"claude", "codex", "gemini"} }

// agentFirstCallWait bounds one start's wait for its first tool call.
const agentFirstCallWait = 90 * time.Second

// agentKindResult is one kind's starts; skipped, when set, says why it was
// not measured ("not installed: ...").
type agentKindResult struct {
	name      string
	skipped   string
	modelCall []time.Duration // agent.start called → the model's first tool call
	audited   []time.Duration // agent.start called → first audited MCP call of the session
}

// agentCLIResult is what the agent CLI rows measured.
type agentCLIResult struct {
	starts   int
	baseline agentKindResult
	clis     []agentKindResult
}

// measureAgentCLIs times n starts of the stand-in agent, then of each CLI.
// A CLI that is not installed (and cannot be) is a row saying so.
func measureAgentCLIs(ctx context.Context, dir string, cfg config, log *slog.Logger) (*agentCLIResult, error) {
	root := filepath.Join(dir, "agentcli")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	res := &agentCLIResult{starts: cfg.agentCLIStart}
	fmt.Fprintf(os.Stderr, "mcpbench: building the supervisor's stand-in agent…\n")
	standin, err := buildStandin(cfg.root, root)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "mcpbench: %d starts of the stand-in agent to its first MCP call…\n", cfg.agentCLIStart)
	if res.baseline, err = measureAgentKind(ctx, root, cfg, agentBaseline, standin, "", log); err != nil {
		return nil, fmt.Errorf("%s: %w", agentBaseline, err)
	}
	bin, why := agentCLIBin(ctx, cfg.root)
	for _, name := range agentCLINames() {
		if bin == "" {
			res.clis = append(res.clis, agentKindResult{name: name, skipped: "not installed: " + why})
			continue
		}
		fmt.Fprintf(os.Stderr, "mcpbench: %d starts of %s on the stand-in model to its first tool call…\n", cfg.agentCLIStart, name)
		k, err := measureAgentKind(ctx, root, cfg, name, standin, bin, log)
		if err != nil {
			// One CLI that cannot start is its row's news, not the run's end.
			fmt.Fprintf(os.Stderr, "mcpbench: %s: %v\n", name, err)
			k = agentKindResult{name: name, skipped: "failed (see the run's output)"}
		}
		res.clis = append(res.clis, k)
	}
	return res, nil
}

// agentCLIBin is the folder holding the pinned CLIs, test/agents's
// node_modules/.bin, installed with npm ci when node_modules is missing;
// "" and why when they are not there. A node_modules that is a link (a
// worktree sharing another checkout's install) is used as it is: npm ci
// through it would empty the folder under every other user of it.
func agentCLIBin(ctx context.Context, root string) (bin, why string) {
	// Absolute: a relative folder on PATH is not searched for a command.
	agents, err := filepath.Abs(filepath.Join(root, "test", "agents"))
	if err != nil {
		return "", err.Error()
	}
	nm := filepath.Join(agents, "node_modules")
	if _, err := os.Lstat(nm); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "mcpbench: installing the pinned agent CLIs (npm ci in %s)…\n", agents)
		ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = agents
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Sprintf("npm ci in test/agents: %v: %s", err, lastLine(string(out)))
		}
	}
	bin = filepath.Join(nm, ".bin")
	for _, name := range agentCLINames() {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			return "", fmt.Sprintf("no %s in test/agents/node_modules/.bin", name)
		}
	}
	return bin, ""
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// buildStandin builds supervisor/testdata/standin into dir.
func buildStandin(root, dir string) (string, error) {
	bin := filepath.Join(dir, "standin")
	cmd := exec.Command("go", "build", "-o", bin, "./supervisor/testdata/standin")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build supervisor/testdata/standin: %w\n%s", err, out)
	}
	return bin, nil
}

// firstCallClock records when the stand-in model first answers with a
// tool call after each reset: the model's own FirstCall is once per
// server, and one model serves all of a kind's starts (the CLIs' setup
// names its address).
type firstCallClock struct {
	mu    sync.Mutex
	first time.Time
}

func (c *firstCallClock) wrap(p standinmodel.Policy) standinmodel.Policy {
	return func(prompt string, steps []standinmodel.Step) standinmodel.Reply {
		r := p(prompt, steps)
		if r.Call != nil {
			c.mu.Lock()
			if c.first.IsZero() {
				c.first = time.Now()
			}
			c.mu.Unlock()
		}
		return r
	}
}

func (c *firstCallClock) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.first = time.Time{}
}

func (c *firstCallClock) get() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.first
}

// cliVars are the prefixes of the agent CLIs' own variables: none of this
// process's reaches the agents, only the person's setup.
func cliVars() []string {
	return []string{"ANTHROPIC_", "CLAUDE_", "CODEX_", "OPENAI_", "GEMINI_", "GOOGLE_"}
}

// agentEnv is the environment of a kind's daemon (and so its agents): this
// process's without the CLIs' variables, the CLIs first on PATH, home as
// HOME, and the person's variables.
func agentEnv(base []string, bin, home string, person []string) []string {
	path := ""
	for _, kv := range base {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if bin != "" {
		path = bin + string(os.PathListSeparator) + path
	}
	env := slices.DeleteFunc(slices.Clone(base), func(kv string) bool {
		return slices.ContainsFunc(cliVars(), func(p string) bool { return strings.HasPrefix(kv, p) }) ||
			strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "TERM=")
	})
	env = append(env, "PATH="+path, "HOME="+home, "TERM=xterm-256color")
	return append(env, person...)
}

// setProcessEnv makes env this process's environment until restore: the
// in-process daemon's supervisor starts agents from it and finds a
// profile's command on its PATH, as the tray's does from the desktop's.
func setProcessEnv(env []string) (restore func(), err error) {
	saved := os.Environ()
	apply := func(kvs []string) error {
		os.Clearenv()
		for _, kv := range kvs {
			k, v, _ := strings.Cut(kv, "=")
			if err := os.Setenv(k, v); err != nil {
				return fmt.Errorf("set %s: %w", k, err)
			}
		}
		return nil
	}
	if err := apply(env); err != nil {
		apply(saved)
		return nil, err
	}
	return func() { apply(saved) }, nil
}

// measureAgentKind starts a daemon with kind's environment, a repository
// and the stand-in model (for a CLI), then times cfg.agentCLIStart starts,
// a fresh packet before each and the agent stopped after.
func measureAgentKind(ctx context.Context, root string, cfg config, kind, standin, bin string, log *slog.Logger) (agentKindResult, error) {
	res := agentKindResult{name: kind}
	home, err := os.MkdirTemp(root, "home-"+kind+"-")
	if err != nil {
		return res, err
	}
	var clock firstCallClock
	var model *standinmodel.Server
	var person []string
	if kind != agentBaseline {
		if model, err = standinmodel.Start(clock.wrap(standinmodel.Worker(1))); err != nil {
			return res, err
		}
		defer model.Close()
		switch kind {
		case "claude":
			person, err = standinmodel.ClaudeHome(home, model)
		case "codex":
			person, err = standinmodel.CodexHome(home, model, "")
		case "gemini":
			person, err = standinmodel.GeminiHome(home, model, bin)
		default:
			err = fmt.Errorf("no person's setup for %q", kind)
		}
		if err != nil {
			return res, err
		}
	}
	restore, err := setProcessEnv(agentEnv(os.Environ(), bin, home, person))
	if err != nil {
		return res, err
	}
	defer restore()
	b, err := newAgentBench(ctx, cfg.dir, filepath.Join(home, "project"), log)
	if err != nil {
		return res, err
	}
	err = func() error {
		prof := kind
		if kind == agentBaseline {
			_, err := mcpserver.Invoke(ctx, b.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: profile.Profile{
				ID: agentBaseline, Name: "stand-in agent", Command: standin,
				Args: []string{"worker", "notes.txt", "done by the stand-in agent"}, Prompt: profile.PromptNone,
			}})
			if err != nil {
				return fmt.Errorf("add the stand-in profile: %w", err)
			}
		}
		for i := range cfg.agentCLIStart {
			if _, err := mcpserver.Invoke(ctx, b.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkCreate, mcpserver.WorkCreateArgs{
				RepositoryID: b.repoID, Title: fmt.Sprintf("Packet %d", i+1), Instructions: "Write the notes.",
				ExpectedArtifacts: []store.ExpectedArtifact{{Name: "notes", Kind: "text"}},
			}); err != nil {
				return fmt.Errorf("work.create: %w", err)
			}
			clock.reset()
			call, audited, err := b.timeFirstCall(ctx, prof, &clock, model)
			if err != nil {
				return fmt.Errorf("start %d: %w", i+1, err)
			}
			if model != nil {
				res.modelCall = append(res.modelCall, call)
				fmt.Fprintf(os.Stderr, "mcpbench:   %s start %d: the model's first tool call %s, audited %s\n", kind, i+1, fmtDur(call), fmtDur(audited))
			} else {
				fmt.Fprintf(os.Stderr, "mcpbench:   %s start %d: first audited MCP call %s\n", kind, i+1, fmtDur(audited))
			}
			res.audited = append(res.audited, audited)
		}
		return nil
	}()
	return res, errors.Join(err, b.close(ctx))
}

// newAgentBench starts a daemon in fresh folders under parent and registers
// a repository of one generated file made at repo.
func newAgentBench(ctx context.Context, parent, repo string, log *slog.Logger) (*wsBench, error) {
	if err := generateRepo(ctx, repo, 1); err != nil {
		return nil, err
	}
	b := &wsBench{repo: repo, dir: filepath.Dir(repo)}
	var err error
	if b.base, err = os.MkdirTemp(parent, "sba"); err != nil {
		return nil, err
	}
	b.paths = daemon.Paths{Data: filepath.Join(b.base, "data"), Runtime: filepath.Join(b.base, "run")}
	b.d, err = daemon.Start(ctx, daemon.Config{Paths: b.paths, Version: "mcpbench", Keyring: keyring.NewMemory(), Log: log})
	if err != nil {
		os.RemoveAll(b.base)
		return nil, fmt.Errorf("start the daemon: %w", err)
	}
	b.reg = b.d.Registry()
	reg, err := mcpserver.Invoke(ctx, b.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: repo})
	if err != nil {
		b.close(ctx)
		return nil, fmt.Errorf("register %s: %w", repo, err)
	}
	b.repoID = reg.Repository.ID
	return b, nil
}

// timeFirstCall starts profile on the repository, as the tray's Start
// agent does, and waits for its first tool call: the model's (when model
// is not nil) and Switchboard's first audited MCP call of the session. It
// stops the agent before it returns.
func (b *wsBench) timeFirstCall(ctx context.Context, profileID string, clock *firstCallClock, model *standinmodel.Server) (call, audited time.Duration, err error) {
	var after uint64
	b.reg.DB().View(ctx, func(tx *store.Tx) error { after = tx.LastAuditSeq(); return nil })
	begun := time.Now()
	started, err := mcpserver.Invoke(ctx, b.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart,
		mcpserver.AgentStartArgs{Profile: profileID, RepositoryID: b.repoID})
	if err != nil {
		return 0, 0, fmt.Errorf("agent.start %s: %w", profileID, err)
	}
	err = func() error {
		deadline := time.Now().Add(agentFirstCallWait)
		for {
			if model != nil && call == 0 {
				if t := clock.get(); !t.IsZero() {
					call = t.Sub(begun)
				}
			}
			if audited == 0 {
				at, err := b.firstAudited(started.SessionID, after)
				if err != nil {
					return err
				}
				if !at.IsZero() {
					audited = at.Sub(begun)
				}
			}
			if audited != 0 && (model == nil || call != 0) {
				return nil
			}
			if time.Now().After(deadline) {
				screen := ""
				if s, ok := b.d.Agents().Get(started.SessionID); ok {
					screen = s.Terminal().Text()
				}
				log := ""
				if model != nil {
					log = "\nthe stand-in model's log:\n" + model.Log()
				}
				return fmt.Errorf("%s made no tool call within %v; its screen:\n%s%s", profileID, agentFirstCallWait, screen, log)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return call, audited, errors.Join(err, b.stopAgent(ctx, started, false))
}

// firstAudited is the time of the session's first MCP call in the audit
// log after record after; zero when there is none yet. Calls from the
// CLI's hooks and the supervisor are not the agent's tool calls.
func (b *wsBench) firstAudited(sessionID string, after uint64) (time.Time, error) {
	var at time.Time
	err := b.reg.DB().View(context.Background(), func(tx *store.Tx) error {
		recs, err := tx.QueryAudit(store.AuditFilter{SessionID: sessionID, AfterSeq: after, Limit: 100})
		if err != nil {
			return err
		}
		for _, r := range recs {
			if strings.HasPrefix(r.Transport, string(mcpserver.TransportMCP)) {
				at = r.Time
				return nil
			}
		}
		return nil
	})
	return at, err
}
