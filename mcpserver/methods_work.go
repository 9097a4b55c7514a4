package mcpserver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodWorkCreate       Name[WorkCreateArgs, PacketResult] = "work.create"
	MethodWorkCancel       Name[PacketRef, PacketResult]      = "work.cancel"
	MethodWorkRequeue      Name[PacketRef, PacketResult]      = "work.requeue"
	MethodWorkGet          Name[WorkGetArgs, WorkGetResult]   = "work.get"
	MethodWorkList         Name[store.PacketFilter, WorkList] = "work.list"
	MethodWorkAwaitPacket  Name[AwaitArgs, AwaitResult]       = "work.await_packet"
	MethodWorkAck          Name[LeaseArgs, AckResult]         = "work.ack"
	MethodArtifactPublish  Name[PublishArgs, ArtifactResult]  = "artifact.publish"
	MethodWorkComplete     Name[CompleteArgs, PacketResult]   = "work.complete"
	MethodWorkRelease      Name[CompleteArgs, PacketResult]   = "work.release"
	MethodReviewVerdict    Name[VerdictArgs, PacketResult]    = "review.verdict"
	MethodWorkExpireLeases Name[NoArgs, ExpiredLeases]        = "work.expire_leases"
)

// Long polls wait at most this long (SPEC §5).
const maxWait = 60 * time.Second

// Leases last this long unless the call asks otherwise.
const defaultLease = 10 * time.Minute

// QueueKey and QuestionKey name what a long poll parks on (Registry.Parked,
// Options.OnWait): a repository's queue for work.await_packet, a question
// for session.await_answer.
func QueueKey(repoID string) string { return "repo:" + repoID }
func QuestionKey(qID string) string { return "question:" + qID }

const leasesKey = "leases"

// WorkCreateArgs are the arguments of work.create.
type WorkCreateArgs struct {
	RepositoryID      string                   `json:"repository_id"`
	Title             string                   `json:"title"`
	Instructions      string                   `json:"instructions,omitempty"`
	ExpectedArtifacts []store.ExpectedArtifact `json:"expected_artifacts,omitempty"`
	WriteScope        []string                 `json:"write_scope,omitempty" jsonschema:"globs, relative to the repository, that path artifacts must match"`
	Priority          int                      `json:"priority,omitempty" jsonschema:"higher is claimed first"`
	MaxAttempts       int                      `json:"max_attempts,omitempty"`
	ReviewRequired    bool                     `json:"review_required,omitempty"`
}

// PacketResult is the result of the methods that change one packet.
type PacketResult struct {
	Packet store.Packet `json:"packet"`
}

// PacketRef names one packet, with a reason for the record.
type PacketRef struct {
	PacketID string `json:"packet_id"`
	Reason   string `json:"reason,omitempty"`
}

// WorkGetArgs are the arguments of work.get.
type WorkGetArgs struct {
	PacketID string `json:"packet_id"`
}

// WorkGetResult is the result of work.get.
type WorkGetResult struct {
	Packet    store.Packet     `json:"packet"`
	Artifacts []store.Artifact `json:"artifacts"`
	// Conflicts is whether the packet's commits, not landed yet, still
	// apply to their target branch (conflicts_watch.go); nil when that
	// is not known.
	Conflicts *PacketConflicts `json:"conflicts,omitempty"`
}

// WorkList is the result of work.list.
type WorkList struct {
	Packets []store.Packet `json:"packets"`
	// Counts are the packets of the listing's repository (of every
	// repository when it names none) counted by state, whatever the
	// page holds: kept by the store, not counted from the page.
	Counts map[string]store.RepoPacketCounts `json:"counts" jsonschema:"packets by repository id, counted by state (and done ones not landed), over all pages"`
}

