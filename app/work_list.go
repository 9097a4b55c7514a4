package app

// The Work window's packet list: packets grouped by state, and the
// filters above them (repository; all packets or the unlanded ones).

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// workStates are the groups of the packet list, in workflow order, with
// their headings. Claimed and in progress share one: both are an agent at
// work under a lease.
var workStates = []struct {
	title  string
	states []store.PacketState
}{
	{"Queued", []store.PacketState{store.PacketQueued}},
	{"In progress", []store.PacketState{store.PacketClaimed, store.PacketInProgress}},
	{"In review", []store.PacketState{store.PacketInReview}},
	{"Done", []store.PacketState{store.PacketDone}},
	{"Failed", []store.PacketState{store.PacketFailed}},
	{"Cancelled", []store.PacketState{store.PacketCancelled}},
}

// The packet filter's choices.
const (
	labelWorkAllPackets = "All"
	labelWorkUnlanded   = "Unlanded"
	labelUnlandedBadge  = "unlanded"
)

// unlanded is true for a done packet whose commits have not reached their
// base branch: work that is finished and approved but only on the agent's
// branch, which the person still has to land (or discard).
func unlanded(p store.Packet) bool {
	return p.State == store.PacketDone && p.Changes != nil && p.Landed == nil
}

// filterBar is the row above the list: the repository and which packets,
// beside the New packet button.
func (w *workWindow) filterBar() fyne.CanvasObject {
	w.showFilter = widget.NewSelect([]string{labelWorkAllPackets, labelWorkUnlanded}, nil)
	w.showFilter.SetSelected(labelWorkAllPackets)
	// As wide as its longest choice, no wider: the repository's name
	// needs the room.
	w.showFilter.PlaceHolder = labelWorkUnlanded
	w.showFilter.OnChanged = func(string) { w.showRows() }
	return container.NewBorder(nil, nil, nil, container.NewHBox(w.showFilter, w.newPacket), w.repoFilter)
}

// shownPackets are the packets the filter lets through.
func (w *workWindow) shownPackets() []store.Packet {
	if w.showFilter == nil || w.showFilter.Selected != labelWorkUnlanded {
		return w.packets
	}
	var out []store.Packet
	for _, p := range w.packets {
		if unlanded(p) {
			out = append(out, p)
		}
	}
	return out
}

// workRow is one row of the packet list: a group heading or a packet.
type workRow struct {
	heading string // set for a heading
	packet  store.Packet
}

func newWorkRowTemplate() fyne.CanvasObject {
	heading := widget.NewLabelWithStyle("Queued (0)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title := widget.NewLabel("packet title")
	title.Truncation = fyne.TextTruncateEllipsis
	// The second line is smaller, as in the other windows' lists, not
	// dimmer: low importance is hard to read on a selected row.
	info := widget.NewLabel("repository · P0 · attempt 0/3 · 1m")
	info.SizeName = theme.SizeNameCaptionText
	info.Truncation = fyne.TextTruncateEllipsis
	// The badge keeps the label's own inner padding from the row's edge.
	badge := container.New(layout.NewCustomPaddedLayout(0, 0, 0, theme.InnerPadding()), container.NewCenter(newTextBadge(labelUnlandedBadge, theme.ColorNameWarning, theme.ColorNameForegroundOnWarning)))
	top := container.NewBorder(nil, nil, nil, badge, title)
	packet := container.New(layout.NewCustomPaddedVBoxLayout(-2*theme.Padding()), top, info)
	return container.NewStack(heading, packet)
}

func (w *workWindow) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(w.rows) {
		return
	}
	r := w.rows[i]
	objs := o.(*fyne.Container).Objects
	heading, packet := objs[0].(*widget.Label), objs[1].(*fyne.Container)
	if r.heading != "" {
		heading.SetText(r.heading)
		heading.Show()
		packet.Hide()
		return
	}
	heading.Hide()
	packet.Show()
	p := r.packet
	top := packet.Objects[0].(*fyne.Container)
	top.Objects[0].(*widget.Label).SetText(p.Title)
	if badge := top.Objects[1]; badge.Visible() != unlanded(p) {
		if unlanded(p) {
			badge.Show()
		} else {
			badge.Hide()
		}
		// The title takes the badge's room, or gives it back: a
		// container lays out again only when refreshed.
		top.Refresh()
	}
	packet.Objects[1].(*widget.Label).SetText(w.rowInfo(p))
}

