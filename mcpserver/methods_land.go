package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodWorkLand Name[WorkLandArgs, LandResult] = "work.land"
)

// WorkLandArgs are the arguments of work.land.
type WorkLandArgs struct {
	PacketID string `json:"packet_id"`
	// Mode is the repository's landing setting when empty, merge when
	// that is empty too.
	Mode string `json:"mode,omitempty" jsonschema:"merge: a merge commit of the packet's commits on the base branch; squash: one commit of their changes; rebase: the commits replayed on the base branch, which fast-forwards; pull-request: the branch pushed to the remote and a pull request opened with gh, the base branch unmoved. Default: the repository's landing setting, else merge"`
}

// LandResult is the result of work.land.
type LandResult struct {
	Packet store.Packet `json:"packet"`
	// Commit is the base branch's new tip; for a pull request, the commit
	// pushed.
	Commit string `json:"commit"`
	// Files counts the paths the landing changed on the base branch (0
	// for a pull request).
	Files int `json:"files"`
	// URL is the pull request's address, when one was opened.
	URL string `json:"url,omitempty"`
	// Note says why a pull request's branch was pushed but no pull
	// request opened (gh not installed, not signed in, failing).
	Note string `json:"note,omitempty"`
}

// landing is what work.land's Prepare did in git, for the handler to
// record.
type landing struct {
	store.PacketLanding
	Files int
	Note  string
}

// pullRequestTimeout bounds a pull request's push and gh calls, over a
// network, where a landing's other modes take worktreeTimeout.
const pullRequestTimeout = 5 * time.Minute

func (r *Registry) registerLanding() {
	land := Define(MethodWorkLand, On(Packet, store.CapAdmin), Hidden,
		"Bring a done packet's commits onto its base branch (merge, squash or rebase), or push them and open a pull request; the person's checkout keeps every uncommitted change, and a conflict moves nothing.",
		func(c *Call, in WorkLandArgs) (LandResult, error) {
			v := c.Prepared
			l, ok := v.(landing)
			if !ok {
				return LandResult{}, errNoLanding
			}
			p, err := c.Tx.MarkPacketLanded(in.PacketID, l.PacketLanding)
			if err != nil {
				return LandResult{}, err
			}
			data, err := json.Marshal(struct {
				Landed string `json:"landed"`
				Mode   string `json:"mode"`
				URL    string `json:"url,omitempty"`
			}{l.Commit, l.Mode, l.URL})
			if err != nil {
				return LandResult{}, err
			}
			// The landing is on the packet: the journal's entry for it
			// goes in the same commit.
			if err := c.Tx.EndLanding(in.PacketID); err != nil {
				return LandResult{}, err
			}
			if _, err := c.Tx.AppendTrace(p.Changes.SessionID, store.TraceEvent{Type: store.TraceState, Method: c.Method.Name, PacketID: p.ID, Data: data}); err != nil && store.CodeOf(err) != store.CodeNotFound {
				return LandResult{}, err
			}
			r.signalAfter(c, QueueKey(p.RepositoryID))
			// A merged worktree whose session has ended has nothing left
			// in it: it goes (TidyWorktree checks, and keeps it otherwise).
			ses, ctx := p.Changes.SessionID, context.WithoutCancel(c.Ctx)
			c.AfterCommit(func() { r.TidyWorktree(ctx, ses) })
			return LandResult{Packet: p, Commit: l.Commit, Files: l.Files, URL: l.URL, Note: l.Note}, nil
		})
	land.Prepare = r.landPacket
	r.Register(land)
	r.registerLandRecover()
}

// errNoLanding is what the handler answers when Prepare handed it nothing
// (it cannot: Prepare returns a landing or an error).
var errNoLanding = errors.New("work.land: no landing was made")

