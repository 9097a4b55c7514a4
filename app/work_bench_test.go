package app

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-dev/switchboard/store"
)

// benchWorkPackets are n packets spread over every state and three
// repositories, as the window holds them after a read.
func benchWorkPackets(n int) []store.Packet {
	states := []store.PacketState{store.PacketQueued, store.PacketClaimed, store.PacketInProgress, store.PacketInReview,
		store.PacketDone, store.PacketFailed, store.PacketCancelled}
	now := time.Now()
	out := make([]store.Packet, n)
	for i := range out {
		p := store.Packet{ID: fmt.Sprintf("pkt_%020d", i), RepositoryID: fmt.Sprintf("rep_%d", i%3),
			Title: fmt.Sprintf("Packet number %d of the benchmark", i), State: states[i%len(states)], Seq: uint64(i),
			Priority: i % 4, Attempt: i % 3, MaxAttempts: 3, CreatedAt: now.Add(-time.Duration(i) * time.Minute)}
		if p.State == store.PacketDone && i%2 == 0 {
			p.Changes = &store.PacketChanges{Branch: "b", BaseBranch: "main"}
		}
		if p.State == store.PacketClaimed || p.State == store.PacketInProgress {
			p.Lease = &store.Lease{SessionID: fmt.Sprintf("ses_%d", i), ClaimedAt: now}
		}
		out[i] = p
	}
	return out
}

// BenchmarkWorkReload5000: what the window does per committed change
// once the packets are read (the registry's read is measured by the
// store's benchmarks): 5,000 packets, one of them changed, shown again.
// "frame" also draws the window with the test driver's software painter
// (slower than the OpenGL one the app uses), which paints every card on
// screen whatever the number of packets.
func BenchmarkWorkReload5000(b *testing.B) {
	for _, frame := range []bool{false, true} {
		name := "show"
		if frame {
			name = "frame"
		}
		b.Run(name, func(b *testing.B) {
			a := test.NewTempApp(b)
			log, _ := newTestLogger()
			g := &gui{app: a, core: newFakeCore(b, &fakeBackend{endpoint: testEndpoint, token: testToken}), log: log, quit: func() {}}
			// The main window's board view, alone in a window.
			w, content := newWorkView(g, a.NewWindow("board"), true)
			w.win.SetContent(content)
			defer w.win.Close()
			w.win.Resize(fyne.NewSize(1200, 760))
			w.win.Show()
			w.packets = benchWorkPackets(5000)
			w.showRows()
			w.win.Canvas().Capture()
			i := 0
			for b.Loop() {
				p := &w.packets[i%len(w.packets)]
				p.Attempt = (p.Attempt + 1) % 3
				i++
				w.showRows()
				if frame {
					w.win.Canvas().Capture()
				}
			}
		})
	}
}
