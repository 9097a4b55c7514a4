package app

// The Work board's packets: reading them, and the filters above the
// board (repository; all packets or the unlanded ones).

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// The packet filter's choices.
const (
	labelWorkAllPackets = "All"
	labelWorkUnlanded   = "Unlanded"
)

// unlanded is true for a done packet whose commits have not reached their
// base branch: work that is finished and approved but only on the agent's
// branch, which the person still has to land (or discard).
func unlanded(p store.Packet) bool {
	return p.State == store.PacketDone && p.Changes != nil && p.Landed == nil
}

// filterBar is the row above the board: the repository and which packets,
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

// reload reads the repositories and the packets and shows them, keeping the
// selection.
func (w *workWindow) reload() {
	repos, err := view(w.g, mcpserver.MethodRepositoryList, mcpserver.NoArgs{})
	if err != nil {
		w.fail("Repositories could not be read", err)
		return
	}
	w.setRepos(repos.Repositories)
	list, err := view(w.g, mcpserver.MethodWorkList, store.PacketFilter{RepositoryID: w.filterID, Limit: workListLimit})
	if err != nil {
		w.fail("Packets could not be read", err)
		return
	}
	w.packets = list.Packets
	if err := w.readConflicts(); err != nil {
		w.fail("Conflicts could not be read", err)
	}
	w.showRows()
	if w.selected != "" {
		w.loadDetail(mcpserver.TransportGUIView)
	}
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