// AwaitArgs are the arguments of work.await_packet.
type AwaitArgs struct {
	RepositoryID string `json:"repository_id"`
	SessionID    string `json:"session_id,omitempty" jsonschema:"your session (from session_report ready); a session token implies it"`
	LeaseSeconds int    `json:"lease_seconds,omitempty" jsonschema:"how long the lease lasts before the packet returns to the queue (default 600)"`
	WaitSeconds  int    `json:"wait_seconds,omitempty" jsonschema:"how long to wait for a packet, at most 60 (default 60)"`
}

// ClaimedPacket is what an agent sees of a claimed packet.
type ClaimedPacket struct {
	ID                string                   `json:"id"`
	RepositoryID      string                   `json:"repository_id"`
	Title             string                   `json:"title"`
	Instructions      string                   `json:"instructions"`
	ExpectedArtifacts []store.ExpectedArtifact `json:"expected_artifacts"`
	WriteScope        []string                 `json:"write_scope"`
	Priority          int                      `json:"priority"`
	Attempt           int                      `json:"attempt"`
	ReviewNotes       string                   `json:"review_notes,omitempty"`
	// Review is the packet's last verdict: for a packet sent back with
	// request_changes, what to address (its notes and line comments).
	Review *store.PacketReview `json:"review,omitempty" jsonschema:"the last review of the packet: after request_changes, address its notes and line comments (path, line, side old|new, text) before completing again"`
}

// AwaitResult is the result of work.await_packet: a packet with its lease,
// or packet null when the wait ended empty.
type AwaitResult struct {
	Packet         *ClaimedPacket `json:"packet"`
	LeaseID        string         `json:"lease_id,omitempty"`
	LeaseExpiresAt *time.Time     `json:"lease_expires_at,omitempty"`
	// Workspace is the git worktree the session works in, when it has one:
	// where to make the packet's changes.
	Workspace *store.Workspace `json:"workspace,omitempty" jsonschema:"your git worktree (path, branch, base_branch, base_commit), when you have one: make the packet's changes there"`
}

// LeaseArgs name a leased packet: every call after a claim carries them.
type LeaseArgs struct {
	PacketID     string `json:"packet_id"`
	SessionID    string `json:"session_id,omitempty"`
	LeaseID      string `json:"lease_id"`
	LeaseSeconds int    `json:"lease_seconds,omitempty" jsonschema:"work_ack only: the renewed lease's length (default 600)"`
}

// AckResult is the result of work.ack.
type AckResult struct {
	LeaseExpiresAt time.Time `json:"lease_expires_at"`
	State          string    `json:"state"`
}

// PublishArgs are the arguments of artifact.publish.
type PublishArgs struct {
	PacketID  string  `json:"packet_id"`
	SessionID string  `json:"session_id,omitempty"`
	LeaseID   string  `json:"lease_id"`
	Name      string  `json:"name"`
	Kind      string  `json:"kind,omitempty"`
	Content   *string `json:"content,omitempty" jsonschema:"inline content, at most 1 MiB"`
	Path      string  `json:"path,omitempty" jsonschema:"a file in your working copy (your worktree, else the repository), inside the packet's write scope; the server reads it and checks sha256 and size"`
	SHA256    string  `json:"sha256,omitempty" jsonschema:"hex SHA-256 of the file at path"`
	Size      int64   `json:"size,omitempty" jsonschema:"size in bytes of the file at path"`
}

// spec is the store's form of the arguments.
func (in PublishArgs) spec() store.ArtifactSpec {
	return store.ArtifactSpec{Name: in.Name, Kind: in.Kind, Content: in.Content, Path: in.Path, SHA256: in.SHA256, Size: in.Size}
}

// ArtifactResult is the result of artifact.publish.
type ArtifactResult struct {
	Artifact store.Artifact `json:"artifact"`
}

// CompleteArgs are the arguments of work.complete and work.release.
type CompleteArgs struct {
	PacketID  string `json:"packet_id"`
	SessionID string `json:"session_id,omitempty"`
	LeaseID   string `json:"lease_id"`
	Summary   string `json:"summary,omitempty" jsonschema:"work_complete: what was done; work_release: why it goes back"`
}

