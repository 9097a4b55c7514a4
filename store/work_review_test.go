package store

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestReviewVerdicts(t *testing.T) {
	for _, c := range []struct {
		verdict Verdict
		want    PacketState
	}{
		{VerdictApprove, PacketDone},
		{VerdictRequestChanges, PacketQueued},
		{VerdictReject, PacketFailed},
	} {
		t.Run(string(c.verdict), func(t *testing.T) {
			w := newWorkEnv(t)
			p := w.create(PacketSpec{ReviewRequired: true})
			if _, err := w.verdict(p.ID, c.verdict, "n"); CodeOf(err) != CodeInvalidState {
				t.Errorf("verdict on queued packet = %v", err)
			}
			cl := w.claim("ses_a")
			if _, err := w.verdict(p.ID, c.verdict, "n"); CodeOf(err) != CodeInvalidState {
				t.Errorf("verdict on claimed packet = %v", err)
			}
			if _, err := w.complete(cl, "did it"); err != nil {
				t.Fatal(err)
			}
			if _, err := w.verdict(p.ID, "maybe", ""); CodeOf(err) != CodeInvalidArgument {
				t.Errorf("unknown verdict = %v", err)
			}
			if _, err := w.verdict("pkt_nope", c.verdict, ""); CodeOf(err) != CodeNotFound {
				t.Errorf("verdict on unknown packet = %v", err)
			}
			v, err := w.verdict(p.ID, c.verdict, "use the helper in util.go")
			if err != nil || v.State != c.want || v.ReviewNotes != "use the helper in util.go" {
				t.Fatalf("verdict = %+v, %v", v, err)
			}
			if r := v.History[len(v.History)-1]; r.Reason != string(c.verdict)+": use the helper in util.go" || r.From != PacketInReview {
				t.Errorf("verdict transition %+v", r)
			}
			if _, err := w.verdict(p.ID, c.verdict, ""); CodeOf(err) != CodeInvalidState {
				t.Errorf("second verdict = %v", err)
			}
			if c.verdict == VerdictRequestChanges {
				again := w.claim("ses_b")
				if again.ID != p.ID || again.ReviewNotes != "use the helper in util.go" || again.Attempt != 2 {
					t.Errorf("next claim after request_changes: %+v", again)
				}
			}
		})
	}
}

// packetIn makes a packet and brings it to state s. Claims use session
// "ses_<state>"; the packet is alone in its repository.
func (w *workEnv) packetIn(s PacketState) Packet {
	w.t.Helper()
	repo := w.addRepo(w.t.TempDir())
	p := w.create(PacketSpec{RepositoryID: repo.ID, ReviewRequired: s == PacketInReview, MaxAttempts: 1})
	if s == PacketQueued {
		return p
	}
	if s == PacketCancelled {
		p, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.CancelPacket(p.ID, "") })
		if err != nil {
			w.t.Fatal(err)
		}
		return p
	}
	p, ok, err := w.claimFrom(repo.ID, "ses_"+string(s), time.Minute)
	if err != nil || !ok {
		w.t.Fatalf("claim: %v %v", ok, err)
	}
	var err2 error
	switch s {
	case PacketClaimed:
	case PacketInProgress:
		p, err2 = w.ack(p, time.Minute)
	case PacketInReview, PacketDone:
		p, err2 = w.complete(p, "")
	case PacketFailed:
		// MaxAttempts 1: the first expiry fails it.
		lease := *p.Lease
		w.clock.Add(time.Minute)
		w.expire()
		p = w.get(p.ID)
		p.Lease = &lease // remembered so callers can try the dead lease
		w.clock.Add(-time.Minute)
	}
	if err2 != nil {
		w.t.Fatal(err2)
	}
	if got := w.get(p.ID).State; got != s {
		w.t.Fatalf("packetIn(%s) made a %s packet", s, got)
	}
	return p
}

