package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// maxListedFiles bounds the files a write_scope_violation names.
const maxListedFiles = 20

// commitWork is work.complete's Prepare: in a session's worktree, what the
// agent left uncommitted becomes a commit of the packet's before the
// completion, and the packet records the range of commits its work made.
// It runs before the write transaction (git is slow I/O), after a read
// transaction in which the call is authorized and the lease, the session's
// worktree and the expected artifacts are checked: a completion that would
// be refused anyway commits nothing. A file changed outside the packet's
// write scope, in what would be committed (the index, once everything is
// staged) or in what the agent committed itself since the range's start,
// refuses the completion and commits nothing (what was staged stays
// staged); with no write scope the code is not limited.
//
// The commit is made even if the completion then fails (a lease lost in
// between): it is on the session's own branch, where nothing is lost.
//
// It also reads the session's usage, which the completion records. For a
// session with no worktree whose agent Switchboard does not run (an
// external agent's) there is neither to do, and it stops once the session
// is read: the lease and the artifacts are the write transaction's to
// check, as they are anyway.
func (r *Registry) commitWork(c *Call) (any, error) {
	var in CompleteArgs
	if err := c.Decode(&in); err != nil {
		return nil, nil // the handler refuses bad arguments
	}
	var (
		ses    store.Session
		target store.ArtifactTarget
		p      store.Packet
		// supervised: the daemon runs the session's agent, whose usage
		// it reads from the CLI's files (RefreshUsage answers nothing
		// for any other session).
		supervised bool
	)
	err := r.prepareView(c, func(tx *store.Tx) error {
		var err error
		if ses, err = c.liveSession(in.SessionID); err != nil {
			return err
		}
		if r.refreshUsage != nil && r.agents != nil {
			_, supervised = r.agents.Get(ses.ID)
		}
		if ses.Workspace == nil && !supervised {
			// No git to run and no usage to read (an agent Switchboard
			// does not run): what else would be checked here the write
			// transaction checks anyway.
			return nil
		}
		if p, err = c.packet(in.PacketID); err != nil {
			return err
		}
		if target, err = tx.ArtifactTarget(p, ses.ID, in.LeaseID); err != nil {
			return err
		}
		return tx.CheckArtifacts(p)
	})
	if err != nil || ses.Workspace == nil && !supervised {
		return nil, err
	}
	done := &completion{}
	// The daemon reads the session's usage before the lease ends, once
	// the call is authorized, so that the completion records it in its
	// own transaction and the packet's share includes the reply that
	// ended it rather than waiting for the next poll.
	if supervised {
		if u, ok := r.refreshUsage(c.Ctx, ses.ID); ok {
			done.usage = &u
		}
	}
	if ses.Workspace == nil {
		return done, nil
	}
	ws := gitWorkspace(ses.Workspace, target.RepoPath)
	from, err := rangeStart(c.Ctx, ws, ses, p)
	if err != nil {
		return nil, err
	}
	profile := ses.Profile
	if profile == "" {
		profile = "agent"
	}
	commit := workspace.Commit{
		Message:   p.Title,
		Trailers:  []string{"Switchboard-Packet: " + target.PacketID},
		CoAuthors: []string{fmt.Sprintf("%s (Switchboard %s) <%s@switchboard.invalid>", profile, ses.ID, ses.ID)},
		Since:     from,
	}
	if len(target.WriteScope) > 0 {
		// Checked on the tree committed, not on the worktree before it is
		// staged: a file written in between is either in what the check
		// sees or not in the commit.
		if commit.Check, err = scopeCheck(c.Ctx, target.RepoPath, target.WriteScope, "changed"); err != nil {
			return nil, err
		}
	}
	created, head, err := workspace.CommitAll(c.Ctx, ws, commit)
	if err != nil {
		return nil, err
	}
	stat, err := workspace.Diffstat(c.Ctx, target.RepoPath, from, head)
	if err != nil {
		return nil, err
	}
	// The commit made here ran none of the repository's hooks
	// (workspace.CommitAll says why); the packet says so.
	done.changes = &store.PacketChanges{SessionID: ses.ID, Branch: ws.Branch, BaseBranch: ws.BaseBranch, From: from, To: head,
		Files: len(stat.Files), Added: stat.Added, Deleted: stat.Deleted, HooksNotRun: created}
	return done, nil
}

// completion is what commitWork hands work.complete's handler: the range
// of commits the packet's work made (nil outside a worktree) and the
// session's usage to record (nil when there is none yet).
type completion struct {
	changes *store.PacketChanges
	usage   *store.Usage
}

// listFiles names at most maxListedFiles files, and how many more there are.
func listFiles(files []string) string {
	if len(files) <= maxListedFiles {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files[:maxListedFiles], ", "), len(files)-maxListedFiles)
}

// rangeStart is the commit a packet's range starts from on the session's
// branch (workspace.RangeStart): the first guess is where the packet's work
// began, the head of the session's last completion (Workspace.Done), or the
// base commit for its first; for a packet sent back to the session that
// made its changes, the start of that earlier range, so the packet's range
// is all of its commits: the agent's range, when a person rebased it
// (work.rebase) onto a branch the agent does not work on.
func rangeStart(ctx context.Context, ws workspace.Workspace, ses store.Session, p store.Packet) (string, error) {
	start := ses.Workspace.Done
	if p.Changes != nil && p.Changes.SessionID == ses.ID && p.Landed == nil && p.Changes.From != "" {
		start = p.Changes.From
		if p.Changes.RebasedFrom != nil {
			start = p.Changes.RebasedFrom.From
		}
	}
	return workspace.RangeStart(ctx, ws, start)
}

// scopeCheck returns a check refusing, as write_scope_violation, a path
// outside scope: what a packet's commit holds (workspace.Commit.Check), or
// what its landing changes (workspace.LandRequest.Check). Git names paths
// from the top of the repository; the scope's globs are relative to the
// repository's folder at repoPath, which may lie below that top (a folder
// of a larger repository): a path is matched from that folder, and a file
// outside the folder is outside every scope. what says what was done to
// the files, for the reason.
func scopeCheck(ctx context.Context, repoPath string, scope []string, what string) (func(paths []string) error, error) {
	sub, err := workspace.Subfolder(ctx, repoPath)
	if err != nil {
		return nil, err
	}
	sub = filepath.ToSlash(sub)
	return func(paths []string) error {
		var outside []string
		for _, f := range paths {
			rel, ok := inFolder(sub, f)
			if !ok || !store.MatchWriteScope(scope, rel) {
				outside = append(outside, rel)
			}
		}
		if len(outside) > 0 {
			return store.Deny(store.CodeWriteScopeViolation, "%s outside the packet's write scope (%s): %s",
				what, strings.Join(scope, ", "), listFiles(outside)).WithPaths(outside)
		}
		return nil
	}, nil
}

// inFolder turns f, a slash path from the top of the repository, into one
// relative to sub (a slash path from the same top, "" for the top itself);
// ok is false when f is not inside sub, and rel then climbs out of it with
// "..", as the person would name the file from the repository's folder.
func inFolder(sub, f string) (rel string, ok bool) {
	if sub == "" {
		return f, true
	}
	r, err := filepath.Rel(filepath.FromSlash(sub), filepath.FromSlash(f))
	if err != nil { // both are relative: it cannot fail
		return f, false
	}
	rel = filepath.ToSlash(r)
	return rel, rel != ".." && !strings.HasPrefix(rel, "../")
}
