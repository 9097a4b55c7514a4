package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

// The Settings window's tabs, in order.
const (
	settingsTabWorktrees  = 1
	settingsTabConnection = 4
)

const (
	goldenSesDirty      = "ses_2e8b40c7f19a3d65b0e2"
	goldenSesUnreadable = "ses_c07d5e1a93f2b4860ad9"
	goldenSesGone       = "ses_51f9a2c0e7d43b68e1a5"
)

// fakeWorktrees answers workspace.list from its entries and
// workspace.discard by marking one gone, recording the calls.
type fakeWorktrees struct {
	mu        sync.Mutex
	entries   []mcpserver.WorkspaceEntry
	discarded []string
}

func (f *fakeWorktrees) register(reg *mcpserver.Registry) {
	reg.Register(mcpserver.Define(mcpserver.MethodWorkspaceList, mcpserver.On(mcpserver.Global, store.CapAdmin), mcpserver.Hidden|mcpserver.ReadOnly, "",
		func(_ *mcpserver.Call, _ mcpserver.NoArgs) (mcpserver.WorkspaceList, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			return mcpserver.WorkspaceList{Workspaces: slices.Clone(f.entries)}, nil
		}))
	reg.Register(mcpserver.Define(mcpserver.MethodWorkspaceDiscard, mcpserver.On(mcpserver.Global, store.CapAdmin), mcpserver.Hidden, "",
		func(_ *mcpserver.Call, in mcpserver.WorkspaceDiscardArgs) (mcpserver.WorkspaceEntry, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.discarded = append(f.discarded, in.SessionID)
			for i, e := range f.entries {
				if e.SessionID == in.SessionID {
					f.entries[i].Gone, f.entries[i].State, f.entries[i].DiskBytes = true, nil, 0
					return f.entries[i], nil
				}
			}
			return mcpserver.WorkspaceEntry{}, store.Deny(store.CodeInvalidArgument, "no session %s", in.SessionID)
		}))
}

func (f *fakeWorktrees) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.discarded)
}

// goldenWorktrees are a worktree in each state: live, unlanded with
// uncommitted files, dirty only, landed, unreadable, and one removed.
func goldenWorktrees() *fakeWorktrees {
	ws := func(repo, ses, slug string) store.Workspace {
		return store.Workspace{Path: "/home/ada/.local/share/switchboard/worktrees/" + repo + "/" + ses,
			Branch: "switchboard/" + ses[4:12] + "-" + slug, BaseBranch: "main", BaseCommit: strings.Repeat("4b", 20)}
	}
	changed := func(paths ...string) []workspace.FileChange {
		var out []workspace.FileChange
		for _, p := range paths {
			out = append(out, workspace.FileChange{Path: p, Status: "M", XY: ".M"})
		}
		return out
	}
	entry := func(repo, ses, slug string, state store.SessionState, st *workspace.State, disk int64) mcpserver.WorkspaceEntry {
		if st != nil {
			st.Dirty, st.Landed, st.Head = len(st.Changed) > 0, st.Unlanded == 0, strings.Repeat("c9", 20)
		}
		return mcpserver.WorkspaceEntry{SessionID: ses, RepositoryID: repo, SessionState: state, Workspace: ws(repo, ses, slug), State: st, DiskBytes: disk}
	}
	unreadable := entry(goldenRepoInfra, goldenSesUnreadable, "terraform-fmt", store.SessionLost, nil, 7<<20)
	unreadable.Problem = "status of worktree: exit status 128: fatal: not a git repository"
	gone := entry(goldenRepoWebsite, goldenSesGone, "old-work", store.SessionEnded, nil, 0)
	gone.Gone = true
	return &fakeWorktrees{entries: []mcpserver.WorkspaceEntry{
		entry(goldenRepoSwitchboard, goldenSesLive, "snapshot-tests", store.SessionRunning,
			&workspace.State{Ahead: 2, Unlanded: 2, Changed: changed("app/windows_golden_test.go")}, 48<<20),
		entry(goldenRepoSwitchboard, goldenSesEnded, "fix-clipped-labels", store.SessionEnded,
			&workspace.State{Ahead: 3, Unlanded: 3, Changed: changed("app/sessions.go", "app/testdata/sessions/live-dark.png")}, 212<<20),
		entry(goldenRepoWebsite, goldenSesDirty, "audit-export-docs", store.SessionEnded,
			&workspace.State{Changed: changed("docs/audit.md")}, 3565158),
		entry(goldenRepoInfra, goldenSesExternal, "keyring-timeout", store.SessionEnded,
			&workspace.State{Ahead: 1}, 1288490189),
		unreadable, gone,
	}}
}

