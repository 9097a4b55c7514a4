package store

import (
	"strings"
	"testing"
)

// MarkPacketLanded records each mode, a pull request's address, remote
// and branch with it, and refuses what is not a landing.
func TestMarkPacketLanded(t *testing.T) {
	commit := strings.Repeat("ab", 20)
	for _, tc := range []struct {
		name string
		l    PacketLanding
		want Code
	}{
		{"merge", PacketLanding{Commit: commit, Mode: "merge"}, ""},
		{"rebase", PacketLanding{Commit: commit, Mode: "rebase"}, ""},
		{"pull request", PacketLanding{Commit: commit, Mode: "pull-request", URL: "https://github.test/o/r/pull/7", Remote: "origin", Branch: "switchboard/3f2a9c1e-x"}, ""},
		{"pull request without gh", PacketLanding{Commit: commit, Mode: "pull-request", Remote: "origin", Branch: "switchboard/3f2a9c1e-x"}, ""},
		{"no mode", PacketLanding{Commit: commit}, CodeInvalidArgument},
		{"unknown mode", PacketLanding{Commit: commit, Mode: "octopus"}, CodeInvalidArgument},
		{"short commit", PacketLanding{Commit: commit[:12], Mode: "merge"}, CodeInvalidArgument},
		{"not a web address", PacketLanding{Commit: commit, Mode: "pull-request", URL: "file:///etc/passwd"}, CodeInvalidArgument},
		{"address too long", PacketLanding{Commit: commit, Mode: "pull-request", URL: "https://x/" + strings.Repeat("p", 3000)}, CodeInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkEnv(t)
			w.create(PacketSpec{})
			p := w.claim("ses_1")
			changes := &PacketChanges{SessionID: "ses_1", Branch: "switchboard/x", BaseBranch: "main", From: commit, To: commit}
			if _, err := w.pkt(func(tx *Tx) (Packet, error) {
				return tx.CompletePacket(p.ID, &Session{ID: p.Lease.SessionID}, p.Lease.ID, Completion{Summary: "done", Changes: changes})
			}); err != nil {
				t.Fatal(err)
			}
			got, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.MarkPacketLanded(p.ID, tc.l) })
			if CodeOf(err) != tc.want {
				t.Fatalf("MarkPacketLanded(%+v): %v, want %q", tc.l, err, tc.want)
			}
			if tc.want != "" {
				if w.get(p.ID).Landed != nil {
					t.Error("a refused landing was recorded")
				}
				return
			}
			want := tc.l
			want.At = got.Landed.At
			if *got.Landed != want || got.Landed.At.IsZero() || *w.get(p.ID).Landed != *got.Landed {
				t.Errorf("Landed = %+v, want %+v", got.Landed, want)
			}
			if _, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.MarkPacketLanded(p.ID, tc.l) }); CodeOf(err) != CodeInvalidState {
				t.Errorf("landing twice: %v, want invalid_state", err)
			}
		})
	}
}
