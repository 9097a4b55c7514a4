package main

// The diff and landing rows: a packet whose agent committed a change in its
// worktree and completed it, then `switchboard diff PKT` (its output
// counted and thrown away) beside `git diff from to > /dev/null`, and
// `switchboard land PKT` (work.land, merge mode) beside the same merge done
// by `git merge --no-ff` in a scratch worktree of the same base commit.

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// benchPacket is a completed packet of the bench agent's.
type benchPacket struct {
	id        string
	started   mcpserver.AgentStarted
	changes   store.PacketChanges
	completed time.Duration // work_complete (the commit check and the diffstat)
}

// makePacket creates a packet, starts the bench agent, claims the packet as
// that agent over the registry, makes commits in its worktree and
// completes it. The agent stays running; stopAgent ends it.
func (b *wsBench) makePacket(ctx context.Context, title string, commits []map[int]map[int]string) (benchPacket, error) {
	var p benchPacket
	if _, err := mcpserver.Invoke(ctx, b.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkCreate,
		mcpserver.WorkCreateArgs{RepositoryID: b.repoID, Title: title}); err != nil {
		return p, fmt.Errorf("work.create: %w", err)
	}
	started, err := b.startAgent(ctx)
	if err != nil {
		return p, err
	}
	p.started = started
	agent, err := b.agentPrincipal(started.SessionID)
	if err != nil {
		return p, err
	}
	claim, err := mcpserver.Invoke(ctx, b.reg, agent, mcpserver.TransportMCP, mcpserver.MethodWorkAwaitPacket,
		mcpserver.AwaitArgs{RepositoryID: b.repoID, WaitSeconds: -1})
	if err != nil {
		return p, fmt.Errorf("work_await_packet: %w", err)
	}
	if claim.Packet == nil || claim.Workspace == nil {
		return p, fmt.Errorf("work_await_packet claimed %+v in %+v", claim.Packet, claim.Workspace)
	}
	p.id = claim.Packet.ID
	ws := claim.Workspace
	if err := commitOnto(ctx, b.repo, ws.Path, "mcpbench/change-"+started.SessionID, ws.BaseCommit, commits); err != nil {
		return p, err
	}
	begun := time.Now()
	done, err := mcpserver.Invoke(ctx, b.reg, agent, mcpserver.TransportMCP, mcpserver.MethodWorkComplete,
		mcpserver.CompleteArgs{PacketID: p.id, LeaseID: claim.LeaseID, Summary: "done"})
	if err != nil {
		return p, fmt.Errorf("work_complete: %w", err)
	}
	p.completed = time.Since(begun)
	if done.Packet.Changes == nil {
		return p, fmt.Errorf("the completed packet %s records no changes", p.id)
	}
	p.changes = *done.Packet.Changes
	return p, nil
}

// diffResult is the diff rows' measurements.
type diffResult struct {
	files, lines int           // files changed, lines changed in each
	bytes        int           // the diff's size as switchboard diff prints it
	completed    time.Duration // the packet's work_complete
	cli          []time.Duration
	workDiff     []time.Duration // work.diff called on the registry
	gitDiff      []time.Duration // git diff to /dev/null
}

// measureDiff makes one packet changing files files in lines lines each,
// then times switchboard diff, work.diff and git diff of it, n each, in
// turns.
func (b *wsBench) measureDiff(ctx context.Context, files, lines, n int) (diffResult, error) {
	res := diffResult{files: files, lines: lines}
	p, err := b.makePacket(ctx, "Bench: a wide change", wideChange(files, lines, "changed by the agent"))
	if err != nil {
		return res, err
	}
	// Its worktree holds unlanded commits: it stays when the agent ends.
	defer b.stopAgent(ctx, p.started, false)
	res.completed = p.completed
	if p.changes.Files != files || p.changes.Added != files*lines {
		return res, fmt.Errorf("the packet records %d files, +%d: want %d, +%d", p.changes.Files, p.changes.Added, files, files*lines)
	}
	for range n {
		var out countWriter
		begun := time.Now()
		if err := b.runCLI(ctx, &out, "diff", p.id); err != nil {
			return res, err
		}
		res.cli = append(res.cli, time.Since(begun))
		res.bytes = out.n

		begun = time.Now()
		d, err := mcpserver.Invoke(ctx, b.reg, mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodWorkDiff, mcpserver.WorkDiffArgs{PacketID: p.id})
		if err != nil {
			return res, fmt.Errorf("work.diff: %w", err)
		}
		res.workDiff = append(res.workDiff, time.Since(begun))
		if len(d.Diff) == 0 {
			return res, fmt.Errorf("work.diff of %s is empty", p.id)
		}

		// The baseline writes to /dev/null, as a person would time it: an
		// exec of git with its standard output the null device, not
		// gitcmd, which keeps the output in memory.
		cmd := exec.CommandContext(ctx, "git", "-C", b.repo, "diff", p.changes.From, p.changes.To)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		begun = time.Now()
		if err := cmd.Run(); err != nil {
			return res, fmt.Errorf("git diff: %v: %s", err, stderr.String())
		}
		res.gitDiff = append(res.gitDiff, time.Since(begun))
	}
	return res, nil
}