// openWorktrees opens Settings on the Worktrees tab over fw and waits for
// the list.
func openWorktrees(t *testing.T, a fyne.App, fw *fakeWorktrees) *settingsWindow {
	t.Helper()
	g := newGoldenGUI(t, a, goldenSettingsData(), nil)
	fw.register(g.core.Registry())
	g.showSettings()
	w := g.settings
	t.Cleanup(func() { fyne.DoAndWait(func() { w.win.Close() }) })
	fyne.DoAndWait(func() {
		w.win.Resize(fyne.NewSize(960, 620))
		w.tabs.SelectIndex(settingsTabWorktrees)
	})
	waitUntil(t, "the worktrees listed", func() bool {
		var n int
		fyne.DoAndWait(func() { n = len(w.worktrees.entries) })
		return n > 0
	})
	return w
}

// findIn finds the first object under o, through containers and widgets'
// renderers (a dialog in the canvas's overlays), that match says yes to.
func findIn[T fyne.CanvasObject](o fyne.CanvasObject, match func(T) bool) (T, bool) {
	if v, ok := o.(T); ok && match(v) {
		return v, true
	}
	var kids []fyne.CanvasObject
	switch v := o.(type) {
	case *fyne.Container:
		kids = v.Objects
	case fyne.Widget:
		kids = test.WidgetRenderer(v).Objects()
	}
	for _, k := range kids {
		if v, ok := findIn(k, match); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// discardButton is the Discard button of session's row.
func (p *worktreesPane) discardButton(t *testing.T, session string) *widget.Button {
	t.Helper()
	i := slices.IndexFunc(p.entries, func(e mcpserver.WorkspaceEntry) bool { return e.SessionID == session })
	if i < 0 {
		t.Fatalf("no row for %s", session)
	}
	b, ok := findIn(p.rows.Objects[2*i], func(b *widget.Button) bool { return b.Text == labelDiscardWorktree })
	if !ok {
		t.Fatalf("no Discard button in the row of %s", session)
	}
	return b
}

// dialogButton is the button labelled label in the dialog over w.
func dialogButton(t *testing.T, w fyne.Window, label string) *widget.Button {
	t.Helper()
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog shown")
	}
	b, ok := findIn(top, func(b *widget.Button) bool { return b.Text == label })
	if !ok {
		t.Fatalf("no button %q in the dialog", label)
	}
	return b
}

// The Worktrees tab, and the confirmation of a discard, dark and light.
func TestSettingsWorktreesGolden(t *testing.T) {
	eachGoldenTheme(t, func(t *testing.T, a fyne.App, name string) {
		w := openWorktrees(t, a, goldenWorktrees())
		fyne.DoAndWait(func() {
			test.AssertImageMatches(t, "settings/worktrees-"+name+".png", w.win.Canvas().Capture())
			test.Tap(w.worktrees.discardButton(t, goldenSesEnded))
			test.AssertImageMatches(t, "settings/worktrees-discard-"+name+".png", w.win.Canvas().Capture())
		})
	})
}

// Discard asks first, saying what leaves the worktree and what is deleted
// for good; Cancel discards nothing, Discard calls workspace.discard once
// for that session, and the list reads again without it. A running
// agent's worktree cannot be discarded.
func TestSettingsWorktreesDiscard(t *testing.T) {
	a := test.NewTempApp(t)
	fw := goldenWorktrees()
	w := openWorktrees(t, a, fw)
	p := w.worktrees
	done := make(chan error, 1)

	fyne.DoAndWait(func() {
		p.discarded = func(_ string, err error) { done <- err }
		if got := len(p.entries); got != 5 || !strings.Contains(p.note.Text, "1 removed") {
			t.Errorf("%d rows, note %q: want the 5 not removed, the removed one counted", got, p.note.Text)
		}
		if !p.discardButton(t, goldenSesLive).Disabled() {
			t.Error("a running agent's worktree offers Discard")
		}
		test.Tap(p.discardButton(t, goldenSesEnded))
		msg, ok := findIn(w.win.Canvas().Overlays().Top(), func(l *widget.Label) bool { return strings.HasPrefix(l.Text, "Discarding") })
		if !ok {
			t.Fatal("no confirmation")
		}
		for _, want := range []string{
			"/home/ada/.local/share/switchboard/worktrees/" + goldenRepoSwitchboard + "/" + goldenSesEnded + " (212 MiB)",
			"3 unlanded commits (not on main)",
			"2 uncommitted files: app/sessions.go, app/testdata/sessions/live-dark.png",
			"branch switchboard/d41c8e2f-fix-clipped-labels",
			"Deleted for good",
		} {
			if !strings.Contains(msg.Text, want) {
				t.Errorf("the confirmation lacks %q:\n%s", want, msg.Text)
			}
		}
		test.Tap(dialogButton(t, w.win, "Cancel"))
	})
	if calls := fw.calls(); len(calls) != 0 {
		t.Fatalf("Cancel discarded %v", calls)
	}

	fyne.DoAndWait(func() {
		test.Tap(p.discardButton(t, goldenSesEnded))
		test.Tap(dialogButton(t, w.win, labelConfirmDiscard))
	})
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the discard did not finish in 10 s")
	}
	if calls := fw.calls(); !slices.Equal(calls, []string{goldenSesEnded}) {
		t.Errorf("workspace.discard calls %v", calls)
	}
	waitUntil(t, "the list without the discarded worktree", func() bool {
		var gone bool
		fyne.DoAndWait(func() {
			gone = !slices.ContainsFunc(p.entries, func(e mcpserver.WorkspaceEntry) bool { return e.SessionID == goldenSesEnded })
		})
		return gone
	})
	fyne.DoAndWait(func() {
		if !strings.HasPrefix(w.status.Text, "Discarded ") || !strings.Contains(p.note.Text, "2 removed") {
			t.Errorf("status %q, note %q", w.status.Text, p.note.Text)
		}
	})
}

