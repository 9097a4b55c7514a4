package mcpserver

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
	"github.com/switchboard-dev/switchboard/store"
)

// An agent waiting for the answer to its question hears at once that a
// packet of its came back with changes requested: its wait (far longer than
// the test allows) ends with the packet named and the reviewer's notes, and
// the question stays open. A packet sent back before it asked does not end
// the wait.
func TestSentBackEndsAWaitForAnAnswer(t *testing.T) {
	dir := personGitRepo(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, dir)
	a := newGitAgent(t, f, repo, t.TempDir())
	for _, title := range []string{"A", "B"} {
		if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate, WorkCreateArgs{RepositoryID: repo.ID, Title: title}); err != nil {
			t.Fatal(err)
		}
	}
	var done []store.Packet
	for i, body := range []string{"a, edited\n", "a, edited again\n"} {
		got := a.claim(t, repo.ID)
		gittest.WriteFile(t, filepath.Join(a.ws.Path, "a.txt"), body)
		p, err := a.complete(got)
		if err != nil {
			t.Fatalf("completion %d: %v", i, err)
		}
		done = append(done, p)
	}
	sendBack := func(p store.Packet, notes string) {
		t.Helper()
		if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodReviewVerdict, VerdictArgs{PacketID: p.ID, Verdict: store.VerdictRequestChanges, Notes: notes}); err != nil {
			t.Fatal(err)
		}
	}
	sendBack(done[0], "before the question")
	f.clock.Add(1) // the question is asked after that verdict
	asked, err := Invoke(ctx, f.reg, a.p, TransportMCP, MethodSessionReport, ReportArgs{SessionID: a.ses, Kind: string(store.ReportQuestion), Text: "which port?"})
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Add(1)

	answer := make(chan AnswerResult, 1)
	go func() {
		res, err := Invoke(ctx, f.reg, a.p, TransportMCP, MethodSessionAwaitAnswer, AwaitAnswerArgs{QuestionID: asked.QuestionID, WaitSeconds: 60})
		if err != nil {
			t.Error(err)
		}
		answer <- res
	}()
	waitParked(t, f.reg, QuestionKey(asked.QuestionID), "the wait for the answer to park")
	sendBack(done[1], "rename it")
	// The wait lasts 60 s: a wake-up takes milliseconds, and only a
	// wake-up ends it within half of that.
	var res AnswerResult
	select {
	case res = <-answer:
	case <-time.After(30 * time.Second):
		t.Fatal("the verdict did not wake the wait for the answer")
	}
	if res.Answered || len(res.ChangesRequested) != 1 || res.ChangesRequested[0].PacketID != done[1].ID || res.ChangesRequested[0].Notes != "rename it" {
		t.Fatalf("the wait ended with %+v; want packet %s sent back, unanswered", res, done[1].ID)
	}
	f.view(t, func(tx *store.Tx) error {
		q, err := tx.Question(asked.QuestionID)
		if err != nil || q.Answered() {
			t.Errorf("the question after the wait: %+v, %v; want it open", q, err)
		}
		return nil
	})
}
