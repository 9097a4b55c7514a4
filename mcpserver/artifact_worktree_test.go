package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
	"github.com/switchboard-dev/switchboard/store"
)

// A path artifact of an agent in a worktree is its worktree's file: the
// person's checkout, with other work at the same path, is never read (its
// size and hash would tell the agent of it).
func TestPathArtifactInTheWorktree(t *testing.T) {
	top := personGitRepo(t, map[string]string{"README": "top\n"})
	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, top)
	a := newGitAgent(t, f, repo, t.TempDir())
	if _, err := Invoke(context.Background(), f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate,
		WorkCreateArgs{RepositoryID: repo.ID, Title: "Notes", WriteScope: []string{"notes.md"}}); err != nil {
		t.Fatal(err)
	}
	got := a.claim(t, repo.ID)
	mine, theirs := "the agent's notes\n", "the person's own draft, not committed\n"
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "notes.md"), mine)
	gittest.WriteFile(t, filepath.Join(top, "notes.md"), theirs)
	publish := func(content string) error {
		sum := sha256.Sum256([]byte(content))
		_, err := Invoke(context.Background(), f.reg, a.p, TransportMCP, MethodArtifactPublish, PublishArgs{
			PacketID: got.Packet.ID, SessionID: a.ses, LeaseID: got.LeaseID, Name: "notes", Path: "notes.md",
			SHA256: hex.EncodeToString(sum[:]), Size: int64(len(content))})
		return err
	}
	if err := publish(theirs); store.CodeOf(err) != store.CodeArtifactMismatch {
		t.Errorf("publishing the person's file as the agent's: %v, want artifact_mismatch", err)
	}
	if err := publish(mine); err != nil {
		t.Errorf("publishing the agent's own file: %v", err)
	}
}
