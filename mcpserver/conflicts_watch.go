package mcpserver

// The conflict watch: for every completed packet whose commits have not
// landed, whether they still apply to their target branch, kept current in
// memory as the target branches move. It is derived state, recomputed from
// git after a restart, so it stays out of the database.

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// Conflict watch cadence.
const (
	// ConflictPoll is how often WatchConflicts reads the target branches'
	// tips while a packet waits to land: a target that moves is seen
	// within it, plus the checks' time.
	ConflictPoll = time.Second
	// conflictReread is the shortest gap between two readings of the
	// packets, which a busy agent's every committed call would otherwise
	// cause.
	conflictReread = 2 * time.Second
	// conflictRoundTimeout bounds one round of checks.
	conflictRoundTimeout = time.Minute
	// conflictPackets is how many of the newest packets the watch looks
	// at: as many as the Work board reads.
	conflictPackets = 1000
	// conflictTipsEvery is how often the tips are read with git even when
	// their files look unchanged (workspace.RefsStamp).
	conflictTipsEvery = 30 * time.Second
)

// PacketConflicts is whether a completed, unlanded packet applies to its
// target branch, as last computed.
type PacketConflicts struct {
	PacketID     string `json:"packet_id"`
	RepositoryID string `json:"repository_id"`
	// TargetBranch is the branch the packet lands on ("main").
	TargetBranch string `json:"target_branch"`
	// Conflicts are the target's commit the merge was made onto, the
	// packet's head, and the conflicting paths (none: it applies).
	workspace.Conflicts
	// From is where the packet's range starts (workspace.MergeCheck).
	From      string    `json:"from,omitempty"`
	CheckedAt time.Time `json:"checked_at"`
	// Error says why the check could not be made (the target branch is
	// gone, the packet's commits are); Files is then empty.
	Error string `json:"error,omitempty"`
}

// Conflicting reports whether the packet is known to conflict.
func (c PacketConflicts) Conflicting() bool { return c.Error == "" && !c.Clean() }

// conflictBook holds the watch's results by packet id. The zero value is
// ready.
type conflictBook struct {
	mu sync.Mutex
	// byPacket is guarded by mu.
	byPacket map[string]PacketConflicts
}

// get returns a packet's status.
func (b *conflictBook) get(pktID string) (PacketConflicts, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.byPacket[pktID]
	return c, ok
}

// list returns the statuses of a repository's packets ("" for all), by
// packet id.
func (b *conflictBook) list(repoID string) []PacketConflicts {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := []PacketConflicts{}
	for _, id := range slices.Sorted(maps.Keys(b.byPacket)) {
		if c := b.byPacket[id]; repoID == "" || c.RepositoryID == repoID {
			out = append(out, c)
		}
	}
	return out
}

// replace makes next the book's content and reports whether anything but
// the times of the checks changed.
func (b *conflictBook) replace(next map[string]PacketConflicts) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	changed := len(next) != len(b.byPacket)
	for id, c := range next {
		old, ok := b.byPacket[id]
		old.CheckedAt = c.CheckedAt
		if !ok || old.Error != c.Error || old.Target != c.Target || old.Head != c.Head || old.From != c.From || !slices.Equal(old.Files, c.Files) {
			changed = true
		}
	}
	b.byPacket = next
	return changed
}

// unlandedPacket is a packet the watch checks, and its repository's folder.
type unlandedPacket struct {
	store.Packet
	repoPath string
}

// awaitsLanding is true for a packet whose agent finished with commits of
// its own that have not reached their base branch: in review or done.
func awaitsLanding(p store.Packet) bool {
	return (p.State == store.PacketInReview || p.State == store.PacketDone) && p.Changes != nil && p.Landed == nil
}

// WatchConflicts keeps the conflict status of every completed, unlanded
// packet current until ctx ends: it reads the packets when a call changes
// state (at most every conflictReread), the target branches' tips every
// poll while any packet waits, and checks again each packet whose target,
// head or range moved. Windows hear of a change through Changed. The
// daemon runs it; nothing else may, as the book has one writer.
func (r *Registry) WatchConflicts(ctx context.Context, poll time.Duration) {
	w := conflictWatch{r: r, repos: map[string]*watchedRepo{}}
	dirty := true
	var lastRead time.Time
	for {
		changed := r.Changed()
		if dirty && time.Since(lastRead) >= conflictReread {
			lastRead = time.Now()
			if err := w.read(ctx); err != nil {
				if ctx.Err() != nil {
					return
				}
				r.log.Warn("conflict watch: read the packets", "err", err)
			} else {
				dirty = false
			}
		}
		w.round(ctx)
		var wake <-chan time.Time
		switch {
		case len(w.packets) > 0:
			wake = time.After(poll)
		case dirty:
			wake = time.After(time.Until(lastRead.Add(conflictReread)))
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
			dirty = true
			if len(w.packets) > 0 {
				// The poll comes soon enough; a change alone is no reason
				// to run git.
				select {
				case <-ctx.Done():
					return
				case <-wake:
				}
			}
		case <-wake:
		}
	}
}

// conflictWatch is WatchConflicts' state, on its goroutine only.
type conflictWatch struct {
	r *Registry
	// packets are the unlanded packets as last read.
	packets []unlandedPacket
	// repos are by repository folder.
	repos map[string]*watchedRepo
}

