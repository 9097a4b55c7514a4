package app

import (
	"cmp"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

const (
	changesPkt      = "pkt_c4a91e07d2b85f63a1d0"
	changesWorktree = "/home/ada/.local/share/switchboard/worktrees/switchboard/ses_d41c8e2f09b7a6351d4e"
)

// changesFake is the registry's side of a Changes view: the diff it
// serves and the calls the view made.
type changesFake struct {
	mu        sync.Mutex
	diff      string
	untracked []string
	verdicts  []mcpserver.VerdictArgs
	lands     []mcpserver.WorkLandArgs
	plans     []mcpserver.WorkLandArgs
	landErr   error
	diffReads int
	// prURL and prNote are what a pull-request landing answers.
	prURL, prNote string
	generated     []string
	// reviewed and since are the diffs work.diff serves for its ranges
	// DiffReviewed and DiffSinceReview; ranges are the ranges asked for.
	reviewed, since string
	ranges          []string
}

func (f *changesFake) calls() ([]mcpserver.VerdictArgs, []mcpserver.WorkLandArgs) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]mcpserver.VerdictArgs(nil), f.verdicts...), append([]mcpserver.WorkLandArgs(nil), f.lands...)
}

// changesPacket is a packet in review whose agent worked in a worktree.
func changesPacket(state store.PacketState) store.Packet {
	return store.Packet{ID: changesPkt, RepositoryID: goldenRepoSwitchboard, Title: "Greet several people at once",
		State: state, Seq: 12, MaxAttempts: 3, Attempt: 1, CreatedAt: goldenAgo(2 * time.Hour), UpdatedAt: goldenAgo(10 * time.Minute),
		ExpectedArtifacts: []store.ExpectedArtifact{}, WriteScope: []string{"**"}, ReviewRequired: true,
		History: []store.Transition{{At: goldenAgo(2 * time.Hour), To: store.PacketQueued}},
		Changes: &store.PacketChanges{SessionID: goldenSesEnded, Branch: "switchboard/d41c8e2f-greet", BaseBranch: "main",
			From: "3a8b8fd0c1e2d3f4a5b6c7d8e9f0a1b2c3d4e5f6", To: "27dfa13e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a", Files: 5, Added: 11, Deleted: 10}}
}

