package app

import (
	"context"
	"fmt"
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"

	"github.com/switchboard-dev/switchboard/store"
)

// The sidebar counts a repository's packets by group and makes a group's
// rows only when the tree asks for them: with 5,000 packets the model
// holds the rows of the repositories and groups alone, and a packet is
// found, with its group, all the same.
func TestSideModelMakesPacketRowsWhenOpened(t *testing.T) {
	var repos []store.Repository
	for i := range 3 {
		repos = append(repos, store.Repository{ID: fmt.Sprintf("rep_%d", i), Name: fmt.Sprintf("r%d", i)})
	}
	packets := benchWorkPackets(5000)
	packets = append(packets, store.Packet{ID: "pkt_elsewhere", RepositoryID: "rep_gone", Title: "in no listed repository", State: store.PacketQueued})
	badge := func(store.Session) (string, fyne.ThemeColorName) { return "working", theme.ColorNameSuccess }
	m := buildSide(repos, nil, groupPackets(packets, nil), badge)
	if len(m.rows) > 50 {
		t.Fatalf("the model made %d rows before any group opened", len(m.rows))
	}
	for _, tt := range []struct {
		name   string
		packet store.Packet
		group  string // "" when the sidebar does not have it
	}{
		{"queued", packets[0], nodeState + "rep_0/" + fmt.Sprint(workColumnOf(packets[0]))},
		{"claimed, in another repository", packets[4999], nodeState + "rep_1/" + fmt.Sprint(workColumnOf(packets[4999]))},
		{"outside the repositories listed", packets[5000], ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			id := nodePacket + tt.packet.ID
			if got := m.parentOf(id); got != tt.group {
				t.Errorf("parent %q, want %q", got, tt.group)
			}
			r, ok := m.row(id)
			if ok != (tt.group != "") || (ok && r.text != tt.packet.Title) {
				t.Errorf("row %+v, %v", r, ok)
			}
			if tt.group == "" {
				return
			}
			kids := m.kids(tt.group)
			want := 0
			for _, p := range packets {
				if p.RepositoryID == tt.packet.RepositoryID && workColumnOf(p) == workColumnOf(tt.packet) {
					want++
				}
			}
			if len(kids) != want || m.rows[tt.group].text != fmt.Sprintf(labelSidePackets, workColumnTitles[workColumnOf(tt.packet)], want) {
				t.Errorf("the group holds %d rows and reads %q; want %d", len(kids), m.rows[tt.group].text, want)
			}
			if m.parent[id] != tt.group || m.rows[id].text != tt.packet.Title {
				t.Errorf("once opened, the packet's row is %+v under %q", m.rows[id], m.parent[id])
			}
		})
	}
}

// atLeast sizes its objects as a stack does, never below its floor, and
// a hidden object does not hold it open.
func TestAtLeast(t *testing.T) {
	small, wide := canvas.NewRectangle(color.Black), canvas.NewRectangle(color.Black)
	small.SetMinSize(fyne.NewSize(10, 50))
	wide.SetMinSize(fyne.NewSize(400, 5))
	for _, tt := range []struct {
		name     string
		objs     []fyne.CanvasObject
		hideWide bool
		want     fyne.Size
	}{
		{"empty", nil, false, fyne.NewSize(260, 0)},
		{"under the floor", []fyne.CanvasObject{small}, false, fyne.NewSize(260, 50)},
		{"wider than the floor", []fyne.CanvasObject{small, wide}, false, fyne.NewSize(400, 50)},
		{"the wide one hidden", []fyne.CanvasObject{small, wide}, true, fyne.NewSize(260, 50)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			show(wide, !tt.hideWide)
			c := atLeast(fyne.NewSize(260, 0), tt.objs...)
			if got := c.MinSize(); got != tt.want {
				t.Errorf("least size %v, want %v", got, tt.want)
			}
			c.Resize(fyne.NewSize(500, 300))
			for _, o := range tt.objs {
				if o.Size() != fyne.NewSize(500, 300) || o.Position() != (fyne.Position{}) {
					t.Errorf("an object at %v, %v", o.Position(), o.Size())
				}
			}
		})
	}
}

// The sidebar counts a repository's packets as the store does, past the
// newest 1,000 the window reads: 1,500 queued under 1,000 cancelled since
// read "Queued (1500)", and the group, opened, lists its newest 1,000 read
// for it alone and says how many more there are. A packet shown from it
// keeps its row through a reload.
func TestMainWindowCountsEveryPacket(t *testing.T) {
	g, repoID := guiWithRepo(t)
	const queued, cancelled = 1500, workListLimit
	var newestQueued, oldestQueued string
	err := g.core.Registry().DB().Update(context.Background(), func(tx *store.Tx) error {
		for i := range queued + cancelled {
			p, err := tx.CreatePacket(store.PacketSpec{RepositoryID: repoID, Title: fmt.Sprint("packet ", i)})
			if err != nil {
				return err
			}
			switch {
			case i == 0:
				oldestQueued = p.ID
			case i == queued-1:
				newestQueued = p.ID
			case i >= queued:
				if _, err := tx.CancelPacket(p.ID, "test"); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	g.showMain()
	w := g.sessions
	defer w.win.Close()
	group := fmt.Sprintf("%s%s/%d", nodeState, repoID, workColQueued)
	for _, tt := range []struct{ id, want string }{
		{group, fmt.Sprintf(labelSidePackets, workColumnTitles[workColQueued], queued)},
		{fmt.Sprintf("%s%s/%d", nodeState, repoID, workColFailed), fmt.Sprintf(labelSidePackets, workColumnTitles[workColFailed], cancelled)},
	} {
		if r, _ := w.model.row(tt.id); r.text != tt.want {
			t.Errorf("row %s reads %q, want %q", tt.id, r.text, tt.want)
		}
	}
	w.tree.OpenBranch(group)
	kids := w.model.kids(group)
	more := fmt.Sprintf(labelSideMore, queued-workListLimit, workListLimit)
	if len(kids) != workListLimit+1 {
		t.Fatalf("the opened group holds %d rows, want %d", len(kids), workListLimit+1)
	}
	if kids[0] != nodePacket+newestQueued || w.model.rows[kids[workListLimit]].text != more {
		t.Fatalf("the opened group's first row is %q, its last reads %q; want %q, %q",
			kids[0], w.model.rows[kids[workListLimit]].text, nodePacket+newestQueued, more)
	}
	if w.model.has(nodePacket + oldestQueued) {
		t.Error("the group lists a packet past its newest 1,000")
	}
	node := kids[workListLimit-1]
	w.selectNode(node)
	w.reload()
	if w.node != node || !w.model.has(node) {
		t.Errorf("after a reload the centre shows %q (row there: %v), want %q", w.node, w.model.has(node), node)
	}
	// The row that says how many are not shown is no item: a click on it
	// changes nothing shown.
	w.tree.Select(nodeMore + group)
	if w.node != node || w.lit != node {
		t.Errorf("a click on the count of those not shown: shown %q, highlighted %q; want %q", w.node, w.lit, node)
	}
}
