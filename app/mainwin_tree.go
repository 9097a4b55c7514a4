package app

// The main window's sidebar: the Work board, then each repository with
// its agents and its packets by state, as a tree whose rows are named by
// id, so that the highlighted row is the item shown whatever arrives.

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/store"
)

// Sidebar labels, also what the tests look for.
const (
	labelSideBoard   = "Work board"
	labelSideNoRepo  = "Outside a repository"
	labelSideEnded   = "Ended agents (%d)"
	labelSidePackets = "%s (%d)"
	labelSideMore    = "… %d more not shown (the newest %d are)"
	// sidebarMinWidth is the least width of the sidebar: a repository's
	// name and an agent's still read.
	sidebarMinWidth = 260
)

// The sidebar's row ids: a kind, a colon and the item's id. The id is
// the item's identity, not its place, so a selection stays on its item.
const (
	nodeBoard  = "board"
	nodeRepo   = "repo:"   // + repository id ("" for sessions outside one)
	nodeAgent  = "agent:"  // + session id
	nodeEnded  = "ended:"  // + repository id
	nodeState  = "state:"  // + repository id + "/" + column index
	nodePacket = "packet:" // + packet id
	nodeMore   = "more:"   // + its group's row id: how many are not shown
)

// sideRow is what one sidebar row shows.
type sideRow struct {
	text string
	// dot is the status dot's colour name; "" for no dot.
	dot  fyne.ThemeColorName
	hint string // the id, for the copy the tooltip-less tree cannot show
}

// sideModel is the sidebar's content: each row's children and looks.
// A packet group's rows are made the first time the tree asks for them
// (the group opened), not for every packet read: a repository may hold
// thousands, and the tree draws only the rows in view.
type sideModel struct {
	children map[string][]string // by parent id; "" is the root
	rows     map[string]sideRow
	parent   map[string]string
	// groups are each packet group's packets, by the group's row id; a
	// group's rows are in children, rows and parent once made.
	groups map[string][]sidePacket
	// counts are each packet group's count, which may be more than its
	// packets read; load reads a group whose packets read are only the
	// ones among the newest of all, when it opens.
	counts map[string]int
	load   map[string]func() []sidePacket
}

// sidePacket is what the sidebar keeps of a packet: its row, not the
// packet, whose instructions and history it never shows.
type sidePacket struct{ id, title string }

// sidePackets are the packets as last read for the sidebar: each
// repository's groups by the board's column, and how to read one group
// whole.
type sidePackets struct {
	repos map[string]*[workColCount]sideGroup
	// load reads one group's packets, newest first, at most
	// workListLimit of them; nil when there is nothing to read them from.
	load func(repo string, col int) []sidePacket
}

// sideGroup is one packet group: how many packets it has, counted by the
// store, and those of them read.
type sideGroup struct {
	count int
	// packets are the group's among the newest packets of all, or when
	// whole, the newest of the group read for it alone (load).
	packets []sidePacket
	whole   bool
}

// workColumnStates are the states each column shows; a done packet shows
// in one of two, by whether its changes landed.
var workColumnStates = [workColCount][]store.PacketState{
	{store.PacketQueued}, {store.PacketClaimed, store.PacketInProgress}, {store.PacketInReview},
	{store.PacketDone}, {store.PacketDone}, {store.PacketFailed, store.PacketCancelled},
}

// columnCount is how many of a repository's packets column c shows.
func columnCount(rc store.RepoPacketCounts, c int) int {
	switch c {
	case workColUnlanded:
		return rc.Unlanded
	case workColDone:
		return rc.States[store.PacketDone] - rc.Unlanded
	}
	n := 0
	for _, s := range workColumnStates[c] {
		n += rc.States[s]
	}
	return n
}

