package app

import (
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/store"
)

// goldenUnlandedData is a board with done packets of every kind: with
// changes not landed, with changes landed, by an agent without a worktree
// (no changes); and one in review with changes, not done yet.
func goldenUnlandedData() *goldenData {
	d := &goldenData{repos: goldenRepos()}
	packet := func(id, repo, title string, state store.PacketState, seq uint64, age time.Duration) store.Packet {
		return store.Packet{ID: id, RepositoryID: repo, Title: title, State: state, Seq: seq, Attempt: 1, MaxAttempts: 3,
			CreatedAt: goldenAgo(age), UpdatedAt: goldenAgo(age), ExpectedArtifacts: []store.ExpectedArtifact{}, WriteScope: []string{},
			History: []store.Transition{{At: goldenAgo(age), To: store.PacketQueued}}}
	}
	changes := func(ses string) *store.PacketChanges {
		return &store.PacketChanges{SessionID: ses, Branch: "switchboard/7f2c91d0-work", BaseBranch: "main",
			From: "4b1e0c9a7d3f25e86c0a9b1f7e2d4c6a8b0e3f51", To: "c93d5a7e1f0b2468ac9e7d5b3f1a0c2e4d6b8f07", Files: 3, Added: 41, Deleted: 7}
	}
	waiting := packet(goldenPktDone, goldenRepoSwitchboard, "Show each worktree's disk use in Settings", store.PacketDone, 5, 2*time.Hour)
	waiting.Changes = changes(goldenSesEnded)
	landed := packet(goldenPktFailed, goldenRepoSwitchboard, "Count files in workspace.list", store.PacketDone, 4, 5*time.Hour)
	landed.Changes = changes(goldenSesLost)
	landed.Landed = &store.PacketLanding{Commit: "0e7a1c3b5d9f2468ace0b2d4f6a8c0e2b4d6f8a1", Mode: "merge", At: goldenAgo(4 * time.Hour)}
	review := packet(goldenPktInReview, goldenRepoWebsite, "Describe the landing modes", store.PacketInReview, 6, 30*time.Minute)
	review.Changes = changes(goldenSesLive)
	waiting2 := packet(goldenPktCancelled, goldenRepoInfra, "Rotate the deploy key", store.PacketDone, 3, 26*time.Hour)
	waiting2.Changes = changes(goldenSesExternal)
	d.packets = []store.Packet{
		review, waiting, landed,
		packet(goldenPktQueuedOld, goldenRepoWebsite, "Answer the support mail (by hand, no worktree)", store.PacketDone, 2, 3*time.Hour),
		waiting2,
	}
	return d
}

// Done packets whose changes are not on their base branch have a column
// of their own; the Unlanded filter shows only them, and All brings the
// others back, the selection kept throughout.
func TestWorkUnlanded(t *testing.T) {
	eachGoldenTheme(t, func(t *testing.T, a fyne.App, name string) {
		g := newGoldenGUI(t, a, goldenUnlandedData(), nil)
		w := openGoldenBoard(t, g)

		column := func(col int) []string {
			var out []string
			w.on(func() {
				for _, p := range w.cols[col].cards {
					out = append(out, p.Title)
				}
			})
			return out
		}
		want := []string{"Show each worktree's disk use in Settings", "Rotate the deploy key"}
		if got := column(workColUnlanded); !slices.Equal(got, want) {
			t.Errorf("unlanded column %q, want %q", got, want)
		}
		if got := column(workColDone); !slices.Equal(got, []string{"Count files in workspace.list", "Answer the support mail (by hand, no worktree)"}) {
			t.Errorf("done column %q", got)
		}
		test.AssertImageMatches(t, "work/unlanded-all-"+name+".png", captureOf(w.win, g.sessions.boardView))

		w.on(func() { w.showFilter.SetSelected(labelWorkUnlanded) })
		wantRows := []string{"Done, unlanded (2)", want[0] + " | switchboard · P0 · attempt 1/3 · " + goldenSesEnded + " · 2h",
			want[1] + " | infra · P0 · attempt 1/3 · " + goldenSesExternal + " · 26h"}
		if rows := w.rowTitles(); !slices.Equal(rows, wantRows) {
			t.Errorf("filtered on Unlanded: %q, want %q", rows, wantRows)
		}
		test.AssertImageMatches(t, "work/unlanded-filtered-"+name+".png", captureOf(w.win, g.sessions.boardView))

		// The selection follows its packet from one board to the other.
		w.on(func() {
			w.clickCard(goldenPktCancelled)
			w.showFilter.SetSelected(labelWorkAllPackets)
		})
		if rows := w.rowTitles(); len(rows) != 3+len(goldenUnlandedData().packets) {
			t.Errorf("all packets again: %q", rows)
		}
		w.on(func() {
			col, row, _ := w.find(goldenPktCancelled)
			if w.selected != goldenPktCancelled || col != workColUnlanded || row != 1 {
				t.Errorf("selected %q, its card at %d/%d", w.selected, col, row)
			}
		})
	})
}
