package mcpserver

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// The methods of this file, typed with their arguments and results: what
// the conflict watch (conflicts_watch.go) knows.
const (
	MethodWorkConflicts     Name[RepoScope, WorkConflicts]             = "work.conflicts"
	MethodWorkConflictHunks Name[WorkConflictHunksArgs, ConflictHunks] = "work.conflict_hunks"
)

// WorkConflicts is the result of work.conflicts.
type WorkConflicts struct {
	Conflicts []PacketConflicts `json:"conflicts"`
}

// WorkConflictHunksArgs are the arguments of work.conflict_hunks.
type WorkConflictHunksArgs struct {
	PacketID string `json:"packet_id"`
}

// ConflictHunks is the result of work.conflict_hunks.
type ConflictHunks struct {
	Status PacketConflicts `json:"status"`
	// Files are the conflicting files with git's messages and the regions
	// it marked; none when the packet applies.
	Files []workspace.ConflictFile `json:"files"`
}

func (r *Registry) registerConflicts() {
	r.Register(Define(MethodWorkConflicts, On(Repository, store.CapWorkRead), ReadOnly,
		"Whether each completed packet whose commits have not landed still applies to its target branch: the conflicting files, and the target's commit that was checked. Kept current in the background as the target branches move.",
		func(c *Call, in RepoScope) (WorkConflicts, error) {
			return WorkConflicts{Conflicts: r.conflicts.list(in.RepositoryID)}, nil
		}))
	hunks := Define(MethodWorkConflictHunks, On(Packet, store.CapWorkRead), ReadOnly,
		"The conflicts of a completed packet's commits with its target branch: each conflicting file with git's messages and the regions it marked (<<<<<<< target, =======, >>>>>>> packet), with a few lines around them.",
		func(c *Call, _ WorkConflictHunksArgs) (ConflictHunks, error) {
			v, err := c.Prepared()
			if err != nil {
				return ConflictHunks{}, err
			}
			h, _ := v.(ConflictHunks)
			return h, nil
		})
	hunks.Prepare = r.conflictHunks
	r.Register(hunks)
}

// packetConflicts is the watch's status of a packet, for work.get: nil
// when the packet is not watched (not completed with commits, landed) or
// not checked yet.
func (r *Registry) packetConflicts(p store.Packet) *PacketConflicts {
	if !awaitsLanding(p) {
		return nil // landed since the watch's last reading
	}
	if c, ok := r.conflicts.get(p.ID); ok {
		return &c
	}
	return nil
}

// conflictHunks merges the packet's range onto the target commit the
// watch last checked, outside any transaction; a packet the watch has not
// checked yet is merged onto its target's tip.
func (r *Registry) conflictHunks(c *Call) (any, error) {
	var in WorkConflictHunksArgs
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	var p store.Packet
	var repo store.Repository
	err := r.prepareView(c, func(tx *store.Tx) error {
		var err error
		if p, err = tx.Packet(in.PacketID); err != nil {
			return err
		}
		repo, err = tx.LocalRepository(p.RepositoryID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !awaitsLanding(p) {
		return nil, store.Deny(store.CodeInvalidState, "packet %s has no commits waiting to land: its agent did not work in a worktree of its own, has not completed it, or it landed", p.ID)
	}
	ctx, cancel := context.WithTimeout(c.Ctx, worktreeTimeout)
	defer cancel()
	st, ok := r.conflicts.get(p.ID)
	fresh := !ok || st.Error != "" || st.Head != p.Changes.To
	if fresh {
		st = PacketConflicts{PacketID: p.ID, RepositoryID: p.RepositoryID, TargetBranch: p.Changes.BaseBranch, From: p.Changes.From, CheckedAt: time.Now().UTC()}
		tips, err := workspace.BranchTips(ctx, repo.Path, []string{st.TargetBranch})
		if err != nil {
			return nil, err
		}
		if tips[st.TargetBranch] == "" {
			return nil, store.Deny(store.CodeInvalidState, "packet %s's target branch %s does not exist", p.ID, st.TargetBranch)
		}
		st.Target, st.Head = tips[st.TargetBranch], p.Changes.To
	}
	m := workspace.MergeCheck{Target: st.Target, Head: st.Head, From: st.From}
	files, err := workspace.ConflictHunks(ctx, repo.Path, m, workspace.ConflictLabels{Target: st.TargetBranch, Head: p.Changes.Branch})
	if err != nil {
		return nil, err
	}
	if fresh {
		for _, f := range files {
			st.Files = append(st.Files, f.Path)
		}
	}
	if files == nil {
		files = []workspace.ConflictFile{}
	}
	return ConflictHunks{Status: st, Files: files}, nil
}