func TestCancelAndRequeue(t *testing.T) {
	for _, s := range packetStates {
		t.Run(string(s), func(t *testing.T) {
			w := newWorkEnv(t)

			p := w.packetIn(s)
			got, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.CancelPacket(p.ID, "not needed") })
			if s.Terminal() {
				wantWorkCode(t, err, CodeInvalidState, "cancel "+string(s))
			} else if err != nil || got.State != PacketCancelled || got.Lease != nil ||
				got.History[len(got.History)-1].Reason != "not needed" {
				t.Errorf("cancel %s = %+v, %v", s, got, err)
			}
			if p.Lease != nil && err == nil {
				if _, err := w.ack(p, time.Minute); CodeOf(err) != CodeLeaseLost {
					t.Errorf("ack after cancel = %v", err)
				}
				if _, ok, _ := w.claimFrom(p.RepositoryID, "ses_x", time.Minute); ok {
					t.Error("a cancelled packet was claimed")
				}
			}

			q := w.packetIn(s)
			got, err = w.pkt(func(tx *Tx) (Packet, error) { return tx.RequeuePacket(q.ID, "try again") })
			switch s {
			case PacketFailed, PacketCancelled, PacketClaimed, PacketInProgress:
				if err != nil || got.State != PacketQueued || got.Attempt != 0 || got.Lease != nil {
					t.Fatalf("requeue %s = %+v, %v", s, got, err)
				}
				if q.Lease != nil {
					if _, err := w.complete(q, ""); CodeOf(err) != CodeLeaseLost {
						t.Errorf("complete with the lease from before the requeue = %v", err)
					}
				}
				again, ok, err := w.claimFrom(q.RepositoryID, "ses_y", time.Minute)
				if err != nil || !ok || again.ID != q.ID || again.Attempt != 1 {
					t.Errorf("claim after requeue = %+v, %v, %v", again, ok, err)
				}
			default:
				wantWorkCode(t, err, CodeInvalidState, "requeue "+string(s))
			}
		})
	}
	w := newWorkEnv(t)
	for name, fn := range map[string]func(tx *Tx) (Packet, error){
		"cancel":  func(tx *Tx) (Packet, error) { return tx.CancelPacket("pkt_nope", "") },
		"requeue": func(tx *Tx) (Packet, error) { return tx.RequeuePacket("pkt_nope", "") },
	} {
		_, err := w.pkt(fn)
		wantWorkCode(t, err, CodeNotFound, name+" unknown packet")
	}
}

// worker is a live session with a worktree, as the registry records one.
func (w *workEnv) worker() string {
	w.t.Helper()
	var id string
	if err := w.do(func(tx *Tx) error {
		s, err := tx.CreateSession(SessionSpec{Kind: SessionSupervised, RepositoryID: w.repo.ID})
		if err != nil {
			return err
		}
		id = s.ID
		_, err = tx.SetSessionWorkspace(id, Workspace{Path: "/wt/" + id, Branch: "switchboard/" + id, BaseBranch: "main", BaseCommit: strings.Repeat("a", 40)})
		return err
	}); err != nil {
		w.t.Fatal(err)
	}
	return id
}

// completeWithChanges completes a claimed packet as work.complete does in a
// worktree: with the commits it made, recorded as the session's head.
func (w *workEnv) completeWithChanges(p Packet, head string) (Packet, error) {
	w.t.Helper()
	return w.pkt(func(tx *Tx) (Packet, error) {
		ses, err := tx.Session(p.Lease.SessionID)
		if err != nil {
			return Packet{}, err
		}
		ch := &PacketChanges{SessionID: ses.ID, Branch: "switchboard/" + ses.ID, BaseBranch: "main", From: strings.Repeat("a", 40), To: head, Files: 1, Added: 1}
		return tx.CompletePacket(p.ID, &ses, p.Lease.ID, Completion{Summary: "did it", Changes: ch})
	})
}

func (w *workEnv) review(id string, r ReviewSpec) (Packet, error) {
	w.t.Helper()
	return w.pkt(func(tx *Tx) (Packet, error) { return tx.ReviewPacket(id, r) })
}