// rowInfo is a packet's second line in the list.
func (w *workWindow) rowInfo(p store.Packet) string {
	parts := []string{w.repoName(p.RepositoryID), fmt.Sprintf("P%d", p.Priority),
		fmt.Sprintf("attempt %d/%d", p.Attempt, p.MaxAttempts), workAge(w.now().Sub(p.CreatedAt))}
	if p.State == store.PacketClaimed {
		parts = append(parts, "claimed")
	}
	return strings.Join(parts, " · ")
}

// age is a short duration: 12s, 5m, 3h, 2d.
func workAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// groupRows orders packets into headed groups; an empty group is left out.
// The queue is shown in claim order (priority, then age); the other groups
// newest first, as listed.
func workGroupRows(packets []store.Packet) []workRow {
	var rows []workRow
	for _, grp := range workStates {
		var in []store.Packet
		for _, p := range packets {
			if slices.Contains(grp.states, p.State) {
				in = append(in, p)
			}
		}
		if len(in) == 0 {
			continue
		}
		if grp.states[0] == store.PacketQueued {
			slices.SortStableFunc(in, func(a, b store.Packet) int {
				if a.Priority != b.Priority {
					return b.Priority - a.Priority
				}
				return int(a.Seq) - int(b.Seq)
			})
		}
		rows = append(rows, workRow{heading: fmt.Sprintf("%s (%d)", grp.title, len(in))})
		for _, p := range in {
			rows = append(rows, workRow{packet: p})
		}
	}
	return rows
}

// reload reads the repositories and the packets and shows them, keeping the
// selection.
func (w *workWindow) reload() {
	repos, err := invoke(w.g, mcpserver.MethodRepositoryList, mcpserver.NoArgs{})
	if err != nil {
		w.fail("Repositories could not be read", err)
		return
	}
	w.setRepos(repos.Repositories)
	list, err := invoke(w.g, mcpserver.MethodWorkList, store.PacketFilter{RepositoryID: w.filterID, Limit: workListLimit})
	if err != nil {
		w.fail("Packets could not be read", err)
		return
	}
	w.packets = list.Packets
	w.showRows()
	if w.selected != "" {
		w.loadDetail()
	}
}

// showRows lists the packets the filter lets through, keeping the
// selection highlighted when its packet is among them.
func (w *workWindow) showRows() {
	w.rows = workGroupRows(w.shownPackets())
	w.sizeRows()
	w.list.Refresh()
	w.selectRow()
}

// sizeRows gives headings their own, lower height.
func (w *workWindow) sizeRows() {
	tmpl := newWorkRowTemplate().(*fyne.Container)
	hh := tmpl.Objects[0].MinSize().Height
	ph := tmpl.Objects[1].MinSize().Height
	for i, r := range w.rows {
		if r.heading != "" {
			w.list.SetItemHeight(i, hh)
		} else {
			w.list.SetItemHeight(i, ph)
		}
	}
}

// selectRow highlights the selected packet's row, wherever it moved.
func (w *workWindow) selectRow() {
	for i, r := range w.rows {
		if r.heading == "" && r.packet.ID == w.selected {
			w.list.Select(i)
			return
		}
	}
	w.list.UnselectAll()
}

func (w *workWindow) setRepos(repos []store.Repository) {
	w.repos = repos
	w.repoByID = make(map[string]store.Repository, len(repos))
	opts := []string{labelWorkAllRepos}
	for _, r := range repos {
		w.repoByID[r.ID] = r
		opts = append(opts, w.repoLabel(r))
	}
	if !slices.Equal(opts, w.repoFilter.Options) {
		w.repoFilter.SetOptions(opts)
	}
}

// repoLabel names a repository in a select; the id is added when two share
// a name.
func (w *workWindow) repoLabel(r store.Repository) string {
	name := workRepoDisplayName(r)
	for _, o := range w.repos {
		if o.ID != r.ID && workRepoDisplayName(o) == name {
			return name + " (" + r.ID + ")"
		}
	}
	return name
}

func (w *workWindow) repoIDOf(label string) string {
	for _, r := range w.repos {
		if w.repoLabel(r) == label {
			return r.ID
		}
	}
	return ""
}

func workRepoDisplayName(r store.Repository) string {
	if r.Name != "" {
		return r.Name
	}
	return filepath.Base(r.Path)
}

func (w *workWindow) repoName(id string) string {
	if r, ok := w.repoByID[id]; ok {
		return workRepoDisplayName(r)
	}
	return id
}