// What the confirmation says of a worktree with nothing to lose, and of
// one git could not read.
func TestDiscardText(t *testing.T) {
	fw := goldenWorktrees()
	byID := map[string]mcpserver.WorkspaceEntry{}
	for _, e := range fw.entries {
		byID[e.SessionID] = e
	}
	for _, c := range []struct {
		session    string
		want, lack []string
	}{
		{goldenSesExternal, []string{"Nothing of its work is lost", "(1.2 GiB)"}, []string{"unlanded", "uncommitted file"}},
		{goldenSesDirty, []string{"1 uncommitted file: docs/audit.md", "as one more commit"}, []string{"unlanded commit"}},
		{goldenSesUnreadable, []string{"not a git repository", "is not known"}, []string{"Nothing of its work is lost"}},
	} {
		text := discardText(byID[c.session])
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: lacks %q:\n%s", c.session, w, text)
			}
		}
		for _, l := range c.lack {
			if strings.Contains(text, l) {
				t.Errorf("%s: says %q:\n%s", c.session, l, text)
			}
		}
	}
	many := byID[goldenSesDirty]
	many.State = &workspace.State{Dirty: true}
	for i := range 20 {
		many.State.Changed = append(many.State.Changed, workspace.FileChange{Path: "f" + string(rune('a'+i)), Status: "?"})
	}
	if text := discardText(many); !strings.Contains(text, "20 uncommitted files: fa, fb") || !strings.Contains(text, "and 12 more") {
		t.Errorf("20 files:\n%s", text)
	}
}