// A review's comments are kept as given, an empty side read as "new", and
// its notes mirrored into ReviewNotes; every bound refuses with
// invalid_argument and changes nothing.
func TestReviewComments(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	ok := ReviewComment{Path: "src/a.go", Line: 3, Side: SideOld, Text: "why?"}
	many := make([]ReviewComment, maxReviewComments+1)
	for i := range many {
		many[i] = ok
	}
	for _, c := range []struct {
		name string
		spec ReviewSpec
	}{
		{"notes too long", ReviewSpec{Notes: long(maxReviewNotes + 1)}},
		{"too many comments", ReviewSpec{Comments: many}},
		{"text too long", ReviewSpec{Comments: []ReviewComment{{Path: "a", Line: 1, Text: long(maxCommentText + 1)}}}},
		{"no text", ReviewSpec{Comments: []ReviewComment{{Path: "a", Line: 1, Text: " "}}}},
		{"path too long", ReviewSpec{Comments: []ReviewComment{{Path: long(maxCommentPath + 1), Line: 1, Text: "t"}}}},
		{"no path", ReviewSpec{Comments: []ReviewComment{{Line: 1, Text: "t"}}}},
		{"absolute path", ReviewSpec{Comments: []ReviewComment{{Path: "/etc/passwd", Line: 1, Text: "t"}}}},
		{"path up", ReviewSpec{Comments: []ReviewComment{{Path: "a/../../b", Line: 1, Text: "t"}}}},
		{"NUL in path", ReviewSpec{Comments: []ReviewComment{{Path: "a\x00b", Line: 1, Text: "t"}}}},
		{"negative line", ReviewSpec{Comments: []ReviewComment{{Path: "a", Line: -1, Text: "t"}}}},
		{"unknown side", ReviewSpec{Comments: []ReviewComment{{Path: "a", Line: 1, Side: "left", Text: "t"}}}},
		{"reviewer too long", ReviewSpec{By: long(maxWorkID + 1)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorkEnv(t)
			p := w.create(PacketSpec{ReviewRequired: true})
			if _, err := w.complete(w.claim("ses_a"), ""); err != nil {
				t.Fatal(err)
			}
			c.spec.Verdict = VerdictRequestChanges
			_, err := w.review(p.ID, c.spec)
			wantWorkCode(t, err, CodeInvalidArgument, c.name)
			if got := w.get(p.ID); got.State != PacketInReview || got.Review != nil {
				t.Errorf("a refused review changed the packet: %s, %+v", got.State, got.Review)
			}
		})
	}

	w := newWorkEnv(t)
	p := w.create(PacketSpec{ReviewRequired: true})
	if _, err := w.complete(w.claim("ses_a"), ""); err != nil {
		t.Fatal(err)
	}
	comments := append(many[:maxReviewComments-2:maxReviewComments-2],
		ReviewComment{Path: "b.go", Line: 0, Text: "the whole file"},
		ReviewComment{Path: "c.go", Line: 7, Text: long(maxCommentText)})
	got, err := w.review(p.ID, ReviewSpec{Verdict: VerdictRequestChanges, Notes: long(maxReviewNotes), Comments: comments, By: "operator"})
	if err != nil {
		t.Fatal(err)
	}
	r := got.Review
	if r == nil || r.Verdict != VerdictRequestChanges || r.By != "operator" || !r.At.Equal(w.clock.Now()) || len(r.Comments) != maxReviewComments || got.ReviewNotes != r.Notes {
		t.Fatalf("review %+v (notes mirrored: %v)", r, got.ReviewNotes == r.Notes)
	}
	if r.Comments[0] != ok || r.Comments[maxReviewComments-2].Side != SideNew || r.Comments[maxReviewComments-1].Text != long(maxCommentText) {
		t.Errorf("comments as stored: %+v, %+v", r.Comments[0], r.Comments[maxReviewComments-2:])
	}
	if h := got.History[len(got.History)-1]; !strings.HasPrefix(h.Reason, fmt.Sprintf("request_changes (%d line comments): xxx", maxReviewComments)) {
		t.Errorf("transition reason %q", h.Reason)
	}
	again := w.claim("ses_b")
	if again.ID != p.ID || again.Review == nil || len(again.Review.Comments) != maxReviewComments {
		t.Errorf("the next claim lost the review: %+v", again.Review)
	}
}

// A done packet whose changes have not landed takes a verdict as one in
// review does: request_changes sends it back, reject fails it, approve
// records the review and leaves it done. Once landed, or with no changes,
// it takes none.
func TestReviewUnlandedDone(t *testing.T) {
	head := strings.Repeat("b", 40)
	for _, c := range []struct {
		verdict Verdict
		want    PacketState
	}{
		{VerdictRequestChanges, PacketQueued},
		{VerdictReject, PacketFailed},
		{VerdictApprove, PacketDone},
	} {
		t.Run(string(c.verdict), func(t *testing.T) {
			w := newWorkEnv(t)
			ses := w.worker()
			p := w.create(PacketSpec{})
			done, err := w.completeWithChanges(w.claim(ses), head)
			if err != nil || done.State != PacketDone {
				t.Fatalf("complete = %s, %v", done.State, err)
			}
			comment := ReviewComment{Path: "greet.txt", Line: 1, Side: SideNew, Text: "rebase onto main"}
			got, err := w.review(p.ID, ReviewSpec{Verdict: c.verdict, Notes: "n", Comments: []ReviewComment{comment}})
			if err != nil || got.State != c.want || got.Review == nil || got.Review.Comments[0] != comment || got.Changes == nil || got.Changes.To != head || got.Review.To != head {
				t.Fatalf("verdict on done = %+v, %v", got, err)
			}
			if c.want == PacketDone && len(got.History) != len(done.History) {
				t.Errorf("approve of a done packet made a transition: %+v", got.History)
			}
		})
	}

	w := newWorkEnv(t)
	p := w.create(PacketSpec{})
	if _, err := w.complete(w.claim("ses_a"), ""); err != nil {
		t.Fatal(err)
	}
	_, err := w.verdict(p.ID, VerdictRequestChanges, "")
	wantWorkCode(t, err, CodeInvalidState, "verdict on a done packet without changes")

	ses := w.worker()
	q := w.create(PacketSpec{})
	if _, err := w.completeWithChanges(w.claim(ses), head); err != nil {
		t.Fatal(err)
	}
	if _, err := w.pkt(func(tx *Tx) (Packet, error) {
		return tx.MarkPacketLanded(q.ID, PacketLanding{Commit: head, Mode: "merge"})
	}); err != nil {
		t.Fatal(err)
	}
	_, err = w.verdict(q.ID, VerdictRequestChanges, "")
	wantWorkCode(t, err, CodeInvalidState, "verdict on a landed packet")
}

