package main

// The workspace rows (issue 15): an agent's session started with a worktree
// of its own on a generated repository of 20,000 files, timed from the
// call to the agent's first output on its emulated screen, beside `git
// worktree add` alone on the same repository; `switchboard diff` of a
// 5,000-file change and `switchboard land` of a 100-commit packet
// (diffland.go). All of it runs through the real daemon (app/daemon, the
// code `switchboard --headless` runs) started in this process in temporary
// folders, the agent a real process under the supervisor; the CLI's
// commands run through the CLI's own code (app/cli) over the daemon's
// control socket, as the binary would, without the exec of the binary.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/app/cli"
	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// benchProfile is the agent the workspace rows start: it prints a line and
// waits, so that its first output is the start's end.
const (
	benchProfile = "mcpbench"
	benchReady   = "mcpbench-agent-ready"
)

// wsBench is a daemon in this process and a generated repository
// registered with it.
type wsBench struct {
	files  int
	repo   string // the generated repository, main checked out
	dir    string // scratch folders (baseline worktrees) go here
	base   string // the daemon's folders; short, for the control socket
	paths  daemon.Paths
	d      *daemon.Daemon
	reg    *mcpserver.Registry
	repoID string

	generated, registered time.Duration
}

// newWSBench generates a repository of files files under dir, starts a
// daemon in fresh folders under parent ("" is the system's temp dir) and
// registers the repository with it. Its worktrees are made in its data
// dir: parent should be on the disk of dir.
func newWSBench(ctx context.Context, dir, parent string, files int, log *slog.Logger) (*wsBench, error) {
	b := &wsBench{files: files, repo: filepath.Join(dir, "repo"), dir: dir}
	begun := time.Now()
	if err := generateRepo(ctx, b.repo, files); err != nil {
		return nil, err
	}
	b.generated = time.Since(begun)
	var err error
	if b.base, err = os.MkdirTemp(parent, "sbw"); err != nil {
		return nil, err
	}
	b.paths = daemon.Paths{Data: filepath.Join(b.base, "data"), Runtime: filepath.Join(b.base, "run")}
	b.d, err = daemon.Start(ctx, daemon.Config{Paths: b.paths, Version: "mcpbench", Keyring: keyring.NewMemory(), Log: log})
	if err != nil {
		os.RemoveAll(b.base)
		return nil, fmt.Errorf("start the daemon: %w", err)
	}
	b.reg = b.d.Registry()
	fail := func(err error) (*wsBench, error) {
		b.close(ctx)
		return nil, err
	}
	begun = time.Now()
	reg, err := mcpserver.Invoke(ctx, b.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: b.repo})
	if err != nil {
		return fail(fmt.Errorf("register %s: %w", b.repo, err))
	}
	b.registered = time.Since(begun)
	b.repoID = reg.Repository.ID
	_, err = mcpserver.Invoke(ctx, b.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: profile.Profile{
		ID: benchProfile, Name: "mcpbench agent", Command: "sh",
		Args:   []string{"-c", "echo " + benchReady + "; exec sleep 600"},
		Prompt: profile.PromptNone,
	}})
	if err != nil {
		return fail(fmt.Errorf("add the bench profile: %w", err))
	}
	return b, nil
}

// close stops the daemon (and with it any agent still running) and removes
// its folders.
func (b *wsBench) close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return errors.Join(b.d.Close(ctx), os.RemoveAll(b.base))
}

// startAgent starts the bench agent on the repository, with a worktree.
func (b *wsBench) startAgent(ctx context.Context) (mcpserver.AgentStarted, error) {
	started, err := mcpserver.Invoke(ctx, b.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStart,
		mcpserver.AgentStartArgs{Profile: benchProfile, RepositoryID: b.repoID})
	if err != nil {
		return started, fmt.Errorf("agent.start: %w", err)
	}
	if started.Workspace == nil {
		return started, fmt.Errorf("agent.start made no worktree: %s", started.Isolation)
	}
	return started, nil
}