// countWriter counts what is written to it and keeps none of it.
type countWriter struct{ n int }

func (w *countWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// landResult is the landing rows' measurements.
type landResult struct {
	commits   int
	completed []time.Duration // each packet's work_complete
	land      []time.Duration // switchboard land
	gitMerge  []time.Duration // git merge --no-ff of the same commits
}

// measureLand makes n packets of commits commits each, one after another,
// each landed onto main (checked out in the repository's folder, which the
// landing fast-forwards) by switchboard land, and merged by `git merge
// --no-ff` in a scratch worktree at the same base commit beside it.
func (b *wsBench) measureLand(ctx context.Context, commits, n int) (landResult, error) {
	res := landResult{commits: commits}
	scratch := filepath.Join(b.dir, "scratch-merge")
	if _, err := gitcmd.Run(ctx, b.repo, "worktree", "add", "--quiet", "--detach", scratch, "main"); err != nil {
		return res, fmt.Errorf("make the scratch worktree: %w", err)
	}
	defer gitcmd.Run(ctx, b.repo, "worktree", "remove", scratch)
	for i := range n {
		base, err := revParse(ctx, b.repo, "main")
		if err != nil {
			return res, err
		}
		p, err := b.makePacket(ctx, fmt.Sprintf("Bench: %d commits, run %d", commits, i+1), longChange(commits, b.files, fmt.Sprintf("landed by run %d", i+1)))
		if err != nil {
			return res, err
		}
		if p.changes.From != base {
			return res, fmt.Errorf("the packet starts at %s, main was at %s", p.changes.From, base)
		}
		res.completed = append(res.completed, p.completed)
		land := func() error {
			begun := time.Now()
			var out bytes.Buffer
			if err := b.runCLI(ctx, &out, "land", p.id); err != nil {
				return err
			}
			res.land = append(res.land, time.Since(begun))
			tip, err := revParse(ctx, b.repo, "main")
			if err != nil {
				return err
			}
			if got := strings.TrimSpace(out.String()); got != tip {
				return fmt.Errorf("switchboard land printed %q, main is at %s", got, tip)
			}
			return nil
		}
		merge := func() error {
			if _, err := gitcmd.Run(ctx, scratch, "checkout", "--quiet", "--detach", base); err != nil {
				return fmt.Errorf("scratch worktree to %s: %w", base, err)
			}
			begun := time.Now()
			if _, err := gitcmd.Run(ctx, scratch, "merge", "--no-ff", "--quiet", "-m", "Land "+p.id, p.changes.To); err != nil {
				return fmt.Errorf("git merge --no-ff: %w", err)
			}
			res.gitMerge = append(res.gitMerge, time.Since(begun))
			return nil
		}
		steps := []func() error{land, merge}
		if i%2 == 1 {
			steps[0], steps[1] = merge, land
		}
		for _, step := range steps {
			if err := step(); err != nil {
				b.stopAgent(ctx, p.started, false)
				return res, err
			}
		}
		if err := b.stopAgent(ctx, p.started, true); err != nil {
			return res, err
		}
	}
	if out, err := gitcmd.Run(ctx, b.repo, "status", "--porcelain"); err != nil || len(out) != 0 {
		return res, fmt.Errorf("the repository's checkout after the landings: %q, %v", out, err)
	}
	return res, nil
}