// groupPackets sorts packets into the sidebar's groups, counted as counts
// say: the packets read are the newest of all, and may hold only some of
// a group's.
func groupPackets(packets []store.Packet, counts map[string]store.RepoPacketCounts) sidePackets {
	out := sidePackets{repos: map[string]*[workColCount]sideGroup{}}
	groups := func(repo string) *[workColCount]sideGroup {
		cols := out.repos[repo]
		if cols == nil {
			cols = &[workColCount]sideGroup{}
			out.repos[repo] = cols
		}
		return cols
	}
	for repo, rc := range counts {
		cols := groups(repo)
		for c := range cols {
			cols[c].count = columnCount(rc, c)
		}
	}
	for _, p := range packets {
		g := &groups(p.RepositoryID)[workColumnOf(p)]
		g.packets = append(g.packets, sidePacket{id: p.ID, title: p.Title})
	}
	for _, cols := range out.repos {
		for c := range cols {
			// A packet written between the listing and the count, or
			// a server that sends no counts: never fewer than read.
			cols[c].count = max(cols[c].count, len(cols[c].packets))
		}
	}
	return out
}

// kids is row id's children, a packet group's made the first time.
func (m *sideModel) kids(id string) []string {
	if c, ok := m.children[id]; ok {
		return c
	}
	ps, ok := m.groups[id]
	if !ok {
		return nil
	}
	if load := m.load[id]; load != nil {
		ps = load()
		m.groups[id] = ps
	}
	ids := make([]string, len(ps), len(ps)+1)
	for i, p := range ps {
		ids[i] = nodePacket + p.id
		m.rows[ids[i]] = sideRow{text: p.title, hint: p.id}
		m.parent[ids[i]] = id
	}
	if more := m.counts[id] - len(ps); more > 0 {
		// Said, not pretended: the group holds more than one read shows.
		mid := nodeMore + id
		ids = append(ids, mid)
		m.rows[mid] = sideRow{text: fmt.Sprintf(labelSideMore, more, len(ps))}
		m.parent[mid] = id
	}
	m.children[id] = ids
	return ids
}

// row is what row id shows, and whether the sidebar has that row.
func (m *sideModel) row(id string) (sideRow, bool) {
	if r, ok := m.rows[id]; ok {
		return r, true
	}
	if _, p := m.groupOf(id); p.id != "" {
		return sideRow{text: p.title, hint: p.id}, true
	}
	return sideRow{}, false
}

// has is whether the sidebar has row id.
func (m *sideModel) has(id string) bool {
	_, ok := m.row(id)
	return ok
}

// parentOf is the row holding row id; "" for the root's and for a row the
// sidebar does not have.
func (m *sideModel) parentOf(id string) string {
	if p, ok := m.parent[id]; ok {
		return p
	}
	g, _ := m.groupOf(id)
	return g
}

// groupOf finds packet row id in a group whose rows are not made yet. It
// is looked for rather than indexed: the window asks it for the one item
// it shows, at each reload, and a scan of the groups costs less than an
// index of every packet built at each reload.
func (m *sideModel) groupOf(id string) (string, sidePacket) {
	pid, ok := strings.CutPrefix(id, nodePacket)
	if !ok {
		return "", sidePacket{}
	}
	for g, ps := range m.groups {
		for _, p := range ps {
			if p.id == pid {
				return g, p
			}
		}
	}
	return "", sidePacket{}
}

// agentName is what an agent is called in the sidebar: what it works on
// (its packet's title or the name given at its start), else its profile
// and when it started, so that two shells read apart. The centre's header
// names both.
func agentName(s store.Session) string {
	if s.Name != "" {
		return s.Name
	}
	who := s.Profile
	if who == "" {
		who = string(s.Kind)
	}
	return who + " · " + s.StartedAt.Local().Format("15:04")
}

// repoDisplayName is a repository's name, or its folder's.
func repoDisplayName(r store.Repository) string {
	if r.Name != "" {
		return r.Name
	}
	return filepath.Base(r.Path)
}

