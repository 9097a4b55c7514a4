package mcpserver

import (
	"fmt"
	"slices"
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
// write scope refuses the completion and commits nothing; with no write
// scope the code is not limited.
//
// The commit is made even if the completion then fails (a lease lost in
// between): it is on the session's own branch, where nothing is lost.
func (r *Registry) commitWork(c *Call) (any, error) {
	var in CompleteArgs
	if err := c.Decode(&in); err != nil {
		return nil, nil // the handler refuses bad arguments
	}
	var (
		ses    store.Session
		target store.ArtifactTarget
		title  string
	)
	err := r.prepareView(c, func(tx *store.Tx) error {
		var err error
		if ses, err = c.liveSession(in.SessionID); err != nil {
			return err
		}
		if target, err = tx.ArtifactTarget(in.PacketID, ses.ID, in.LeaseID); err != nil {
			return err
		}
		p, err := tx.Packet(in.PacketID)
		if err != nil {
			return err
		}
		title = p.Title
		return tx.CheckArtifacts(p)
	})
	if err != nil || ses.Workspace == nil {
		return nil, err
	}
	ws := gitWorkspace(ses.Workspace)
	from := ses.Workspace.Done
	if from == "" {
		from = ws.BaseCommit
	}
	if len(target.WriteScope) > 0 {
		changed, err := workspace.ChangedFiles(c.Ctx, ws)
		if err != nil {
			return nil, err
		}
		outside := slices.DeleteFunc(changed, func(f string) bool { return store.MatchWriteScope(target.WriteScope, f) })
		if len(outside) > 0 {
			return nil, store.Deny(store.CodeWriteScopeViolation, "changed outside the packet's write scope (%s): %s",
				strings.Join(target.WriteScope, ", "), listFiles(outside))
		}
	}
	profile := ses.Profile
	if profile == "" {
		profile = "agent"
	}
	_, head, err := workspace.CommitAll(c.Ctx, ws, workspace.Commit{
		Message:   title,
		Trailers:  []string{"Switchboard-Packet: " + target.PacketID},
		CoAuthors: []string{fmt.Sprintf("%s (Switchboard %s) <%s@switchboard.invalid>", profile, ses.ID, ses.ID)},
	})
	if err != nil {
		return nil, err
	}
	stat, err := workspace.Diffstat(c.Ctx, ws.Path, from, head)
	if err != nil {
		return nil, err
	}
	return &store.PacketChanges{SessionID: ses.ID, Branch: ws.Branch, BaseBranch: ws.BaseBranch, From: from, To: head,
		Files: len(stat.Files), Added: stat.Added, Deleted: stat.Deleted}, nil
}

// listFiles names at most maxListedFiles files, and how many more there are.
func listFiles(files []string) string {
	if len(files) <= maxListedFiles {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files[:maxListedFiles], ", "), len(files)-maxListedFiles)
}