// VerdictArgs are the arguments of review.verdict.
type VerdictArgs struct {
	PacketID string                `json:"packet_id"`
	Verdict  store.Verdict         `json:"verdict" jsonschema:"approve, request_changes or reject"`
	Notes    string                `json:"notes,omitempty" jsonschema:"at most 16 KiB"`
	Comments []store.ReviewComment `json:"comments,omitempty" jsonschema:"line comments on the packet's diff, at most 200 (text at most 4 KiB, path at most 1 KiB)"`
}

// ExpiredLeases is the result of work.expire_leases.
type ExpiredLeases struct {
	Packets []string `json:"packets"`
}

// session resolves the live session a work call acts for: the session
// token's own, or the argument, which must name a session of the caller's
// token (Call.ownSession).
func (c *Call) session(arg string) (string, error) {
	s, err := c.liveSession(arg)
	return s.ID, err
}

// liveSession is session with the whole session.
func (c *Call) liveSession(arg string) (store.Session, error) {
	s, err := c.ownSession(arg)
	if err != nil {
		return store.Session{}, err
	}
	if !s.State.Live() {
		return store.Session{}, store.Deny(store.CodeInvalidState, "session %s has ended", s.ID)
	}
	return s, nil
}

func seconds(n int, def, max time.Duration) time.Duration {
	d := time.Duration(n) * time.Second
	if n <= 0 {
		d = def
	}
	return min(d, max)
}

func claimed(p store.Packet) *ClaimedPacket {
	return &ClaimedPacket{ID: p.ID, RepositoryID: p.RepositoryID, Title: p.Title, Instructions: p.Instructions,
		ExpectedArtifacts: p.ExpectedArtifacts, WriteScope: p.WriteScope, Priority: p.Priority, Attempt: p.Attempt, ReviewNotes: p.ReviewNotes,
		Review: p.Review}
}

// trace appends a workflow event to the call's session, if it has one.
func (c *Call) trace(typ store.TraceType, packetID string) error {
	if c.SessionID == "" {
		return nil
	}
	_, err := c.Tx.AppendTrace(c.SessionID, store.TraceEvent{Type: typ, Method: c.Method.Name, PacketID: packetID})
	if err != nil && store.CodeOf(err) == store.CodeNotFound {
		return nil
	}
	return err
}

func (r *Registry) signalAfter(c *Call, keys ...string) {
	// Other instances sharing the database hear them as the transaction
	// commits (team mode); this one signals its own waiters after.
	for _, k := range keys {
		c.Tx.Notify(k)
	}
	c.AfterCommit(func() {
		for _, k := range keys {
			r.sig.signal(k)
		}
	})
}

