package store

import (
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
)

func TestUsageSummary(t *testing.T) {
	for _, c := range []struct {
		u    Usage
		want string
	}{
		{Usage{Source: profile.UsageClaude}, "0 in · 0 out"},
		{Usage{Source: profile.UsageClaude, InputTokens: 12345, OutputTokens: 1234}, "12.3k in · 1.2k out"},
		{Usage{Source: profile.UsageCodex, InputTokens: 999, OutputTokens: 1000, CacheReadTokens: 40000}, "999 in · 1k out · 40k cached"},
		{Usage{Source: profile.UsageClaude, InputTokens: 4_560_000, OutputTokens: 150_500, CacheWriteTokens: 2000, CostUSD: 0.125}, "4.5M in · 150k out · 2k cache write · $0.12"},
		{Usage{Source: profile.UsageNone}, "no usage reported"},
	} {
		if got := c.u.Summary(); got != c.want {
			t.Errorf("%+v.Summary() = %q, want %q", c.u, got, c.want)
		}
	}
}

func TestRecordSessionUsageValidates(t *testing.T) {
	w := newWorkEnv(t)
	ses := w.session()
	for _, c := range []struct {
		name string
		u    Usage
	}{
		{"negative", Usage{Source: profile.UsageClaude, InputTokens: -1}},
		{"huge", Usage{Source: profile.UsageClaude, OutputTokens: maxUsageCount + 1}},
		{"no source", Usage{InputTokens: 1}},
		{"unknown source", Usage{Source: "aider"}},
		{"none with counts", Usage{Source: profile.UsageNone, OutputTokens: 1}},
		{"negative cost", Usage{Source: profile.UsageClaude, CostUSD: -1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := w.do(func(tx *Tx) error { _, err := tx.RecordSessionUsage(ses, c.u); return err })
			wantWorkCode(t, err, CodeInvalidArgument, c.name)
		})
	}
	err := w.do(func(tx *Tx) error {
		_, err := tx.RecordSessionUsage("ses_nobody", Usage{Source: profile.UsageNone})
		return err
	})
	wantWorkCode(t, err, CodeNotFound, "unknown session")
}

// TestRecordSessionUsage: the counts replace the last ones, UpdatedAt moves
// only when they change, and an ended session still takes its last read.
func TestRecordSessionUsage(t *testing.T) {
	w := newWorkEnv(t)
	ses := w.session()
	first := w.recordUsage(ses, 100, 10)
	if first.Usage == nil || first.Usage.InputTokens != 100 || first.Usage.OutputTokens != 10 || !first.Usage.UpdatedAt.Equal(w.clock.Now()) {
		t.Fatalf("usage after the first record = %+v", first.Usage)
	}
	w.clock.Add(time.Minute)
	if same := w.recordUsage(ses, 100, 10); !same.Usage.UpdatedAt.Equal(first.Usage.UpdatedAt) {
		t.Errorf("the same counts moved UpdatedAt: %v -> %v", first.Usage.UpdatedAt, same.Usage.UpdatedAt)
	}
	mustUpdate(t, w.db, func(tx *Tx) error { _, err := tx.EndSession(ses, SessionEnded, nil, "done"); return err })
	if last := w.recordUsage(ses, 150, 20); last.Usage.InputTokens != 150 || !last.Usage.UpdatedAt.Equal(w.clock.Now()) {
		t.Errorf("usage of an ended session = %+v", last.Usage)
	}
}

// TestPacketUsage: each lease's end gives its packet the session's usage
// since the session's previous lease ended (or since its start), whether
// the lease ends by a completion, a release, an expiry or the session's
// end; a packet sums its attempts.
func TestPacketUsage(t *testing.T) {
	w := newWorkEnv(t)
	a, b := w.session(), w.session()
	p1 := w.create(PacketSpec{Title: "one"})
	p2 := w.create(PacketSpec{Title: "two"})
	p3 := w.create(PacketSpec{Title: "three"})

	w.recordUsage(a, 100, 10) // the lead-in counts with the first packet
	c1 := w.claim(a)
	w.recordUsage(a, 300, 30)
	if _, err := w.complete(c1, "done"); err != nil {
		t.Fatal(err)
	}
	wantPacketUsage(t, w.get(p1.ID), 300, 30)

	w.recordUsage(a, 350, 35)
	c2 := w.claim(a)
	w.recordUsage(a, 500, 50)
	if _, err := w.release(c2, "later"); err != nil {
		t.Fatal(err)
	}
	wantPacketUsage(t, w.get(p2.ID), 200, 20)

	// Another session's attempt adds to the packet's usage.
	w.recordUsage(b, 40, 4)
	c2 = w.claim(b)
	if c2.ID != p2.ID {
		t.Fatalf("claimed %s, want %s back", c2.ID, p2.ID)
	}
	w.recordUsage(b, 60, 6)
	w.clock.Add(10 * time.Minute)
	w.expire()
	wantPacketUsage(t, w.get(p2.ID), 260, 26)

	c3 := w.claim(a)
	if c3.ID != p2.ID {
		t.Fatalf("claimed %s, want %s again", c3.ID, p2.ID)
	}
	w.recordUsage(a, 510, 51)
	mustUpdate(t, w.db, func(tx *Tx) error {
		if _, err := tx.EndSession(a, SessionEnded, nil, "stopped"); err != nil {
			return err
		}
		_, err := tx.ReleaseSessionLeases(a, "session ended")
		return err
	})
	wantPacketUsage(t, w.get(p2.ID), 270, 27)
	wantPacketUsage(t, w.get(p3.ID), -1, -1)
}

// TestPacketUsageUncounted: a session whose CLI reports nothing gives its
// packets nothing.
func TestPacketUsageUncounted(t *testing.T) {
	w := newWorkEnv(t)
	ses := w.session()
	p := w.create(PacketSpec{})
	mustUpdate(t, w.db, func(tx *Tx) error { _, err := tx.RecordSessionUsage(ses, Usage{Source: profile.UsageNone}); return err })
	c := w.claim(ses)
	if _, err := w.complete(c, "done"); err != nil {
		t.Fatal(err)
	}
	wantPacketUsage(t, w.get(p.ID), -1, -1)
}

// session creates a live external session in the env's repository.
func (w *workEnv) session() string {
	w.t.Helper()
	var s Session
	mustUpdate(w.t, w.db, func(tx *Tx) (err error) {
		s, err = tx.CreateSession(SessionSpec{Kind: SessionExternal, RepositoryID: w.repo.ID})
		return err
	})
	return s.ID
}

func (w *workEnv) recordUsage(ses string, in, out int64) Session {
	w.t.Helper()
	var s Session
	mustUpdate(w.t, w.db, func(tx *Tx) (err error) {
		s, err = tx.RecordSessionUsage(ses, Usage{Source: profile.UsageClaude, InputTokens: in, OutputTokens: out})
		return err
	})
	return s
}

// wantPacketUsage checks p's counts; -1 wants no usage at all.
func wantPacketUsage(t *testing.T, p Packet, in, out int64) {
	t.Helper()
	if in < 0 {
		if p.Usage != nil {
			t.Errorf("packet %s usage = %+v, want none", p.Title, *p.Usage)
		}
		return
	}
	if p.Usage == nil || p.Usage.InputTokens != in || p.Usage.OutputTokens != out || p.Usage.Source != profile.UsageClaude {
		t.Errorf("packet %s usage = %+v, want %d in, %d out from claude", p.Title, p.Usage, in, out)
	}
}
