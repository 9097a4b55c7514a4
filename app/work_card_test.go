package app

import (
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// A card's session line says who holds the packet and, for one sent back
// with changes requested, that it waits for the agent that made them.
func TestCardSession(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	w := &workWindow{now: func() time.Time { return at.Add(3 * time.Minute) }}
	made := &store.PacketChanges{SessionID: "ses_maker"}
	for _, tc := range []struct {
		name string
		p    store.Packet
		want string
	}{
		{"queued", store.Packet{State: store.PacketQueued}, "3m"},
		{"leased", store.Packet{State: store.PacketInProgress, Lease: &store.Lease{SessionID: "ses_a"}}, "ses_a · 3m"},
		{"done", store.Packet{State: store.PacketDone, Changes: made}, "ses_maker · 3m"},
		{"sent back", store.Packet{State: store.PacketQueued, Changes: made, Review: &store.PacketReview{Verdict: store.VerdictRequestChanges}},
			"changes requested, waiting for ses_maker · 3m"},
		{"rejected", store.Packet{State: store.PacketQueued, Changes: made, Review: &store.PacketReview{Verdict: store.VerdictReject}}, "ses_maker · 3m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.p.CreatedAt = at
			if got := w.cardSession(tc.p); got != tc.want {
				t.Errorf("cardSession = %q, want %q", got, tc.want)
			}
		})
	}
}
