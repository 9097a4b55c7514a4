package app

import (
	"fmt"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Titles of what a pull-request landing did, also what the tests look for.
const (
	titlePROpened   = "Pull request opened"
	titleBranchOnly = "Branch pushed, no pull request"
	labelPRClose    = "Close"
	ghSetup         = "To have Switchboard open it next time, install the GitHub CLI (https://cli.github.com) and sign in once in a terminal with: gh auth login"
)

// showPullRequest says, in a dialog that stays until it is closed, what a
// pull-request landing did: the pull request's address, as a link that
// opens it, or the branch it pushed and why no pull request was opened,
// with how to set gh up. The base branch does not move either way, and the
// dialog says so. It reports false for any other landing.
func (r *changesReview) showPullRequest(res mcpserver.LandResult) bool {
	l := res.Packet.Landed
	if l == nil || l.Mode != string(store.LandingPullRequest) {
		return false
	}
	pushed := fmt.Sprintf("Pushed %s to %s. %s does not move until the pull request is merged.", l.Branch, l.Remote, r.v.base)
	title := titlePROpened
	items := []fyne.CanvasObject{wrappedLabel(pushed)}
	if u, ok := pullRequestURL(l); ok {
		items = append(items, widget.NewHyperlink(u.String(), u))
	} else {
		title = titleBranchOnly
		why := res.Note
		if why == "" {
			why = "gh gave no address"
		}
		items = append(items, wrappedLabel("No pull request was opened: "+why+"."), wrappedLabel(ghSetup))
	}
	d := dialog.NewCustom(title, labelPRClose, container.NewVBox(items...), r.v.win)
	d.Resize(fyne.NewSize(560, d.MinSize().Height))
	d.Show()
	r.v.note(title)
	return true
}

// wrappedLabel is a label of text that wraps at the width it is given.
func wrappedLabel(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// landedText is what a packet's subtitle says of its landing: " · landed
// on its base by MODE as COMMIT", or for a pull request where its branch
// went; "" before it lands.
func landedText(l *store.PacketLanding) string {
	switch {
	case l == nil:
		return ""
	case l.Mode == string(store.LandingPullRequest):
		return fmt.Sprintf(" · pushed %s to %s for a pull request", l.Branch, l.Remote)
	default:
		return fmt.Sprintf(" · landed by %s as %s", strings.ToLower(landModeLabel(store.Landing(l.Mode))), shortCommit(l.Commit))
	}
}

// showPullRequestLink points link at the pull request a landing opened,
// saying its state when known (gh's OPEN, MERGED, CLOSED), or hides it.
func showPullRequestLink(link *widget.Hyperlink, l *store.PacketLanding, state string) {
	u, ok := pullRequestURL(l)
	if !ok {
		link.Hide()
		return
	}
	what := "Pull request"
	if state != "" {
		what += " (" + strings.ToLower(state) + ")"
	}
	link.SetText(what + ": " + u.String())
	link.SetURL(u)
	link.Show()
}

// pullRequestURL is the address of the pull request l opened, when it is a
// web address.
func pullRequestURL(l *store.PacketLanding) (*url.URL, bool) {
	if l == nil || l.URL == "" {
		return nil, false
	}
	u, err := url.Parse(l.URL)
	return u, err == nil && (u.Scheme == "https" || u.Scheme == "http")
}

// readPullRequestState asks, off the Fyne goroutine, what became of the
// pull request p's landing opened, and puts it in the link's words while p
// is still the packet shown. Only on the person's own read, not a
// refresh's: gh reaches the network.
func (w *workWindow) readPullRequestState(p store.Packet) {
	if _, ok := pullRequestURL(p.Landed); !ok || w.stateAsked == p.ID {
		return
	}
	w.stateAsked, w.prState = p.ID, ""
	w.g.background(func() {
		st, err := invoke(w.g, mcpserver.MethodWorkPullRequestState, mcpserver.WorkGetArgs{PacketID: p.ID})
		if err != nil || st.State == "" {
			return // the link stands as it is
		}
		fyne.Do(func() {
			if w.stateAsked == p.ID {
				w.prState = st.State
				showPullRequestLink(w.prLink, p.Landed, st.State)
			}
		})
	})
}