func (r *Registry) registerWork() {
	r.Register(Define(MethodWorkCreate, On(Repository, store.CapWorkAuthor), Hidden,
		"Create a work packet in a repository's queue.",
		func(c *Call, in WorkCreateArgs) (PacketResult, error) {
			p, err := c.Tx.CreatePacket(store.PacketSpec{
				RepositoryID: in.RepositoryID, Title: in.Title, Instructions: in.Instructions,
				ExpectedArtifacts: in.ExpectedArtifacts, WriteScope: in.WriteScope, Priority: in.Priority,
				MaxAttempts: in.MaxAttempts, ReviewRequired: in.ReviewRequired,
			})
			r.signalAfter(c, QueueKey(p.RepositoryID))
			return PacketResult{Packet: p}, err
		}))
	r.Register(Define(MethodWorkCancel, On(Packet, store.CapWorkAuthor), Hidden,
		"Cancel a packet; a lease on it is lost.",
		func(c *Call, in PacketRef) (PacketResult, error) {
			p, err := c.Tx.CancelPacket(in.PacketID, in.Reason)
			r.signalAfter(c, leasesKey)
			return PacketResult{Packet: p}, err
		}))
	r.Register(Define(MethodWorkRequeue, On(Packet, store.CapWorkAuthor), Hidden,
		"Put a packet back in the queue with its attempts reset.",
		func(c *Call, in PacketRef) (PacketResult, error) {
			p, err := c.Tx.RequeuePacket(in.PacketID, in.Reason)
			r.signalAfter(c, QueueKey(p.RepositoryID), leasesKey)
			return PacketResult{Packet: p}, err
		}))
	r.Register(Define(MethodWorkGet, On(Packet, store.CapWorkRead), ReadOnly,
		"One packet with its state, lease, history and artifacts.",
		func(c *Call, in WorkGetArgs) (WorkGetResult, error) {
			p, err := c.Tx.Packet(in.PacketID)
			if err != nil {
				return WorkGetResult{}, err
			}
			arts, err := c.Tx.Artifacts(p.ID)
			if arts == nil {
				arts = []store.Artifact{}
			}
			return WorkGetResult{Packet: p, Artifacts: arts, Conflicts: r.packetConflicts(p)}, err
		}))
	r.Register(Define(MethodWorkList, On(Repository, store.CapWorkRead), ReadOnly,
		"Packets, newest first, by repository and state, with every repository's (or the one named's) packet counts by state.",
		func(c *Call, f store.PacketFilter) (WorkList, error) {
			ps, err := c.Tx.Packets(f)
			if ps == nil {
				ps = []store.Packet{}
			}
			// Scoped as the listing is: a call naming no repository is
			// one on every repository, which only a token for all makes.
			return WorkList{Packets: ps, Counts: c.Tx.RepoPacketCounts(f.RepositoryID)}, err
		}))
	r.Register(Define(MethodWorkAwaitPacket, On(Repository, store.CapWorkClaim), 0,
		"Wait (at most wait_seconds, ≤ 60) for the repository's best queued packet and claim it under a new lease; packet is null when the wait ends empty. A packet sent back to you for changes comes first, with its review (notes and line comments) to address.",
		func(c *Call, in AwaitArgs) (AwaitResult, error) {
			s, err := c.liveSession(in.SessionID)
			if err != nil {
				return AwaitResult{}, err
			}
			if s.RepositoryID != "" && s.RepositoryID != in.RepositoryID {
				// Its workspace, its token's grants and its reports are
				// of its own repository: work of another lands nowhere.
				return AwaitResult{}, store.Deny(store.CodeCapabilityScopeMismatch, "session %s works in another repository", s.ID)
			}
			ses := s.ID
			if c.Ctx.Err() != nil {
				// The caller left: claim nothing it would never hear of.
				return AwaitResult{}, nil
			}
			p, ok, err := c.Tx.ClaimPacket(in.RepositoryID, ses, seconds(in.LeaseSeconds, defaultLease, store.MaxLease))
			if err != nil {
				return AwaitResult{}, err
			}
			if !ok {
				wait := seconds(in.WaitSeconds, maxWait, maxWait)
				if c.Final || in.WaitSeconds < 0 {
					return AwaitResult{}, nil
				}
				return AwaitResult{}, c.WaitFor(QueueKey(in.RepositoryID), wait)
			}
			if err := c.trace(store.TracePacketClaimed, p.ID); err != nil {
				return AwaitResult{}, err
			}
			r.signalAfter(c, leasesKey)
			exp := p.Lease.ExpiresAt
			return AwaitResult{Packet: claimed(p), LeaseID: p.Lease.ID, LeaseExpiresAt: &exp, Workspace: s.Workspace}, nil
		}))
	r.Register(Define(MethodWorkAck, On(Packet, store.CapWorkClaim), 0,
		"Confirm you started a claimed packet; renews the lease.",
		func(c *Call, in LeaseArgs) (AckResult, error) {
			ses, err := c.session(in.SessionID)
			if err != nil {
				return AckResult{}, err
			}
			p, err := c.Tx.AckPacket(in.PacketID, ses, in.LeaseID, seconds(in.LeaseSeconds, defaultLease, store.MaxLease))
			if err != nil {
				return AckResult{}, err
			}
			r.signalAfter(c, leasesKey)
			return AckResult{LeaseExpiresAt: p.Lease.ExpiresAt, State: string(p.State)}, c.trace(store.TraceState, p.ID)
		}))
	publish := Define(MethodArtifactPublish, On(Packet, store.CapArtifactWrite), 0,
		"Publish an expected artifact of a leased packet: inline content (≤ 1 MiB) or a file inside the write scope with its sha256 and size, which the server checks against the file.",
		func(c *Call, in PublishArgs) (ArtifactResult, error) {
			prepared := c.Prepared
			file, _ := prepared.(*store.VerifiedFile) // nil for inline content
			ses, err := c.session(in.SessionID)
			if err != nil {
				return ArtifactResult{}, err
			}
			a, err := c.Tx.PublishArtifact(in.PacketID, ses, in.LeaseID, in.spec(), file)
			return ArtifactResult{Artifact: a}, err
		})
	publish.Prepare = r.verifyArtifactFile
	r.Register(publish)
	complete := Define(MethodWorkComplete, On(Packet, store.CapWorkClaim), 0,
		"Finish a leased packet once every expected artifact is published; it goes to review when the packet asks for one. In a worktree, what you left uncommitted is committed first, and files changed outside the packet's write scope refuse the completion.",
		func(c *Call, in CompleteArgs) (PacketResult, error) {
			prepared := c.Prepared
			var done completion
			if d, ok := prepared.(*completion); ok {
				done = *d
			}
			ses, err := c.liveSession(in.SessionID)
			if err != nil {
				return PacketResult{}, err
			}
			p, err := c.Tx.CompletePacket(in.PacketID, &ses, in.LeaseID, store.Completion{Summary: in.Summary, Changes: done.changes, Usage: done.usage})
			if err != nil {
				return PacketResult{}, err
			}
			r.signalAfter(c, leasesKey)
			return PacketResult{Packet: p}, c.trace(store.TraceState, p.ID)
		})
	complete.Prepare = r.commitWork
	r.Register(complete)
	r.Register(Define(MethodWorkRelease, On(Packet, store.CapWorkClaim), 0,
		"Give a leased packet back to the queue, with the reason in summary.",
		func(c *Call, in CompleteArgs) (PacketResult, error) {
			ses, err := c.session(in.SessionID)
			if err != nil {
				return PacketResult{}, err
			}
			p, err := c.Tx.ReleasePacket(in.PacketID, ses, in.LeaseID, in.Summary)
			if err != nil {
				return PacketResult{}, err
			}
			r.signalAfter(c, QueueKey(p.RepositoryID), leasesKey)
			return PacketResult{Packet: p}, c.trace(store.TraceState, p.ID)
		}))
	r.Register(Define(MethodReviewVerdict, On(Packet, store.CapReviewWrite), 0,
		"Review a packet in review, or a done one whose changes have not landed: approve (records the verdict; nothing lands until a person lands it), request_changes (back to the queue with the notes and line comments, for the session that made the changes while it lives) or reject. A session never judges a packet it worked on, nor another session's unless a person made it that packet's reviewer.",
		func(c *Call, in VerdictArgs) (PacketResult, error) {
			// An unknown packet is ReviewPacket's to refuse, after the
			// arguments it checks first.
			if pkt, err := c.Tx.Packet(in.PacketID); err == nil {
				if err := mayJudge(c.Tx, c.Principal, pkt); err != nil {
					return PacketResult{}, err
				}
			}
			p, err := c.Tx.ReviewPacket(in.PacketID, store.ReviewSpec{Verdict: in.Verdict, Notes: in.Notes, Comments: in.Comments, By: c.Principal.reviewer()})
			if err != nil {
				return PacketResult{}, err
			}
			if in.Verdict == store.VerdictRequestChanges {
				return PacketResult{Packet: p}, r.sentBack(c, p)
			}
			r.signalAfter(c, QueueKey(p.RepositoryID))
			return PacketResult{Packet: p}, nil
		}))
	r.Register(Define(MethodWorkExpireLeases, On(Global, store.CapAdmin), Hidden|Internal,
		"Return packets whose lease expired to the queue (or fail them after their last attempt).",
		func(c *Call, _ NoArgs) (ExpiredLeases, error) {
			ps, err := c.Tx.ExpireLeases()
			out := ExpiredLeases{Packets: []string{}}
			keys := []string{}
			for _, p := range ps {
				out.Packets = append(out.Packets, p.ID)
				keys = append(keys, QueueKey(p.RepositoryID))
				// The session that lost the lease learns why its next calls
				// fail: the expiry is on its trace.
				if n := len(p.History); n > 0 && p.History[n-1].SessionID != "" {
					ses := p.History[n-1].SessionID
					data, _ := json.Marshal(map[string]any{"state": p.State, "attempt": p.Attempt})
					_, err := c.Tx.AppendTrace(ses, store.TraceEvent{Type: store.TraceLeaseExpired, Method: c.Method.Name, PacketID: p.ID, Data: data})
					if err != nil && store.CodeOf(err) != store.CodeNotFound {
						return ExpiredLeases{}, err
					}
					keys = append(keys, TraceKey(ses))
				}
			}
			r.signalAfter(c, keys...)
			return out, err
		}))
}