// watchedRepo is what the watch keeps of a repository between rounds.
type watchedRepo struct {
	checker *workspace.Checker
	// commonDir is its git folder, "" when git could not say: then the
	// tips are read with git every round.
	commonDir string
	// tips were read at readAt, for branches, when the ref files looked
	// like stamp.
	tips     map[string]string
	branches []string
	stamp    workspace.RefsStamp
	readAt   time.Time
}

// repo returns what the watch keeps of the repository at path.
func (w *conflictWatch) repo(ctx context.Context, path string) *watchedRepo {
	if wr, ok := w.repos[path]; ok {
		return wr
	}
	wr := &watchedRepo{checker: workspace.NewChecker(path)}
	if dir, err := workspace.CommonDir(ctx, path); err == nil {
		wr.commonDir = dir
	}
	w.repos[path] = wr
	return wr
}

// branchTips reads the tips of branches: again from git when their ref
// files changed, the branches are others, or conflictTipsEvery passed;
// else as last read, which costs a few stats and no process.
func (wr *watchedRepo) branchTips(ctx context.Context, path string, branches []string, now time.Time) (map[string]string, error) {
	var stamp workspace.RefsStamp
	if wr.commonDir != "" {
		// Before the read: a move between the two shows next round.
		stamp = workspace.ReadRefsStamp(wr.commonDir, branches)
		if wr.tips != nil && slices.Equal(branches, wr.branches) && stamp.Same(wr.stamp) && now.Sub(wr.readAt) < conflictTipsEvery {
			return wr.tips, nil
		}
	}
	tips, err := workspace.BranchTips(ctx, path, branches)
	if err != nil {
		wr.tips = nil
		return nil, err
	}
	wr.tips, wr.branches, wr.stamp, wr.readAt = tips, branches, stamp, now
	return tips, nil
}

// read takes the unlanded packets from the database.
func (w *conflictWatch) read(ctx context.Context) error {
	var out []unlandedPacket
	err := w.r.db.View(ctx, func(tx *store.Tx) error {
		ps, err := tx.Packets(store.PacketFilter{Limit: conflictPackets})
		if err != nil {
			return err
		}
		paths := map[string]string{}
		for _, p := range ps {
			if !awaitsLanding(p) {
				continue
			}
			path, ok := paths[p.RepositoryID]
			if !ok {
				// In team mode, a repository with no folder here is
				// another instance's to watch.
				if repo, err := tx.LocalRepository(p.RepositoryID); err == nil {
					path = repo.Path
				}
				paths[p.RepositoryID] = path
			}
			if path != "" {
				out = append(out, unlandedPacket{Packet: p, repoPath: path})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	w.packets = out
	return nil
}

// round reads every watched repository's target tips and checks the
// packets whose inputs changed since their last check; the book then
// holds the watched packets alone, and windows are told when it changed.
func (w *conflictWatch) round(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, conflictRoundTimeout)
	defer cancel()
	byRepo := map[string][]unlandedPacket{}
	for _, p := range w.packets {
		byRepo[p.repoPath] = append(byRepo[p.repoPath], p)
	}
	next := make(map[string]PacketConflicts, len(w.packets))
	now := time.Now().UTC()
	for _, path := range slices.Sorted(maps.Keys(byRepo)) {
		ps := byRepo[path]
		var branches []string
		for _, p := range ps {
			if !slices.Contains(branches, p.Changes.BaseBranch) {
				branches = append(branches, p.Changes.BaseBranch)
			}
		}
		wr := w.repo(ctx, path)
		slices.Sort(branches)
		tips, err := wr.branchTips(ctx, path, branches, now)
		if err != nil && ctx.Err() != nil {
			return // stopping: keep the book as it is
		}
		for _, p := range ps {
			next[p.ID] = w.check(ctx, wr.checker, p, tips, err, now)
		}
		if ctx.Err() != nil {
			return
		}
		wr.checker.Forget() // what it remembers is for one round's targets
	}
	if w.r.conflicts.replace(next) {
		w.r.sig.signal(changedKey)
	}
}

// check returns p's status against tips (read with tipsErr): the last one
// when nothing it was computed from moved, else a new check.
func (w *conflictWatch) check(ctx context.Context, chk *workspace.Checker, p unlandedPacket, tips map[string]string, tipsErr error, now time.Time) PacketConflicts {
	c := PacketConflicts{PacketID: p.ID, RepositoryID: p.RepositoryID, TargetBranch: p.Changes.BaseBranch, From: p.Changes.From, CheckedAt: now}
	target, ok := tips[c.TargetBranch]
	switch {
	case tipsErr != nil:
		c.Error = "the target branch could not be read: " + tipsErr.Error()
		return c
	case !ok:
		c.Error = "the target branch " + c.TargetBranch + " does not exist"
		return c
	}
	c.Target, c.Head = target, p.Changes.To
	// A check that failed is tried again when its inputs move, and now and
	// then: not every poll, which would run git a second for a packet
	// whose commits are gone.
	if old, ok := w.r.conflicts.get(p.ID); ok && old.Target == c.Target && old.Head == c.Head && old.From == c.From &&
		(old.Error == "" || now.Sub(old.CheckedAt) < conflictTipsEvery) {
		return old
	}
	got, err := chk.Check(ctx, workspace.MergeCheck{Target: c.Target, Head: c.Head, From: c.From})
	if err != nil {
		c.Error = err.Error()
		return c
	}
	c.Conflicts = got
	return c
}
