package app

import (
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
	m := buildSide(repos, nil, groupPackets(packets), badge)
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