// waitOutput waits until the session's screen shows text.
func (b *wsBench) waitOutput(ctx context.Context, sessionID, text string, within time.Duration) error {
	s, ok := b.d.Agents().Get(sessionID)
	if !ok {
		return fmt.Errorf("no agent runs as %s", sessionID)
	}
	changed, stop := s.ScreenChanged()
	defer stop()
	timeout := time.NewTimer(within)
	defer timeout.Stop()
	for {
		// Checked after subscribing, so a change between the two is not
		// missed.
		if strings.Contains(s.Terminal().Text(), text) {
			return nil
		}
		select {
		case <-changed:
		case <-s.Done():
			if strings.Contains(s.Terminal().Text(), text) {
				return nil
			}
			return fmt.Errorf("the agent of %s exited (%+v) before it printed %q", sessionID, s.Exit(), text)
		case <-timeout.C:
			return fmt.Errorf("the agent of %s printed no %q within %v; its screen:\n%s", sessionID, text, within, s.Terminal().Text())
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stopAgent kills a session's agent; with gone, it waits until its
// worktree is gone, as it goes when nothing is left in it (nothing done, or
// landed), so that the next measurement does not share the disk with its
// removal.
func (b *wsBench) stopAgent(ctx context.Context, started mcpserver.AgentStarted, gone bool) error {
	s, ok := b.d.Agents().Get(started.SessionID)
	if !ok {
		return fmt.Errorf("no agent runs as %s", started.SessionID)
	}
	deadline := time.Now().Add(2 * time.Minute)
	_, err := mcpserver.Invoke(ctx, b.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodAgentStop,
		mcpserver.AgentStopArgs{SessionID: started.SessionID, Kill: true})
	if err != nil {
		// agent.stop waits for the session's end, which removes an empty
		// worktree before it answers: on a busy machine that can take
		// longer than the stop's 30 s, and the stop says so though the
		// agent is gone. What matters here is that the session ends.
		fmt.Fprintf(os.Stderr, "mcpbench: warning: agent.stop %s: %v\n", started.SessionID, err)
		select {
		case <-s.Done():
		case <-time.After(time.Until(deadline)):
			return fmt.Errorf("agent.stop: %w, and the session has not ended 2 min later", err)
		}
	}
	if !gone || started.Workspace == nil {
		return nil
	}
	for {
		if _, err := os.Stat(started.Workspace.Path); errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the worktree %s of ended session %s is still there after 2 min", started.Workspace.Path, started.SessionID)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// agentPrincipal is the session's agent as the registry knows it.
func (b *wsBench) agentPrincipal(sessionID string) (mcpserver.Principal, error) {
	var ses store.Session
	err := b.reg.DB().View(context.Background(), func(tx *store.Tx) error {
		var err error
		ses, err = tx.Session(sessionID)
		return err
	})
	return mcpserver.Principal{KeyID: ses.TokenKeyID, SessionID: ses.ID}, err
}

// runCLI runs `switchboard args...` through the CLI's code, connected to
// the daemon over its control socket, its output into stdout.
func (b *wsBench) runCLI(ctx context.Context, stdout io.Writer, args ...string) error {
	var stderr bytes.Buffer
	env := map[string]string{"SWITCHBOARD_DATA_DIR": b.paths.Data, "SWITCHBOARD_RUNTIME_DIR": b.paths.Runtime, "HOME": b.base}
	code := cli.Run(ctx, cli.Env{
		Stdin: strings.NewReader(""), Stdout: stdout, Stderr: &stderr,
		Getenv:  func(k string) string { return env[k] },
		Keyring: keyring.NewMemory(), Version: "mcpbench",
	}, args)
	if code != 0 {
		return fmt.Errorf("switchboard %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return nil
}

// startResult is the start rows' measurements, one per start.
type startResult struct {
	files      int
	generated  time.Duration   // generating the repository (one fast-import)
	registered time.Duration   // repository.register
	launched   []time.Duration // agent.start returned: worktree made, agent launched
	firstOut   []time.Duration // the agent's first line on its screen
	gitAdd     []time.Duration // git worktree add alone
}

// measureStarts starts the bench agent n times, each time until its first
// output, and between them runs `git worktree add` of the same commit on
// the same repository, alternating which goes first.
func (b *wsBench) measureStarts(ctx context.Context, n int) (startResult, error) {
	res := startResult{files: b.files, generated: b.generated, registered: b.registered}
	for i := range n {
		agent := func() error {
			begun := time.Now()
			started, err := b.startAgent(ctx)
			if err != nil {
				return err
			}
			launched := time.Since(begun)
			err = b.waitOutput(ctx, started.SessionID, benchReady, 30*time.Second)
			first := time.Since(begun)
			if serr := b.stopAgent(ctx, started, true); err == nil {
				err = serr
			}
			if err != nil {
				return err
			}
			res.launched, res.firstOut = append(res.launched, launched), append(res.firstOut, first)
			return nil
		}
		baseline := func() error {
			d, err := b.gitWorktreeAdd(ctx, fmt.Sprintf("base-%d", i))
			if err == nil {
				res.gitAdd = append(res.gitAdd, d)
			}
			return err
		}
		steps := []func() error{agent, baseline}
		if i%2 == 1 {
			steps[0], steps[1] = baseline, agent
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// gitWorktreeAdd times `git worktree add -b` of main's commit on the
// repository, as agent.start runs it, then removes the worktree and its
// branch (untimed).
func (b *wsBench) gitWorktreeAdd(ctx context.Context, name string) (time.Duration, error) {
	commit, err := revParse(ctx, b.repo, "main")
	if err != nil {
		return 0, err
	}
	path, branch := filepath.Join(b.dir, "baseline-"+name), "mcpbench/"+name
	begun := time.Now()
	if _, err := gitcmd.Run(ctx, b.repo, "worktree", "add", "--quiet", "-b", branch, path, commit); err != nil {
		return 0, fmt.Errorf("git worktree add: %w", err)
	}
	d := time.Since(begun)
	if _, err := gitcmd.Run(ctx, b.repo, "worktree", "remove", path); err != nil {
		return 0, fmt.Errorf("git worktree remove: %w", err)
	}
	if _, err := gitcmd.Run(ctx, b.repo, "branch", "-d", "--quiet", branch); err != nil {
		return 0, fmt.Errorf("git branch -d: %w", err)
	}
	return d, nil
}

// measureWorkspace runs the workspace rows cfg asks for on one generated
// repository and one daemon.
func measureWorkspace(ctx context.Context, dir string, cfg config, log *slog.Logger) (*wsResult, error) {
	wsDir := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(wsDir, 0o700); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "mcpbench: generating a repository of %s files and starting a daemon…\n", thousands(cfg.wsFiles))
	b, err := newWSBench(ctx, wsDir, cfg.dir, cfg.wsFiles, log)
	if err != nil {
		return nil, err
	}
	res := &wsResult{}
	err = func() error {
		if cfg.want(sectionWorktree) {
			fmt.Fprintf(os.Stderr, "mcpbench: %d agent starts with a worktree, %d git worktree adds…\n", cfg.wsStarts, cfg.wsStarts)
			s, err := b.measureStarts(ctx, cfg.wsStarts)
			if err != nil {
				return fmt.Errorf("worktree starts: %w", err)
			}
			res.starts = &s
		}
		if cfg.want(sectionDiff) {
			fmt.Fprintf(os.Stderr, "mcpbench: switchboard diff of %s files × %d lines, %d times, and git diff…\n", thousands(cfg.diffFiles), cfg.diffLines, cfg.wsRuns)
			d, err := b.measureDiff(ctx, cfg.diffFiles, cfg.diffLines, cfg.wsRuns)
			if err != nil {
				return fmt.Errorf("diff: %w", err)
			}
			res.diff = &d
		}
		if cfg.want(sectionLand) {
			fmt.Fprintf(os.Stderr, "mcpbench: %d landings of %d commits, and git merge --no-ff…\n", cfg.wsRuns, cfg.landCommits)
			l, err := b.measureLand(ctx, cfg.landCommits, cfg.wsRuns)
			if err != nil {
				return fmt.Errorf("land: %w", err)
			}
			res.land = &l
		}
		return nil
	}()
	return res, errors.Join(err, b.close(ctx))
}

// wsResult is what the workspace rows measured; nil parts were not run.
type wsResult struct {
	starts *startResult
	diff   *diffResult
	land   *landResult
}
