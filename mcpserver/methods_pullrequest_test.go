package mcpserver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// What became of a packet's pull request is gh's answer; without gh the
// address stands and the note says why; a packet that opened none is
// refused.
func TestWorkPullRequestState(t *testing.T) {
	const url = "https://github.com/o/r/pull/7"
	f := newFixture(t)
	repo := f.registerRepo(t, t.TempDir())
	landed := func(u string) string {
		var id string
		f.update(t, func(tx *store.Tx) error {
			p, err := tx.CreatePacket(store.PacketSpec{RepositoryID: repo.ID, Title: "x"})
			if err != nil {
				return err
			}
			c, _, err := tx.ClaimPacket(repo.ID, "ses_a", time.Minute)
			if err != nil {
				return err
			}
			if _, err := tx.CompletePacket(c.ID, &store.Session{ID: "ses_a"}, c.Lease.ID, store.Completion{Summary: "done", Changes: &store.PacketChanges{SessionID: "ses_a", Branch: "switchboard/x", BaseBranch: "main", From: strings.Repeat("1", 40), To: strings.Repeat("2", 40)}}); err != nil {
				return err
			}
			id = p.ID
			_, err = tx.MarkPacketLanded(p.ID, store.PacketLanding{Commit: strings.Repeat("a", 40), Mode: string(store.LandingPullRequest), URL: u, Remote: "origin", Branch: "switchboard/x"})
			return err
		})
		return id
	}
	bin := t.TempDir()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(git, filepath.Join(bin, "git")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	ctx := context.Background()
	pr := landed(url)
	got, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkPullRequestState, WorkGetArgs{PacketID: pr})
	if err != nil || got.URL != url || got.State != "" || !strings.Contains(got.Note, "not installed") {
		t.Fatalf("without gh: %+v, %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\necho MERGED\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, err = Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkPullRequestState, WorkGetArgs{PacketID: pr})
	if err != nil || got.State != "MERGED" || got.Note != "" {
		t.Fatalf("with gh: %+v, %v", got, err)
	}
	none := landed("")
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkPullRequestState, WorkGetArgs{PacketID: none}); store.CodeOf(err) != store.CodeInvalidState {
		t.Errorf("a packet with no pull request: %v; want invalid_state", err)
	}
}
