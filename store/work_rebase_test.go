package store

import (
	"strings"
	"testing"
)

// RebasePacket moves a done or in_review packet's range to the rebased
// one, keeps the agent's range (the first, over two rebases) and says so
// in the history; it refuses a packet not waiting to land and a range
// that is not one.
func TestRebasePacket(t *testing.T) {
	a, b, c, d := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40), strings.Repeat("d", 40)
	for _, tc := range []struct {
		name    string
		review  bool    // completed into in_review
		verdict Verdict // then judged
		land    bool
		r       PacketRange
		want    Code
	}{
		{name: "done", r: PacketRange{Branch: "switchboard/x-rebased", From: c, To: d}},
		{name: "in review", review: true, r: PacketRange{Branch: "switchboard/x-rebased", From: c, To: d}},
		{name: "sent back", review: true, verdict: VerdictRequestChanges, r: PacketRange{Branch: "switchboard/x-rebased", From: c, To: d}, want: CodeInvalidState},
		{name: "landed", land: true, r: PacketRange{Branch: "switchboard/x-rebased", From: c, To: d}, want: CodeInvalidState},
		{name: "short id", r: PacketRange{Branch: "switchboard/x-rebased", From: c[:12], To: d}, want: CodeInvalidArgument},
		{name: "no branch", r: PacketRange{From: c, To: d}, want: CodeInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkEnv(t)
			w.create(PacketSpec{ReviewRequired: tc.review})
			p := w.claim("ses_1")
			changes := &PacketChanges{SessionID: "ses_1", Branch: "switchboard/x", BaseBranch: "main", From: a, To: b, Files: 1}
			if _, err := w.pkt(func(tx *Tx) (Packet, error) {
				return tx.CompletePacket(p.ID, &Session{ID: p.Lease.SessionID}, p.Lease.ID, Completion{Summary: "done", Changes: changes})
			}); err != nil {
				t.Fatal(err)
			}
			if tc.verdict != "" {
				if _, err := w.verdict(p.ID, tc.verdict, "n"); err != nil {
					t.Fatal(err)
				}
			}
			if tc.land {
				if _, err := w.pkt(func(tx *Tx) (Packet, error) {
					return tx.MarkPacketLanded(p.ID, PacketLanding{Commit: b, Mode: "merge"})
				}); err != nil {
					t.Fatal(err)
				}
			}
			before := w.get(p.ID)
			got, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.RebasePacket(p.ID, tc.r) })
			if CodeOf(err) != tc.want {
				t.Fatalf("RebasePacket: %v, want %q", err, tc.want)
			}
			if tc.want != "" {
				if after := w.get(p.ID); *after.Changes != *before.Changes || len(after.History) != len(before.History) {
					t.Errorf("a refused rebase changed the packet: %+v", after.Changes)
				}
				return
			}
			agent := PacketRange{Branch: "switchboard/x", From: a, To: b}
			ch := w.get(p.ID).Changes
			if ch.Branch != tc.r.Branch || ch.From != c || ch.To != d || ch.RebasedFrom == nil || *ch.RebasedFrom != agent || ch.SessionID != "ses_1" || ch.Files != 1 {
				t.Errorf("Changes = %+v (rebased from %+v)", ch, ch.RebasedFrom)
			}
			last := got.History[len(got.History)-1]
			if last.From != before.State || last.To != before.State || !strings.Contains(last.Reason, "rebased onto main") || got.State != before.State {
				t.Errorf("the history's last transition: %+v", last)
			}
			// Again: the agent's range is the one kept.
			again, err := w.pkt(func(tx *Tx) (Packet, error) {
				return tx.RebasePacket(p.ID, PacketRange{Branch: tc.r.Branch, From: b, To: a})
			})
			if err != nil || *again.Changes.RebasedFrom != agent || again.Changes.To != a {
				t.Errorf("rebased twice: %+v, %v", again.Changes, err)
			}
		})
	}
}
