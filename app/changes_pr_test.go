package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/store"
)

// A pull-request landing says what it did and stays said: the pull
// request's link when gh opened one; otherwise the branch pushed, why no
// pull request was opened and how to set gh up.
func TestChangesPullRequestLanding(t *testing.T) {
	const pr = "https://github.com/example/demo/pull/7"
	for _, tc := range []struct {
		name, url, note string
		title           string
		want            []string
		link            bool
	}{
		{"opened", pr, "", titlePROpened, []string{"Pushed switchboard/d41c8e2f-greet to origin.", "main does not move"}, true},
		{"no gh", "", "gh (the GitHub CLI) is not installed: open the pull request by hand", titleBranchOnly,
			[]string{"Pushed switchboard/d41c8e2f-greet to origin.", "No pull request was opened: gh (the GitHub CLI) is not installed", "gh auth login"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := test.NewTempApp(t)
			f := &changesFake{diff: readSmallDiff(t), prURL: tc.url, prNote: tc.note}
			g := newChangesGUI(t, a, changesPacket(store.PacketDone), f)
			v := g.showPacketChanges(changesPkt)
			defer v.closeWin()
			v.landThrough(t, 3) // Pull request
			test.Tap(dialogButton(t, v.win, labelLandPush))
			g.busy.Wait()
			if _, lands := f.calls(); len(lands) != 1 || lands[0].Mode != string(store.LandingPullRequest) {
				t.Fatalf("lands: %+v", lands)
			}
			top := v.win.Canvas().Overlays().Top()
			if top == nil {
				t.Fatal("no dialog after the landing")
			}
			all := strings.Join(textsIn(top), "\n")
			for _, w := range append([]string{tc.title}, tc.want...) {
				if !strings.Contains(all, w) {
					t.Errorf("the dialog lacks %q:\n%s", w, all)
				}
			}
			link, ok := findIn(top, func(h *widget.Hyperlink) bool { return true })
			if ok != tc.link || ok && link.URL.String() != tc.url {
				t.Errorf("link %v (%v), want %v %q", ok, link, tc.link, tc.url)
			}
			dialogButton(t, v.win, labelPRClose)
		})
	}
}

// What a packet's subtitle says of its landing, and the pull request link
// beside it: only a web address is a link.
func TestLandedText(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    *store.PacketLanding
		text string
		link string
	}{
		{"not landed", nil, "", ""},
		{"merged", &store.PacketLanding{Mode: "merge", Commit: "9c1d2e3f4a5b6c7d8e9f"}, " · landed by merge as 9c1d2e3f4a", ""},
		{"pull request", &store.PacketLanding{Mode: "pull-request", Branch: "switchboard/x", Remote: "origin", URL: "https://github.com/o/r/pull/7"},
			" · pushed switchboard/x to origin for a pull request", "https://github.com/o/r/pull/7"},
		{"no address", &store.PacketLanding{Mode: "pull-request", Branch: "switchboard/x", Remote: "origin", URL: "file:///etc/passwd"},
			" · pushed switchboard/x to origin for a pull request", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := landedText(tc.l); got != tc.text {
				t.Errorf("landedText = %q, want %q", got, tc.text)
			}
			link := widget.NewHyperlink("", nil)
			showPullRequestLink(link, tc.l, "")
			if got := ""; link.Visible() {
				if got = link.URL.String(); got != tc.link {
					t.Errorf("link %q, want %q", got, tc.link)
				}
			} else if tc.link != "" {
				t.Errorf("no link, want %q", tc.link)
			}
		})
	}
}

// A landing refused because the packet builds on another not landed yet
// offers that packet, in its own Changes view, to land first.
func TestChangesLandDependsOffersTheOther(t *testing.T) {
	a := test.NewTempApp(t)
	f := &changesFake{diff: readSmallDiff(t)}
	f.landErr = store.Deny(store.CodeDependsOnPacket, "pkt_2 builds on packet pkt_1, not landed on main: land both: pkt_1 first, then pkt_2").WithPackets([]string{"pkt_1"})
	g := newChangesGUI(t, a, changesPacket(store.PacketDone), f)
	v := g.showPacketChanges(changesPkt)
	defer v.closeWin()
	v.landThrough(t, 0)
	test.Tap(dialogButton(t, v.win, labelLandConfirm))
	g.busy.Wait()
	top := v.win.Canvas().Overlays().Top()
	if top == nil || !contains(textsIn(top), "land both: pkt_1 first") {
		t.Fatalf("no offer of the packet below: %v", top)
	}
	if _, ok := findIn(top, func(b *widget.Button) bool { return b.Text == labelOpenDepended+"pkt_1" }); !ok {
		t.Error("no button opening pkt_1")
	}
}

// The pull request's link says what became of it once gh has said.
func TestPullRequestLinkState(t *testing.T) {
	l := &store.PacketLanding{Mode: "pull-request", URL: "https://github.com/o/r/pull/7"}
	link := widget.NewHyperlink("", nil)
	showPullRequestLink(link, l, "MERGED")
	if link.Text != "Pull request (merged): https://github.com/o/r/pull/7" {
		t.Errorf("link %q", link.Text)
	}
}