// A packet sent back for changes waits for the session that made them:
// another live session passes it by (and takes what else is queued), the
// maker's next claim takes it before a packet of higher priority, and once
// the maker has ended anyone may take it.
func TestSentBackGoesToItsSession(t *testing.T) {
	w := newWorkEnv(t)
	maker, other := w.worker(), w.worker()
	p := w.create(PacketSpec{Title: "greet"})
	if _, err := w.completeWithChanges(w.claim(maker), strings.Repeat("c", 40)); err != nil {
		t.Fatal(err)
	}
	back, err := w.verdict(p.ID, VerdictRequestChanges, "rebase onto main and resolve: greet.txt")
	if err != nil || back.HeldFor() != maker {
		t.Fatalf("sent back: %+v held for %q, %v", back.State, back.HeldFor(), err)
	}
	if _, ok, err := w.claimFrom(w.repo.ID, other, time.Minute); ok || err != nil {
		t.Fatalf("another session claimed the held packet: %v, %v", ok, err)
	}
	q := w.create(PacketSpec{Title: "urgent", Priority: 10})
	if got := w.claim(other); got.ID != q.ID {
		t.Errorf("another session claimed %s, want %s", got.ID, q.ID)
	}
	r := w.create(PacketSpec{Title: "more urgent", Priority: 20})
	got := w.claim(maker)
	if got.ID != p.ID || got.Review == nil || got.Review.Notes != "rebase onto main and resolve: greet.txt" || got.HeldFor() != "" {
		t.Fatalf("the maker claimed %s (%+v), want %s with its review", got.ID, got.Review, p.ID)
	}

	// The maker lets it go: it waits for the maker again, until it ends.
	if _, err := w.release(got, "later"); err != nil {
		t.Fatal(err)
	}
	if got := w.claim(other); got.ID != r.ID {
		t.Errorf("another session claimed %s, want %s", got.ID, r.ID)
	}
	if _, ok, _ := w.claimFrom(w.repo.ID, other, time.Minute); ok {
		t.Fatal("another session claimed the held packet")
	}
	if err := w.do(func(tx *Tx) error { _, err := tx.EndSession(maker, SessionEnded, nil, "stopped"); return err }); err != nil {
		t.Fatal(err)
	}
	if got := w.claim(other); got.ID != p.ID {
		t.Errorf("after its maker ended, another session claimed %s, want %s", got.ID, p.ID)
	}
}

// A hold costs a claim nothing when the claimer holds nothing, and at most
// maxClaimScan entries when it may: a held packet deeper than that waits
// its turn in queue order.
func TestClaimScanBound(t *testing.T) {
	w := newWorkEnv(t)
	maker := w.worker()
	p := w.create(PacketSpec{Title: "held"})
	if _, err := w.completeWithChanges(w.claim(maker), strings.Repeat("c", 40)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < maxClaimScan; i++ {
		w.create(PacketSpec{Priority: 1})
	}
	if _, err := w.verdict(p.ID, VerdictRequestChanges, ""); err != nil {
		t.Fatal(err)
	}
	if got := w.claim(maker); got.ID == p.ID || got.Priority != 1 {
		t.Errorf("claim found the held packet beyond the scan bound")
	}
	if got := w.claim(maker); got.ID != p.ID {
		t.Errorf("claim within the scan bound took %s (priority %d), not the held packet", got.ID, got.Priority)
	}
}