// The whole way, on the real registry and git: an ended session's
// worktree with a commit and an uncommitted file is listed with its disk
// use; the confirmation names both; Discard removes the folder and the
// branch keeps them.
func TestSettingsWorktreesDiscardReal(t *testing.T) {
	ctx := context.Background()
	repoDir := t.TempDir()
	git := func(dir string, args ...string) string {
		t.Helper()
		out, err := gitcmd.Run(ctx, dir, args...)
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	git(repoDir, "init", "-q", "-b", "main")
	git(repoDir, "config", "user.name", "Ada")
	git(repoDir, "config", "user.email", "ada@example.test")
	git(repoDir, "commit", "-q", "--allow-empty", "-m", "first")

	a := test.NewTempApp(t)
	log, _ := newTestLogger()
	g := newTestGUI(t, a, &fakeBackend{endpoint: testEndpoint, token: testToken, keyring: "available"}, log, func() {})
	repo, err := invoke(g, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: repoDir, Name: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	ses := workAgentCall(t, g, "session.report", mcpserver.ReportArgs{Kind: "ready", RepositoryID: repo.Repository.ID}).Value.(mcpserver.ReportResult).SessionID
	made, err := workspace.Create(ctx, workspace.Spec{RepoPath: repoDir, Root: t.TempDir(), RepositoryID: repo.Repository.ID, SessionID: ses, Slug: "notes"})
	if err != nil {
		t.Fatal(err)
	}
	ws := store.Workspace{Path: made.Path, Branch: made.Branch, BaseBranch: made.BaseBranch, BaseCommit: made.BaseCommit}
	if _, err := mcpserver.Invoke(ctx, g.core.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportSupervisor, mcpserver.MethodAgentWorkspace, mcpserver.AgentWorkspaceArgs{SessionID: ses, Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(made.Path, "plan.txt"), []byte("the plan\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	git(made.Path, "add", "plan.txt")
	git(made.Path, "commit", "-q", "-m", "plan")
	if err := os.WriteFile(filepath.Join(made.Path, "notes.txt"), make([]byte, 64<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := invoke(g, mcpserver.MethodSessionEnd, mcpserver.SessionEndArgs{SessionID: ses}); err != nil {
		t.Fatal(err)
	}

	g.showSettings()
	w := g.settings
	t.Cleanup(func() { fyne.DoAndWait(func() { w.win.Close() }) })
	fyne.DoAndWait(func() {
		w.tabs.SelectIndex(settingsTabWorktrees)
	})
	p := w.worktrees
	waitUntil(t, "the worktree listed", func() bool {
		var n int
		fyne.DoAndWait(func() { n = len(p.entries) })
		return n > 0
	})
	done := make(chan error, 1)
	fyne.DoAndWait(func() {
		e := p.entries[0]
		if e.SessionID != ses || e.DiskBytes < 64<<10 || e.State == nil || e.State.Unlanded != 1 || len(e.State.Changed) != 1 {
			t.Fatalf("listed %+v (state %+v)", e, e.State)
		}
		p.discarded = func(_ string, err error) { done <- err }
		test.Tap(p.discardButton(t, ses))
		msg, _ := findIn(w.win.Canvas().Overlays().Top(), func(l *widget.Label) bool { return strings.HasPrefix(l.Text, "Discarding") })
		for _, want := range []string{"1 unlanded commit (not on main)", "1 uncommitted file: notes.txt", made.Branch} {
			if msg == nil || !strings.Contains(msg.Text, want) {
				t.Errorf("the confirmation lacks %q: %v", want, msg)
			}
		}
		test.Tap(dialogButton(t, w.win, labelConfirmDiscard))
	})
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the discard did not finish in 30 s")
	}
	if _, err := os.Stat(made.Path); !os.IsNotExist(err) {
		t.Errorf("the worktree's folder is still there: %v", err)
	}
	if files := git(repoDir, "ls-tree", "--name-only", made.Branch); !strings.Contains(files, "plan.txt") || !strings.Contains(files, "notes.txt") {
		t.Errorf("branch %s holds %q, want plan.txt and notes.txt", made.Branch, files)
	}
}
