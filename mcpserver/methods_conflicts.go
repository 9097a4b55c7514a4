package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// The methods of this file, typed with their arguments and results: what
// the conflict watch (conflicts_watch.go) knows.
const (
	MethodWorkConflicts         Name[RepoScope, WorkConflicts]             = "work.conflicts"
	MethodWorkConflictHunks     Name[WorkConflictHunksArgs, ConflictHunks] = "work.conflict_hunks"
	MethodWorkSendBackConflicts Name[WorkConflictHunksArgs, PacketResult]  = "work.send_back_conflicts"
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

// registerConflicts adds the conflict methods. They are for the GUI and
// the CLI: an agent learns of its packet's conflict from the review it is
// sent back with (and work.get carries the status).
func (r *Registry) registerConflicts() {
	r.Register(Define(MethodWorkConflicts, On(Repository, store.CapWorkRead), Hidden|ReadOnly,
		"Whether each completed packet whose commits have not landed still applies to its target branch: the conflicting files, and the target's commit that was checked. Kept current in the background as the target branches move.",
		func(c *Call, in RepoScope) (WorkConflicts, error) {
			return WorkConflicts{Conflicts: r.conflicts.list(in.RepositoryID)}, nil
		}))
	hunks := Define(MethodWorkConflictHunks, On(Packet, store.CapWorkRead), Hidden|ReadOnly,
		"The conflicts of a completed packet's commits with its target branch: each conflicting file with git's messages and the regions it marked (<<<<<<< target, =======, >>>>>>> packet), with a few lines around them.",
		func(c *Call, _ WorkConflictHunksArgs) (ConflictHunks, error) {
			v := c.Prepared
			h, _ := v.(ConflictHunks)
			return h, nil
		})
	hunks.Prepare = r.conflictHunks
	r.Register(hunks)
	send := Define(MethodWorkSendBackConflicts, On(Packet, store.CapReviewWrite), Hidden,
		"Send a completed packet whose commits conflict with its target branch back to the session that made them, as request_changes with the conflict as the review: notes saying what to do, and a comment on each conflicting file with git's messages and the marked regions. It does not use up one of the packet's attempts.",
		func(c *Call, in WorkConflictHunksArgs) (PacketResult, error) {
			v := c.Prepared
			h, _ := v.(ConflictHunks)
			pkt, err := c.Tx.Packet(in.PacketID)
			if err != nil {
				return PacketResult{}, err
			}
			if err := mayJudge(c.Tx, c.Principal, pkt); err != nil {
				return PacketResult{}, err
			}
			if pkt.Changes == nil || pkt.Changes.To != h.Status.Head {
				// Completed again between the merge and now.
				return PacketResult{}, store.Deny(store.CodeInvalidState, "packet %s changed while its conflicts were read: look at them again", pkt.ID)
			}
			if len(h.Files) == 0 {
				return PacketResult{}, store.Deny(store.CodeInvalidState, "packet %s applies to %s at %.12s: there is no conflict to send back", pkt.ID, h.Status.TargetBranch, h.Status.Target)
			}
			notes, comments := conflictReview(h)
			p, err := c.Tx.ReviewPacket(in.PacketID, store.ReviewSpec{Verdict: store.VerdictRequestChanges, Notes: notes, Comments: comments,
				By: c.Principal.reviewer(), KeepAttempt: true})
			if err != nil {
				return PacketResult{}, err
			}
			return PacketResult{Packet: p}, r.sentBack(c, p)
		})
	send.Prepare = r.conflictHunks
	r.Register(send)
}

// Bounds of a conflict review's comments, under the store's.
const (
	// conflictCommentText is the most of a comment's text: the store
	// takes 4 KiB.
	conflictCommentText = 4000
	// conflictComments is the most files commented on.
	conflictComments = 50
)

// conflictReview is the review a conflict is sent back as: notes that say
// what happened and what to do, and per conflicting file a comment on the
// whole file with git's messages and the marked regions, cut to fit.
func conflictReview(h ConflictHunks) (string, []store.ReviewComment) {
	st := h.Status
	notes := fmt.Sprintf("Your commits conflict with %s (at %.12s) in %d file(s): %s. "+
		"Bring %s into your branch (git rebase %s, or git merge %s), resolve the conflicts as the comments show them, commit, and complete the packet again. "+
		"This send-back does not count as one of the packet's attempts.",
		st.TargetBranch, st.Target, len(st.Files), listFiles(st.Files), st.TargetBranch, st.TargetBranch, st.TargetBranch)
	var comments []store.ReviewComment
	for _, f := range h.Files[:min(len(h.Files), conflictComments)] {
		var b strings.Builder
		for _, m := range f.Messages {
			b.WriteString(m + "\n")
		}
		if f.Note != "" {
			b.WriteString("(" + f.Note + ")\n")
		}
		for _, hk := range f.Hunks {
			fmt.Fprintf(&b, "line %d of the merge:\n%s", hk.Line, hk.Text)
		}
		text := b.String()
		if len(text) > conflictCommentText {
			text = strings.ToValidUTF8(text[:conflictCommentText], "") + "\n…"
		}
		text = strings.TrimSpace(text)
		if text == "" {
			text = "conflicts with " + st.TargetBranch
		}
		comments = append(comments, store.ReviewComment{Path: f.Path, Side: store.SideNew, Text: text})
	}
	return notes, comments
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
	p, repo, err := r.preparePacket(c, in.PacketID)
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