// verifyArtifactFile is artifact.publish's Prepare: a path artifact's file
// is checked and hashed before the write transaction, not in it (see
// store.VerifyArtifactFile). The packet's folder and write scope are read,
// and the lease checked, in a read transaction in which the call is
// authorized first: a caller who may not publish on the packet, or does not
// hold its lease, has nothing read from disk.
func (r *Registry) verifyArtifactFile(c *Call) (any, error) {
	var in PublishArgs
	if err := c.Decode(&in); err != nil || in.Path == "" || in.Content != nil {
		// Nothing to check on disk: the handler refuses bad arguments
		// and both-at-once itself, and inline content is hashed there.
		return nil, nil
	}
	var target store.ArtifactTarget
	var ws *store.Workspace
	err := r.prepareView(c, func(tx *store.Tx) error {
		ses, err := c.liveSession(in.SessionID)
		if err != nil {
			return err
		}
		ws = ses.Workspace
		p, err := c.packet(in.PacketID)
		if err != nil {
			return err
		}
		target, err = tx.ArtifactTarget(p, ses.ID, in.LeaseID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if ws != nil {
		// The agent's file is in its worktree, at the place the
		// repository's folder has there.
		sub, err := workspace.Subfolder(c.Ctx, target.RepoPath)
		if err != nil {
			return nil, err
		}
		target.Folder = filepath.Join(ws.Path, sub)
	}
	file, err := store.VerifyArtifactFile(c.Ctx, target, in.spec())
	if err != nil {
		return nil, err
	}
	return file, nil
}

// NextLeaseExpiry reports when the earliest lease expires, for the daemon's
// expiry timer.
func (r *Registry) NextLeaseExpiry(ctx context.Context) (time.Time, bool) {
	var at time.Time
	var ok bool
	r.db.View(ctx, func(tx *store.Tx) error { at, ok = tx.NextLeaseExpiry(); return nil })
	return at, ok
}

// LeasesChanged returns a channel closed when a lease is next granted,
// renewed or dropped, so the expiry timer can look again.
func (r *Registry) LeasesChanged() <-chan struct{} { return r.sig.wait(leasesKey) }

// reviewer names who gave a verdict, for the packet's record: the person
// at the GUI or CLI, or the session or token that did.
func (p Principal) reviewer() string {
	switch {
	case p.Operator:
		return "operator"
	case p.SessionID != "":
		return "session " + p.SessionID
	default:
		return "token " + p.KeyID
	}
}
