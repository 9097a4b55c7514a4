package app

// The Changes view's Land ▾: a landing mode chosen from a menu (the
// repository's default first), what that landing would do shown
// (work.land_plan: the target branch, the mode, the commits and the
// files) and confirmed once, then the landing off the UI goroutine.
// Approve only records a verdict; nothing lands but through here.

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Labels of the landing, also what the tests look for.
const (
	labelLand          = "Land ▾"
	labelLandConfirm   = "Land"
	labelLandPush      = "Push and open"
	labelLandDismiss   = "Cancel"
	titleLandPlan      = "Land these changes?"
	labelLandDefault   = " (default)"
	maxLandPlanListing = 12 // commits or files listed before "and N more"
)

// landModes are the landing modes in the order the menu lists them after
// the repository's default, with their names for people.
var landModes = []struct {
	mode  store.Landing
	label string
}{
	{store.LandingMerge, "Merge"},
	{store.LandingSquash, "Squash"},
	{store.LandingRebase, "Rebase"},
	{store.LandingPullRequest, "Pull request"},
}

// landModeLabel is mode's name for people.
func landModeLabel(mode store.Landing) string {
	for _, m := range landModes {
		if m.mode == mode {
			return m.label
		}
	}
	return string(mode)
}

// readLanding reads the repository's landing mode, the menu's first; a
// repository that cannot be read lands by merge, as work.land would.
func (v *changesView) readLanding(repoID string) {
	v.landDefault = store.LandingMerge
	list, err := invoke(v.g, mcpserver.MethodRepositoryList, mcpserver.NoArgs{})
	if err != nil {
		return
	}
	if i := slices.IndexFunc(list.Repositories, func(r store.Repository) bool { return r.ID == repoID }); i >= 0 && list.Repositories[i].Landing != "" {
		v.landDefault = list.Repositories[i].Landing
	}
}

// landMenu is Land ▾'s menu: the repository's default mode first, marked
// so, then the others.
func (r *changesReview) landMenu() *fyne.Menu {
	def := r.v.landDefault
	items := []*fyne.MenuItem{fyne.NewMenuItem(landModeLabel(def)+labelLandDefault, func() { r.planLanding(def) })}
	for _, m := range landModes {
		if m.mode != def {
			mode := m.mode
			items = append(items, fyne.NewMenuItem(m.label, func() { r.planLanding(mode) }))
		}
	}
	return fyne.NewMenu("", items...)
}

// showLandMenu opens Land ▾'s menu above the button, which sits at the
// window's foot: below it the menu would cover the button itself.
func (r *changesReview) showLandMenu() {
	r.menu = widget.NewPopUpMenu(r.landMenu(), r.v.win.Canvas())
	r.menu.ShowAtRelativePosition(fyne.NewPos(0, -r.menu.MinSize().Height), r.land)
}

// planLanding asks what landing by mode would do, off the Fyne goroutine
// (git reads the range), and shows it for the person to confirm.
func (r *changesReview) planLanding(mode store.Landing) {
	v := r.v
	r.land.Disable()
	v.showStatus("Reading what landing would do…", widget.MediumImportance)
	args := mcpserver.WorkLandArgs{PacketID: v.src.packetID, Mode: string(mode)}
	v.g.background(func() {
		plan, err := callWithin(v.g, landTimeout, mcpserver.TransportGUI, mcpserver.MethodWorkLandPlan, args)
		fyne.Do(func() {
			v.mu.Lock()
			defer v.mu.Unlock()
			r.land.Enable()
			if err != nil {
				v.fail("Not landed", err)
				return
			}
			v.status.Hide()
			r.confirmLanding(plan)
		})
	})
}