// landPacket is work.land's Prepare: git moves the base branch, outside
// every transaction; the handler then records it on the packet. Between
// the two the landing journal holds it (store.BeginLanding, written just
// before git moves anything): a kill in between leaves the entry, and the
// next start asks git whether the move was made (RecoverWorkspaces). A
// landing of the packet tried again finds an entry no landing of this
// process holds, and asks git the same at once (settleCutShort).
//
// Only the packet's own commits land (its range, From..To), whatever the
// mode: on top of another packet's commits not landed yet, they are
// replayed onto the base alone, and refused as depends_on_packet when
// they cannot stand alone. What the landing changes is checked against
// the packet's write scope again.
func (r *Registry) landPacket(c *Call) (any, error) {
	var in WorkLandArgs
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	mode := store.Landing(in.Mode)
	if !mode.Valid() {
		return nil, store.Deny(store.CodeInvalidArgument, "landing mode must be merge, squash, rebase or pull-request, not %q", in.Mode)
	}
	if !r.landingNow.claim(in.PacketID) {
		return nil, store.Deny(store.CodeInvalidState, "packet %s is being landed already", in.PacketID)
	}
	defer r.landingNow.release(in.PacketID)
	var (
		p      store.Packet
		repo   store.Repository
		ses    store.Session
		cut    store.JournaledLanding
		wasCut bool
		here   string
	)
	err := r.prepareView(c, func(tx *store.Tx) error {
		var err error
		if p, err = c.packet(in.PacketID); err != nil {
			return err
		}
		if err := landable(p); err != nil {
			return err
		}
		if repo, err = tx.LocalRepository(p.RepositoryID); err != nil {
			return err
		}
		if cut, wasCut, err = tx.Landing(p.ID); err != nil {
			return err
		}
		here = tx.InstanceID()
		ses, err = tx.Session(p.Changes.SessionID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if ses.Workspace == nil {
		return nil, store.Deny(store.CodeInvalidState, "session %s has no worktree", ses.ID)
	}
	if wasCut {
		if cut.Instance != here {
			return nil, store.Deny(store.CodeInvalidState, "packet %s is being landed by another instance (%s)", p.ID, cut.Instance)
		}
		if l, done, err := r.settleCutShort(c.Ctx, cut); err != nil || done {
			return l, err
		}
	}
	if mode == store.LandingDefault {
		mode = cmp.Or(repo.Landing, store.LandingMerge)
	}
	ch := p.Changes
	ws := workspace.Workspace{Path: ses.Workspace.Path, Branch: ch.Branch, BaseBranch: ch.BaseBranch, BaseCommit: ses.Workspace.BaseCommit, RepoPath: repo.Path}
	if mode == store.LandingPullRequest {
		return openPullRequest(c, p, repo, ws)
	}
	ctx, cancel := context.WithTimeout(c.Ctx, worktreeTimeout)
	defer cancel()
	// The packet's own commits, in every mode. (A packet recorded before
	// ranges were kept has no From: a merge then brings its whole branch.)
	req := workspace.LandRequest{Mode: workspace.Mode(mode), From: ch.From, To: ch.To, Message: fmt.Sprintf("%s\n\nSwitchboard-Packet: %s", p.Title, p.ID)}
	if len(p.WriteScope) > 0 {
		if req.Check, err = scopeCheck(ctx, repo.Path, p.WriteScope, "the landing would change files"); err != nil {
			return nil, err
		}
	}
	var move *workspace.Move
	req.BeforeMove = func(old, next string) error {
		m, err := r.journalLanding(ctx, p, repo, string(mode), old, next)
		move = m
		return err
	}
	l, err := workspace.Land(ctx, repo.Path, ws, req)
	if err != nil && move != nil {
		if done, ok := r.afterFailedMove(c.Ctx, p.ID, repo.Path, *move, err); ok {
			l, err = workspace.Landed{Commit: done, Mode: workspace.Mode(mode)}, nil
		}
	}
	var conflict *workspace.ConflictError
	var dirty *workspace.DirtyError
	var depends *workspace.DependsError
	switch {
	case errors.As(err, &conflict):
		return nil, store.Deny(store.CodeMergeConflict, "%s conflicts with %s in %s: nothing was moved; send it back to be rebased onto %s",
			p.ID, ch.BaseBranch, listFiles(conflict.Files), ch.BaseBranch).WithPaths(conflict.Files)
	case errors.As(err, &depends):
		return nil, r.dependsDenial(c, p, depends)
	case errors.As(err, &dirty):
		what := dirty.Reason
		if len(dirty.Files) > 0 {
			what = strings.TrimSpace(what + ": " + listFiles(dirty.Files))
		}
		return nil, store.Deny(store.CodeCheckoutInTheWay, "landing on %s would touch what is in the way in %s (%s): nothing was moved", ch.BaseBranch, dirty.Path, what).WithPaths(dirty.Files)
	case errors.Is(err, workspace.ErrNothingToLand):
		return nil, store.Deny(store.CodeInvalidState, "%s already holds packet %s's changes", ch.BaseBranch, p.ID)
	case errors.Is(err, workspace.ErrNoIdentity):
		return nil, store.Deny(store.CodeInvalidState, "%v", err)
	case errors.Is(err, workspace.ErrBaseMoved):
		return nil, store.Deny(store.CodeInvalidState, "%s moved while landing: nothing was moved, try again", ch.BaseBranch)
	case err != nil:
		return nil, err
	}
	return landing{PacketLanding: store.PacketLanding{Commit: l.Commit, Mode: string(l.Mode)}, Files: l.Files}, nil
}

// dependsDenial is the depends_on_packet refusal of p, whose range cannot
// stand alone on its base: it names the packets of p's session whose
// commits are among those below it that the base does not have, oldest
// first, and what would let p land.
func (r *Registry) dependsDenial(c *Call, p store.Packet, d *workspace.DependsError) error {
	below := make(map[string]int, len(d.Below))
	for i, id := range d.Below {
		below[id] = i
	}
	var under []store.Packet
	err := r.prepareView(c, func(tx *store.Tx) error {
		ps, err := tx.Packets(store.PacketFilter{RepositoryID: p.RepositoryID, Limit: 1000})
		for _, q := range ps {
			if _, ok := below[changesTo(q)]; ok && q.ID != p.ID && q.Landed == nil && q.Changes.SessionID == p.Changes.SessionID {
				under = append(under, q)
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	// Below is newest first: the packet to land first is the oldest.
	slices.SortFunc(under, func(a, b store.Packet) int { return below[b.Changes.To] - below[a.Changes.To] })
	base, files := p.Changes.BaseBranch, listFiles(d.Files)
	if len(under) == 0 {
		return store.Deny(store.CodeDependsOnPacket, "%s builds on %d commits of its session's branch that are not on %s and that no packet holds: alone it conflicts in %s; nothing was moved; send it back to be rebased onto %s",
			p.ID, len(d.Below), base, files, base).WithPaths(d.Files)
	}
	var names, waiting, ended []string
	for _, q := range under {
		names = append(names, q.ID)
		switch {
		case q.State == store.PacketDone:
		case q.State.Terminal():
			ended = append(ended, fmt.Sprintf("%s is %s", q.ID, q.State))
		default:
			waiting = append(waiting, fmt.Sprintf("%s is %s", q.ID, q.State))
		}
	}
	what := fmt.Sprintf("%s builds on packet %s, not landed on %s: alone it conflicts in %s; nothing was moved; ", p.ID, strings.Join(names, ", "), base, files)
	both := fmt.Sprintf("land both: %s first, then %s", strings.Join(names, ", then "), p.ID)
	switch {
	case len(ended) > 0:
		// A rejected or cancelled packet never lands: this one must do
		// without it.
		return store.Deny(store.CodeDependsOnPacket, "%s%s, so %s cannot land as it is: send it back to be redone on %s without that change",
			what, strings.Join(ended, "; "), p.ID, base).WithPaths(d.Files)
	case len(waiting) > 0:
		return store.Deny(store.CodeDependsOnPacket, "%sonce %s is approved (%s), %s",
			what, strings.Join(names, ", "), strings.Join(waiting, "; "), both).WithPaths(d.Files).WithPackets(names)
	}
	return store.Deny(store.CodeDependsOnPacket, "%s%s", what, both).WithPaths(d.Files).WithPackets(names)
}

// changesTo is the last commit of q's range, "" when it has none.
func changesTo(q store.Packet) string {
	if q.Changes == nil {
		return ""
	}
	return q.Changes.To
}

// openPullRequest is work.land's Prepare for the pull-request mode: the
// packet's commits pushed as its branch to the repository's remote, and a
// pull request opened when gh can. The base branch does not move.
func openPullRequest(c *Call, p store.Packet, repo store.Repository, ws workspace.Workspace) (any, error) {
	ctx, cancel := context.WithTimeout(c.Ctx, pullRequestTimeout)
	defer cancel()
	body := strings.TrimSpace(p.Summary + "\n\nSwitchboard-Packet: " + p.ID)
	pr, err := workspace.OpenPullRequest(ctx, repo.Path, ws, workspace.PullRequestRequest{
		Remote: repo.Remote, Title: p.Title, Body: body, To: p.Changes.To, From: p.Changes.From,
	})
	remote := cmp.Or(repo.Remote, workspace.DefaultRemote)
	switch {
	case errors.Is(err, workspace.ErrNoRemote):
		return nil, store.Deny(store.CodeInvalidState, "%s has no remote %q to push packet %s to (switchboard repo set %s --remote NAME)", repo.Name, remote, p.ID, repo.ID)
	case errors.Is(err, workspace.ErrNothingToLand):
		return nil, store.Deny(store.CodeInvalidState, "%s already holds packet %s's changes: no pull request to open", ws.BaseBranch, p.ID)
	case errors.Is(err, workspace.ErrCarriesOthers):
		// Merged on the remote, it would bring them onto the base branch
		// unasked: the packet's own commits go alone, once rebased.
		return nil, store.Deny(store.CodeDependsOnPacket, "packet %s's commits sit on commits of its branch that %s lacks (another packet's), which a pull request would carry: rebase it onto %s first (switchboard work rebase %s, or Rebase onto %s), then open the pull request",
			p.ID, ws.BaseBranch, ws.BaseBranch, p.ID, ws.BaseBranch)
	case errors.Is(err, workspace.ErrPushRejected):
		return nil, store.Deny(store.CodeInvalidState, "%s refused the push of %s, and nothing was forced: %v", remote, ws.Branch, err)
	case err != nil:
		return nil, err
	}
	return landing{
		PacketLanding: store.PacketLanding{Commit: pr.Commit, Mode: string(store.LandingPullRequest), URL: pr.URL, Remote: pr.Remote, Branch: pr.Branch},
		Note:          pr.Note,
	}, nil
}
