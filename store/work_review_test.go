package store

import (
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