// confirmLanding shows the plan and lands by its mode on the person's
// word; Cancel moves nothing. A plan with no commit has nothing to land.
func (r *changesReview) confirmLanding(plan mcpserver.LandPlanResult) {
	text := landPlanText(plan)
	body := widget.NewLabel(text)
	body.Wrapping = fyne.TextWrapWord
	body.TextStyle.Monospace = true
	r.planText = text
	content := container.NewVScroll(body)
	content.SetMinSize(fyne.NewSize(560, 280))
	if len(plan.Commits) == 0 {
		dialog.NewCustom(titleLandPlan, "Close", content, r.v.win).Show()
		return
	}
	confirm := labelLandConfirm
	if plan.Remote != "" {
		confirm = labelLandPush
	}
	d := dialog.NewCustomConfirm(titleLandPlan, confirm, labelLandDismiss, content, func(ok bool) {
		if ok {
			r.landBy(store.Landing(plan.Mode))
		}
	}, r.v.win)
	d.SetConfirmImportance(widget.SuccessImportance)
	d.Show()
}

// landPlanText is a plan for people: where, how, which commits and which
// files, listing at most maxLandPlanListing of each.
func landPlanText(p mcpserver.LandPlanResult) string {
	var b strings.Builder
	def := ""
	if p.Mode == p.DefaultMode {
		def = ", the repository's default"
	}
	switch {
	case p.Remote != "":
		fmt.Fprintf(&b, "Push %s to %s and open a pull request into %s%s.\n%s does not move.\n", p.Branch, p.Remote, p.Target, def, p.Target)
	default:
		fmt.Fprintf(&b, "Onto %s (now at %s), by %s%s,\nfrom %s.\n", p.Target, shortCommit(p.TargetCommit), strings.ToLower(landModeLabel(store.Landing(p.Mode))), def, p.Branch)
	}
	if len(p.Commits) == 0 {
		fmt.Fprintf(&b, "\n%s already holds every commit of this packet: there is nothing to land.\n", p.Target)
		return b.String()
	}
	fmt.Fprintf(&b, "\n%s:\n", count(len(p.Commits)+p.MoreCommits, "commit", "commits"))
	for i, c := range p.Commits {
		if i == maxLandPlanListing {
			fmt.Fprintf(&b, "  … and %d more\n", len(p.Commits)-i+p.MoreCommits)
			break
		}
		fmt.Fprintf(&b, "  %s  %s\n", shortCommit(c.Commit), c.Subject)
	}
	fmt.Fprintf(&b, "\n%s:\n", count(len(p.Files)+p.MoreFiles, "file", "files"))
	for i, f := range p.Files {
		if i == maxLandPlanListing {
			fmt.Fprintf(&b, "  … and %d more\n", len(p.Files)-i+p.MoreFiles)
			break
		}
		if f.OldPath != "" {
			fmt.Fprintf(&b, "  %s  %s → %s\n", f.Status, f.OldPath, f.Path)
		} else {
			fmt.Fprintf(&b, "  %s  %s\n", f.Status, f.Path)
		}
	}
	return b.String()
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// landBy lands the packet by mode. The landing runs off the Fyne
// goroutine, with a landing's own time (landTimeout): git may take a
// while on a large repository, and the window must neither freeze nor
// cut the landing short meanwhile. Land ▾ waits.
func (r *changesReview) landBy(mode store.Landing) {
	v := r.v
	r.land.Disable()
	v.showStatus("Landing on "+v.base+" by "+strings.ToLower(landModeLabel(mode))+"…", widget.MediumImportance)
	args := mcpserver.WorkLandArgs{PacketID: v.src.packetID, Mode: string(mode)}
	v.g.background(func() {
		res, err := callWithin(v.g, landTimeout, mcpserver.TransportGUI, mcpserver.MethodWorkLand, args)
		fyne.Do(func() {
			v.mu.Lock()
			defer v.mu.Unlock()
			r.land.Enable()
			r.showLanding(res, err)
		})
	})
}

// newLandButton is Land ▾, which opens the menu of modes.
func newLandButton(r *changesReview) *widget.Button {
	b := widget.NewButtonWithIcon(labelLand, theme.UploadIcon(), r.showLandMenu)
	b.Importance = widget.HighImportance
	return b
}