// newChangesGUI is a GUI whose registry serves packet p, its session's
// worktree and f's diff, and records the verdicts and landings.
func newChangesGUI(t *testing.T, a fyne.App, p store.Packet, f *changesFake) *gui {
	d := &goldenData{repos: goldenRepos(), packets: []store.Packet{p}, details: map[string]mcpserver.SessionDetail{
		goldenSesEnded: {Session: store.Session{ID: goldenSesEnded, Kind: store.SessionSupervised, State: store.SessionRunning,
			Workspace: &store.Workspace{Path: changesWorktree, Branch: "switchboard/d41c8e2f-greet", BaseBranch: "main", BaseCommit: p.Changes.From}}},
	}}
	g := newGoldenGUI(t, a, d, nil)
	reg := g.core.Registry()
	on := mcpserver.On(mcpserver.Global, store.CapAdmin)
	diff := func() mcpserver.DiffResult {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.diffReads++
		return mcpserver.DiffResult{From: p.Changes.From, To: p.Changes.To, Diff: f.diff, Untracked: f.untracked, Generated: f.generated}
	}
	reg.Register(mcpserver.Define(mcpserver.MethodWorkDiff, on, mcpserver.Hidden|mcpserver.ReadOnly, "", func(_ *mcpserver.Call, in mcpserver.WorkDiffArgs) (mcpserver.DiffResult, error) {
		if in.Range == "" {
			return diff(), nil
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.ranges = append(f.ranges, in.Range)
		if in.Range == mcpserver.DiffReviewed {
			return mcpserver.DiffResult{Diff: f.reviewed}, nil
		}
		return mcpserver.DiffResult{Diff: f.since}, nil
	}))
	reg.Register(mcpserver.Define(mcpserver.MethodSessionDiff, on, mcpserver.Hidden|mcpserver.ReadOnly, "", func(_ *mcpserver.Call, _ mcpserver.SessionDiffArgs) (mcpserver.DiffResult, error) {
		return diff(), nil
	}))
	reg.Register(mcpserver.Define(mcpserver.MethodReviewVerdict, on, mcpserver.Hidden, "", func(_ *mcpserver.Call, in mcpserver.VerdictArgs) (mcpserver.PacketResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.verdicts = append(f.verdicts, in)
		q := p
		q.Review = &store.PacketReview{Verdict: in.Verdict, Notes: in.Notes, Comments: in.Comments, By: "operator", To: p.Changes.To}
		switch in.Verdict {
		case store.VerdictApprove:
			q.State = store.PacketDone
		case store.VerdictRequestChanges:
			q.State = store.PacketQueued
		default:
			q.State = store.PacketFailed
		}
		return mcpserver.PacketResult{Packet: q}, nil
	}))
	reg.Register(mcpserver.Define(mcpserver.MethodWorkLandPlan, on, mcpserver.Hidden|mcpserver.ReadOnly, "", func(_ *mcpserver.Call, in mcpserver.WorkLandArgs) (mcpserver.LandPlanResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.plans = append(f.plans, in)
		return changesPlan(in.Mode), nil
	}))
	reg.Register(mcpserver.Define(mcpserver.MethodWorkLand, on, mcpserver.Hidden, "", func(_ *mcpserver.Call, in mcpserver.WorkLandArgs) (mcpserver.LandResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.lands = append(f.lands, in)
		if f.landErr != nil {
			return mcpserver.LandResult{}, f.landErr
		}
		q := p
		q.State = store.PacketDone
		if in.Mode == string(store.LandingPullRequest) {
			q.Landed = &store.PacketLanding{Commit: "9c1d2e3f4a5b6c7d8e9f", Mode: in.Mode, At: goldenNow, URL: f.prURL, Remote: "origin", Branch: "switchboard/d41c8e2f-greet"}
			return mcpserver.LandResult{Packet: q, Commit: q.Landed.Commit, URL: f.prURL, Note: f.prNote}, nil
		}
		q.Landed = &store.PacketLanding{Commit: "9c1d2e3f4a5b6c7d8e9f", Mode: "merge", At: goldenNow}
		return mcpserver.LandResult{Packet: q, Commit: q.Landed.Commit, Files: 5}, nil
	}))
	return g
}

func readSmallDiff(t testing.TB) string {
	b, err := os.ReadFile("testdata/changes/small.diff")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// on runs f under the view's lock, as the refresh goroutine's updates do.
func (v *changesView) on(f func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	f()
}

// lineRow is the row of the line with new (or, for a deleted line, old)
// number n in path, or -1.
func (v *changesView) lineRow(path string, n int, side string) int {
	for i, r := range v.rows {
		if r.kind != rowLine {
			continue
		}
		f := &v.files[r.file]
		l := f.Hunks[r.hunk].Lines[r.line]
		if side == "new" && f.NewPath == path && int(l.NewLine) == n {
			return i
		}
		if side == "old" && f.OldPath == path && int(l.OldLine) == n && l.NewLine == 0 {
			return i
		}
	}
	return -1
}

// shownLine is the line widget the list shows for row i, or nil.
func (v *changesView) shownLine(i int) *lineWidget {
	l, _ := v.findShown(func(o fyne.CanvasObject) bool {
		l, ok := o.(*lineWidget)
		return ok && l.row == i && l.Visible()
	}).(*lineWidget)
	return l
}

// findShown is the first object of the window that match says is the one, or
// nil.
func (v *changesView) findShown(match func(fyne.CanvasObject) bool) fyne.CanvasObject {
	var found fyne.CanvasObject
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if found != nil {
			return
		}
		if match(o) {
			found = o
			return
		}
		switch c := o.(type) {
		case *fyne.Container:
			for _, ch := range c.Objects {
				walk(ch)
			}
		case fyne.Widget:
			for _, ch := range test.WidgetRenderer(c).Objects() {
				walk(ch)
			}
		}
	}
	walk(v.win.Content())
	return found
}

// A reviewer taps a deleted line and an added one, comments on each, and
// requests changes: review.verdict carries both comments with their
// sides.
func TestChangesCommentAndRequestChanges(t *testing.T) {
	a := test.NewTempApp(t)
	f := &changesFake{diff: readSmallDiff(t)}
	g := newChangesGUI(t, a, changesPacket(store.PacketInReview), f)
	v := g.showPacketChanges(changesPkt)
	defer v.closeWin()

	if len(v.files) != 5 || !v.review.request.Visible() {
		t.Fatalf("%d files, Request changes shown %v", len(v.files), v.review.request.Visible())
	}
	comment := func(path string, n int, side, text string) {
		t.Helper()
		i := v.lineRow(path, n, side)
		if i < 0 {
			t.Fatalf("no row for %s:%d %s", path, n, side)
		}
		v.on(func() { v.scrollToRow(i) })
		l := v.shownLine(i)
		if l == nil {
			t.Fatalf("row %d (%s:%d) is not drawn", i, path, n)
		}
		test.Tap(l)
		if !v.review.commentBox.Visible() || v.marked != i {
			t.Fatalf("tapping row %d opened no comment (marked %d)", i, v.marked)
		}
		focusAndType(v.win, v.review.commentEntry, text)
		test.Tap(v.review.commentAdd)
	}
	comment("cmd/main.go", 10, "new", "Keep the old signature too: other callers pass one name.")
	comment("cmd/main.go", 9, "old", "Say why this changed in the doc comment.")
	if len(v.review.comments) != 2 || v.review.commentBox.Visible() {
		t.Fatalf("comments %+v, entry still open %v", v.review.comments, v.review.commentBox.Visible())
	}
	focusAndType(v.win, v.review.notes, "Two small things.")
	test.Tap(v.review.request)

	verdicts, lands := f.calls()
	if len(verdicts) != 1 || len(lands) != 0 {
		t.Fatalf("verdicts %+v, lands %+v", verdicts, lands)
	}
	got := verdicts[0]
	want := []store.ReviewComment{
		{Path: "cmd/main.go", Line: 10, Side: store.SideNew, Text: "Keep the old signature too: other callers pass one name."},
		{Path: "cmd/main.go", Line: 9, Side: "old", Text: "Say why this changed in the doc comment."},
	}
	if got.PacketID != changesPkt || got.Verdict != store.VerdictRequestChanges || got.Notes != "Two small things." || len(got.Comments) != 2 ||
		got.Comments[0] != want[0] || got.Comments[1] != want[1] {
		t.Fatalf("verdict %+v, want request_changes with %+v", got, want)
	}
	if v.review.request.Visible() || len(v.review.comments) != 0 {
		t.Errorf("after the verdict: Request changes shown %v, comments %+v", v.review.request.Visible(), v.review.comments)
	}
}

// changesPlan is what the fake work.land_plan says landing by mode would
// do.
func changesPlan(mode string) mcpserver.LandPlanResult {
	p := mcpserver.LandPlanResult{PacketID: changesPkt, Mode: cmp.Or(mode, "merge"), DefaultMode: "merge", Branch: "switchboard/d41c8e2f-greet"}
	p.Target, p.TargetCommit = "main", "5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f"
	p.Commits = []workspace.PlanCommit{
		{Commit: "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b", Subject: "Greet several people"},
		{Commit: "27dfa13e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a", Subject: "Say why in the doc comment"},
	}
	p.Files = []workspace.PlanFile{{Status: "M", Path: "cmd/main.go"}, {Status: "R", Path: "docs/NOTES.md", OldPath: "NOTES.md"}}
	if p.Mode == string(store.LandingPullRequest) {
		p.Remote = "origin"
	}
	return p
}

// Approve records the verdict and lands nothing: no work.land, and Land ▾
// appears.
func TestChangesApproveDoesNotLand(t *testing.T) {
	a := test.NewTempApp(t)
	f := &changesFake{diff: readSmallDiff(t)}
	g := newChangesGUI(t, a, changesPacket(store.PacketInReview), f)
	v := g.showPacketChanges(changesPkt)
	defer v.closeWin()
	if v.review.land.Visible() {
		t.Fatal("Land ▾ is shown on a packet in review")
	}
	test.Tap(v.review.approve)
	g.busy.Wait()
	verdicts, lands := f.calls()
	if len(verdicts) != 1 || verdicts[0].Verdict != store.VerdictApprove || len(lands) != 0 || len(f.plans) != 0 {
		t.Fatalf("verdicts %+v, lands %+v, plans %+v", verdicts, lands, f.plans)
	}
	if !v.review.land.Visible() || v.review.approve.Visible() {
		t.Errorf("after Approve: Land ▾ shown %v, Approve shown %v", v.review.land.Visible(), v.review.approve.Visible())
	}
}

// landThrough taps Land ▾, then the menu's item i, and waits for the plan.
func (v *changesView) landThrough(t *testing.T, i int) {
	t.Helper()
	test.Tap(v.review.land)
	if v.review.menu == nil || !v.review.menu.Visible() || i >= len(v.review.menu.Items) {
		t.Fatal("Land ▾ opened no menu")
	}
	test.Tap(v.review.menu.Items[i].(fyne.Tappable))
	v.g.busy.Wait() // the plan, off the Fyne goroutine
}

// Land ▾ lists the repository's default mode first; a mode shows the
// plan (target, mode, commits, files) and lands nothing until its Land is
// tapped, by that mode; Cancel lands nothing.
func TestChangesLandShowsPlanThenLands(t *testing.T) {
	a := test.NewTempApp(t)
	f := &changesFake{diff: readSmallDiff(t)}
	g := newChangesGUI(t, a, changesPacket(store.PacketDone), f)
	v := g.showPacketChanges(changesPkt)
	defer v.closeWin()
	var labels []string
	for _, it := range v.review.landMenu().Items {
		labels = append(labels, it.Label)
	}
	if want := []string{"Merge (default)", "Squash", "Rebase", "Pull request"}; !slices.Equal(labels, want) {
		t.Errorf("Land ▾ menu %q, want %q", labels, want)
	}

	v.landThrough(t, 1) // Squash
	for _, want := range []string{"Onto main (now at 5e6f7a8b9c), by squash,\nfrom switchboard/d41c8e2f-greet.", "2 commits:", "1a2b3c4d5e  Greet several people",
		"27dfa13e4d  Say why in the doc comment", "2 files:", "M  cmd/main.go", "R  NOTES.md → docs/NOTES.md"} {
		if !strings.Contains(v.review.planText, want) {
			t.Errorf("the plan lacks %q:\n%s", want, v.review.planText)
		}
	}
	if _, lands := f.calls(); len(lands) != 0 || len(f.plans) != 1 || f.plans[0].Mode != "squash" {
		t.Fatalf("before the confirmation: lands %+v, plans %+v", lands, f.plans)
	}
	test.Tap(dialogButton(t, v.win, labelLandDismiss))
	g.busy.Wait()
	if _, lands := f.calls(); len(lands) != 0 {
		t.Fatalf("Cancel landed: %+v", lands)
	}

	v.landThrough(t, 0) // the default
	if !strings.Contains(v.review.planText, "by merge, the repository's default") {
		t.Errorf("the default's plan:\n%s", v.review.planText)
	}
	test.Tap(dialogButton(t, v.win, labelLandConfirm))
	g.busy.Wait() // the landing
	if _, lands := f.calls(); len(lands) != 1 || lands[0] != (mcpserver.WorkLandArgs{PacketID: changesPkt, Mode: "merge"}) {
		t.Fatalf("after Land: %+v", lands)
	}
	if v.review.land.Visible() || !v.review.landed.Visible() {
		t.Errorf("after landing: Land ▾ shown %v, landed shown %v (%q)", v.review.land.Visible(), v.review.landed.Visible(), v.status.Text)
	}
}

// A landing refused as a conflict offers Send back, which asks for a
// rebase onto the base naming the files.
func TestChangesLandConflictSendBack(t *testing.T) {
	a := test.NewTempApp(t)
	f := &changesFake{diff: readSmallDiff(t), landErr: store.Deny(store.CodeMergeConflict,
		"%s conflicts with main in cmd/main.go, docs/NOTES.md: nothing was moved; send it back to be rebased onto main", changesPkt).WithPaths([]string{"cmd/main.go", "docs/NOTES.md"})}
	g := newChangesGUI(t, a, changesPacket(store.PacketDone), f)
	v := g.showPacketChanges(changesPkt)
	defer v.closeWin()

	v.landThrough(t, 0)
	test.Tap(dialogButton(t, v.win, labelLandConfirm))
	g.busy.Wait()
	if _, lands := f.calls(); len(lands) != 1 || !v.review.conflict.Visible() {
		t.Fatalf("lands %+v; a merge conflict shows Send back %v", lands, v.review.conflict.Visible())
	}
	test.Tap(v.review.sendBack)
	verdicts, _ := f.calls()
	if len(verdicts) != 1 || verdicts[0].Verdict != store.VerdictRequestChanges ||
		verdicts[0].Notes != "rebase onto main and resolve: cmd/main.go, docs/NOTES.md" {
		t.Fatalf("send back: %+v", verdicts)
	}
}

// A packet completed by an agent started by hand has no commits: the
// view says so and offers nothing to land.
func TestChangesNoCommitRange(t *testing.T) {
	a := test.NewTempApp(t)
	p := changesPacket(store.PacketDone)
	p.Changes = nil
	g := newChangesGUI(t, a, changesPacket(store.PacketDone), &changesFake{})
	_ = g
	g2 := newGoldenGUI(t, a, &goldenData{repos: goldenRepos(), packets: []store.Packet{p}}, nil)
	v := g2.showPacketChanges(changesPkt)
	defer v.closeWin()
	if v.summary.Text != labelChangesNoRange || v.review.box.Visible() {
		t.Fatalf("summary %q, review shown %v", v.summary.Text, v.review.box.Visible())
	}
}

func TestConflictFiles(t *testing.T) {
	for _, tc := range []struct {
		d    *store.Denial
		want string
	}{
		{store.Deny(store.CodeMergeConflict, "pkt_1 conflicts with main in a.go, b.go: nothing was moved").WithPaths([]string{"a.go", "b.go"}), "a.go, b.go"},
		{store.Deny(store.CodeMergeConflict, "pkt_1 conflicts with release in a.go and 3 more: nothing was moved").WithPaths([]string{"a.go"}), "a.go and 3 more"},
		{store.Deny(store.CodeMergeConflict, "something else"), "something else"},
	} {
		if got := conflictFiles(tc.d); got != tc.want {
			t.Errorf("conflictFiles(%+v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// Open in editor goes through the view's opener with the worktree; Copy
// path puts it on the clipboard.
func TestChangesOpenAndCopy(t *testing.T) {
	a := test.NewTempApp(t)
	g := newChangesGUI(t, a, changesPacket(store.PacketDone), &changesFake{diff: readSmallDiff(t)})
	v := g.showPacketChanges(changesPkt)
	defer v.closeWin()
	var opened string
	v.openInEditor = func(p string) error { opened = p; return nil }
	test.Tap(v.openBtn)
	test.Tap(v.copyBtn)
	if opened != changesWorktree || a.Clipboard().Content() != changesWorktree {
		t.Fatalf("opened %q, clipboard %q", opened, a.Clipboard().Content())
	}
	if v.review.request.Visible() || !v.review.approve.Visible() {
		t.Errorf("a done packet: Request changes %v, Approve %v", v.review.request.Visible(), v.review.approve.Visible())
	}
}

// A live session's view reads its diff again while on screen and redraws
// only when it changed: new lines and an untracked file appear; an
// unchanged diff keeps the rows it had; off screen, it reads nothing.
func TestChangesSessionRefresh(t *testing.T) {
	a := test.NewTempApp(t)
	small := readSmallDiff(t)
	f := &changesFake{diff: small}
	g := newChangesGUI(t, a, changesPacket(store.PacketInReview), f)
	v := newChangesView(g, a.NewWindow("changes"), changesSource{sessionID: goldenSesEnded})
	v.win.SetContent(v.content)
	v.win.Show()
	v.load()
	v.visible.Store(true)
	defer v.on(func() { v.win.Close() })
	defer close(v.stop)
	if len(v.files) != 5 || v.review.box.Visible() || v.worktree != changesWorktree {
		t.Fatalf("%d files, review shown %v, worktree %q", len(v.files), v.review.box.Visible(), v.worktree)
	}
	go v.refreshLoop(changesRefreshEveryTest)

	reads := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.diffReads
	}
	var first *diffRow
	v.on(func() { first = &v.rows[0] })
	n := reads()
	waitUntil(t, "two more reads", func() bool { return reads() >= n+2 })
	v.on(func() {
		if &v.rows[0] != first {
			t.Error("an unchanged diff was drawn again")
		}
	})

	f.mu.Lock()
	f.diff = small[:strings.Index(small, "diff --git a/docs/")]
	f.untracked = []string{"scratch/notes.txt"}
	f.mu.Unlock()
	waitUntil(t, "the new diff", func() bool {
		done := false
		v.on(func() { done = len(v.files) == 3 })
		return done
	})
	v.on(func() {
		if last := v.files[2]; last.NewPath != "scratch/notes.txt" || !v.untracked[2] {
			t.Errorf("untracked file: %+v", last)
		}
	})

	// Off screen (another tab, another item): no read. One may be under
	// way as it goes; none is made after it, over ten periods (a bound
	// that can only miss a failure, never make one).
	v.visible.Store(false)
	n = reads()
	quiet := time.After(10 * changesRefreshEveryTest)
	poll := time.NewTicker(time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-quiet:
			return
		case <-poll.C:
			if reads() > n+1 {
				t.Fatalf("the view off screen read %d times", reads()-n)
			}
		}
	}
}

// changesRefreshEveryTest is TestChangesSessionRefresh's refresh period.
const changesRefreshEveryTest = 10 * time.Millisecond

// The packet's detail in the main window has a Changes button that shows
// the packet's Changes tab, in the window, as the board's detail does;
// no window opens.
func TestWorkChangesButton(t *testing.T) {
	a := test.NewTempApp(t)
	g := newChangesGUI(t, a, changesPacket(store.PacketInReview), &changesFake{diff: readSmallDiff(t)})
	w := openBoard(t, g)
	w.on(func() { w.clickCard(changesPkt) })
	var open *widget.Button
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch c := o.(type) {
		case *widget.Button:
			if c.Text == labelChanges {
				open = c
			}
		case *fyne.Container:
			for _, ch := range c.Objects {
				walk(ch)
			}
		}
	}
	w.on(func() { walk(w.body) })
	if open == nil {
		t.Fatalf("no %s button in the detail:\n%s", labelChanges, workLabelTexts(w.body))
	}
	if !strings.Contains(workLabelTexts(w.body), "5 files, +11 −10 on switchboard/d41c8e2f-greet, onto main") {
		t.Errorf("the Changes section:\n%s", workLabelTexts(w.body))
	}
	windows := len(a.Driver().AllWindows())
	w.on(func() { test.Tap(open) })
	m := g.sessions
	onUI(func() {
		v := m.shownChanges
		if m.node != nodePacket+changesPkt || m.packetTabs.Selected() != m.packetChangesTab || !m.packetView.Visible() ||
			v == nil || v.src.packetID != changesPkt || len(v.files) != 5 || !v.content.Visible() {
			t.Fatalf("after %s: node %q, tab %q, view %+v", labelChanges, m.node, m.packetTabs.Selected().Text, v)
		}
	})
	if n := len(a.Driver().AllWindows()); n != windows {
		t.Errorf("%d windows after %s, %d before", n, labelChanges, windows)
	}
}

// One Changes view per packet: shown again (its row selected again, or
// its Changes button), it is the same view, its change read again, with
// the scroll and the comments not yet sent as they were; no window opens.
func TestChangesOneViewPerPacket(t *testing.T) {
	a := test.NewTempApp(t)
	f := &changesFake{diff: readSmallDiff(t)}
	g := newChangesGUI(t, a, changesPacket(store.PacketInReview), f)
	v := g.showPacketChanges(changesPkt)
	defer v.closeWin()
	windows := len(a.Driver().AllWindows())
	reads := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.diffReads
	}
	i := v.lineRow("cmd/main.go", 10, "new")
	v.on(func() {
		v.win.Resize(fyne.NewSize(1366, 768))
		v.scrollToRow(i)
	})
	test.Tap(v.shownLine(i))
	focusAndType(v.win, v.review.commentEntry, "Name the empty case.")
	test.Tap(v.review.commentAdd)
	var off float32
	v.on(func() {
		off = v.lines.GetScrollOffset()
		v.note("Changes requested")
	})
	if off == 0 || len(v.review.comments) != 1 {
		t.Fatalf("scrolled to %v, comments %+v", off, v.review.comments)
	}
	m := g.sessions
	before := reads()
	// Elsewhere, then the packet's row again: the same view.
	onUI(func() { m.selectNode(nodeBoard) })
	if v.visible.Load() || m.shownChanges != nil {
		t.Error("the view is still on screen with the board shown")
	}
	onUI(func() { m.selectNode(nodePacket + changesPkt) })
	onUI(func() {
		if m.shownChanges != v || !v.visible.Load() || m.packetTabs.Selected() != m.packetChangesTab {
			t.Errorf("the packet's row again shows %p (tab %q), not its view %p", m.shownChanges, m.packetTabs.Selected().Text, v)
		}
		if len(v.review.comments) != 1 || v.review.comments[0].Text != "Name the empty case." {
			t.Errorf("the comment not sent yet: %+v", v.review.comments)
		}
		if got := v.lines.GetScrollOffset(); got != off {
			t.Errorf("the diff scrolled to %v, was left at %v", got, off)
		}
	})
	if reads() != before+1 {
		t.Errorf("%d reads of the change on showing it again, want 1", reads()-before)
	}
	if v.status.Visible() {
		t.Errorf("the view shown again still says %q", v.status.Text)
	}
	if again := g.showPacketChanges(changesPkt); again != v {
		t.Error("the Changes button made a second view")
	}
	if reads() != before+2 {
		t.Error("the Changes button did not read the change again (the packet may have come back)")
	}
	if n := len(a.Driver().AllWindows()); n != windows {
		t.Errorf("%d windows open after showing it again, %d before", n, windows)
	}
	// Closing the window ends the views; opened again, it starts anew.
	v.closeWin()
	select {
	case <-v.stop:
	default:
		t.Error("the closed window's view was not stopped")
	}
	if again := g.showPacketChanges(changesPkt); again == v || len(again.review.comments) != 0 {
		t.Error("after closing the window, its view came back")
	} else {
		again.closeWin()
	}
}

// closeWin closes the main window the view is in, unless it is closed.
func (v *changesView) closeWin() {
	fyne.DoAndWait(func() {
		if s := v.g.sessions; s != nil && s.win == v.win {
			v.win.Close()
		}
	})
}