// buildSide lays out the sidebar from what the window read: badge gives a
// live session's status text and dot colour.
func buildSide(repos []store.Repository, sessions []store.Session, packets sidePackets,
	badge func(store.Session) (string, fyne.ThemeColorName)) sideModel {
	m := sideModel{children: map[string][]string{}, rows: map[string]sideRow{}, parent: map[string]string{},
		groups: map[string][]sidePacket{}, counts: map[string]int{}, load: map[string]func() []sidePacket{}}
	add := func(parent, id string, row sideRow) {
		m.children[parent] = append(m.children[parent], id)
		m.rows[id] = row
		m.parent[id] = parent
	}
	add("", nodeBoard, sideRow{text: labelSideBoard})
	known := map[string]bool{}
	for _, r := range repos {
		known[r.ID] = true
		add("", nodeRepo+r.ID, sideRow{text: repoDisplayName(r), hint: r.Path})
	}
	ended := map[string][]store.Session{}
	for _, s := range sessions {
		repo := s.RepositoryID
		if !known[repo] {
			repo = ""
		}
		if repo == "" && m.rows[nodeRepo] == (sideRow{}) {
			add("", nodeRepo, sideRow{text: labelSideNoRepo})
		}
		if !s.State.Live() {
			ended[repo] = append(ended[repo], s)
			continue
		}
		text, dot := badge(s)
		add(nodeRepo+repo, nodeAgent+s.ID, sideRow{text: agentName(s) + " — " + text, dot: dot, hint: s.ID})
	}
	for _, r := range append([]string{""}, keys(known)...) {
		list := ended[r]
		if len(list) == 0 {
			continue
		}
		branch := nodeEnded + r
		add(nodeRepo+r, branch, sideRow{text: fmt.Sprintf(labelSideEnded, len(list))})
		for _, s := range list {
			text, dot := badge(s)
			add(branch, nodeAgent+s.ID, sideRow{text: agentName(s) + " — " + text, dot: dot, hint: s.ID})
		}
	}
	for _, r := range repos {
		cols := packets.repos[r.ID]
		if cols == nil {
			continue
		}
		for c, g := range cols {
			if g.count == 0 {
				continue
			}
			branch := fmt.Sprintf("%s%s/%d", nodeState, r.ID, c)
			// Counted by the store; its rows are made when it opens (kids).
			add(nodeRepo+r.ID, branch, sideRow{text: fmt.Sprintf(labelSidePackets, workColumnTitles[c], g.count)})
			m.groups[branch] = g.packets
			m.counts[branch] = g.count
			if g.count > len(g.packets) && !g.whole && packets.load != nil {
				repo, col := r.ID, c
				m.load[branch] = func() []sidePacket { return packets.load(repo, col) }
			}
		}
	}
	return m
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// newSideTree makes the tree over *m, which reload replaces whole.
func newSideTree(m *sideModel) *widget.Tree {
	t := widget.NewTree(
		m.kids,
		func(id widget.TreeNodeID) bool { return id == "" || len(m.children[id]) > 0 || isBranchID(id) },
		func(bool) fyne.CanvasObject { return newSideRowObject() },
		func(id widget.TreeNodeID, _ bool, o fyne.CanvasObject) {
			r, _ := m.row(id)
			setSideRow(o, r)
		})
	return t
}

// isBranchID is whether id names a row that holds others, even when it
// holds none at the moment (a repository without agents or packets).
func isBranchID(id string) bool {
	return strings.HasPrefix(id, nodeRepo) || strings.HasPrefix(id, nodeEnded) || strings.HasPrefix(id, nodeState)
}

// newSideRowObject is a row: a status dot and a label cut to the width.
func newSideRowObject() fyne.CanvasObject {
	dot := canvas.NewCircle(color.Transparent)
	l := widget.NewLabel("")
	l.Truncation = fyne.TextTruncateEllipsis
	holder := container.NewGridWrap(fyne.NewSize(10, 10), dot)
	return container.NewBorder(nil, nil, container.NewCenter(holder), nil, l)
}

func setSideRow(o fyne.CanvasObject, r sideRow) {
	c := o.(*fyne.Container)
	var l *widget.Label
	var holder *fyne.Container
	for _, obj := range c.Objects {
		switch v := obj.(type) {
		case *widget.Label:
			l = v
		case *fyne.Container:
			holder = v.Objects[0].(*fyne.Container)
		}
	}
	if l.Text != r.text {
		l.SetText(r.text)
	}
	dot := holder.Objects[0].(*canvas.Circle)
	want := color.Color(color.Transparent)
	if r.dot != "" {
		want = theme.Color(r.dot)
	}
	if dot.FillColor != want {
		dot.FillColor = want
		dot.Refresh()
	}
	show(holder, r.dot != "")
}
