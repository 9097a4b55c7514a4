package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// traceData is the Data of a test event: which writer made it and its
// count in that writer's stream.
func traceData(writer, n int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"w":%d,"n":%d}`, writer, n))
}

type traceMark struct{ W, N int }

func markOf(t testing.TB, ev TraceEvent) traceMark {
	t.Helper()
	var m traceMark
	if err := json.Unmarshal(ev.Data, &m); err != nil {
		t.Fatalf("event %d data %s: %v", ev.Seq, ev.Data, err)
	}
	return m
}

// allTrace reads a session's whole timeline in pages of 1000.
func allTrace(t testing.TB, db *DB, sessionID string) []TraceEvent {
	t.Helper()
	var out []TraceEvent
	after := uint64(0)
	for {
		var page []TraceEvent
		mustView(t, db, func(tx *Tx) error {
			var err error
			page, err = tx.TraceEvents(sessionID, after, 1000)
			return err
		})
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		after = page[len(page)-1].Seq
	}
}

// checkGapFree fails unless evs are exactly seq 1..n of sessionID, and
// LastTraceSeq agrees.
func checkGapFree(t testing.TB, db *DB, sessionID string, evs []TraceEvent, n int) {
	t.Helper()
	if len(evs) != n {
		t.Errorf("session %s: %d events, want %d", sessionID, len(evs), n)
	}
	for i, ev := range evs {
		if ev.Seq != uint64(i+1) || ev.SessionID != sessionID {
			t.Fatalf("session %s: event %d is seq %d of %s", sessionID, i, ev.Seq, ev.SessionID)
		}
	}
	mustView(t, db, func(tx *Tx) error {
		if got := tx.LastTraceSeq(sessionID); got != uint64(n) {
			t.Errorf("session %s: LastTraceSeq = %d, want %d", sessionID, got, n)
		}
		return nil
	})
}

func appendTrace(db *DB, sessionID string, ev TraceEvent) (TraceEvent, error) {
	var out TraceEvent
	err := db.Update(context.Background(), func(tx *Tx) error {
		var err error
		out, err = tx.AppendTrace(sessionID, ev)
		return err
	})
	return out, err
}

func TestAppendTrace(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})
	s := createSession(t, db, SessionSpec{Kind: SessionSupervised})
	explicit := time.Date(2026, 1, 1, 12, 0, 0, 7, time.FixedZone("X", 5*3600))
	long := strings.Repeat("m", 257)
	bigData := json.RawMessage(`"` + strings.Repeat("d", MaxTraceData-2) + `"`) // exactly the bound
	var stored []TraceEvent
	for _, tc := range []struct {
		name     string
		session  string
		ev       TraceEvent
		want     Code
		wantAt   time.Time // zero: the transaction's time
		wantData string
	}{
		{name: "session_open", session: s.ID, ev: TraceEvent{Type: TraceSessionOpen}},
		{name: "tool_call", session: s.ID, ev: TraceEvent{Type: TraceToolCall, Method: "work.await_packet", AuditID: "aud_0000000000000001", Data: json.RawMessage(`{ "wait_seconds" : 30 }`)}, wantData: `{"wait_seconds":30}`},
		{name: "tool_result", session: s.ID, ev: TraceEvent{Type: TraceToolResult, Method: "work.await_packet", PacketID: "pkt_1"}},
		{name: "report", session: s.ID, ev: TraceEvent{Type: TraceReport}},
		{name: "question", session: s.ID, ev: TraceEvent{Type: TraceQuestion, Data: json.RawMessage(`{"question_id":"q_1"}`)}, wantData: `{"question_id":"q_1"}`},
		{name: "answer", session: s.ID, ev: TraceEvent{Type: TraceAnswer}},
		{name: "packet_claimed", session: s.ID, ev: TraceEvent{Type: TracePacketClaimed, PacketID: "pkt_1"}},
		{name: "lease_expired", session: s.ID, ev: TraceEvent{Type: TraceLeaseExpired, PacketID: "pkt_1"}},
		{name: "state", session: s.ID, ev: TraceEvent{Type: TraceState, Data: json.RawMessage(`"running"`)}, wantData: `"running"`},
		{name: "denial", session: s.ID, ev: TraceEvent{Type: TraceDenial, Data: json.RawMessage(`{"code":"lease_lost"}`)}, wantData: `{"code":"lease_lost"}`},
		{name: "error", session: s.ID, ev: TraceEvent{Type: TraceError}},
		{name: "exit", session: s.ID, ev: TraceEvent{Type: TraceExit, Data: json.RawMessage(`{"code":0}`)}, wantData: `{"code":0}`},
		{name: "explicit time", session: s.ID, ev: TraceEvent{Type: TraceState, At: explicit}, wantAt: explicit},
		{name: "forged seq and session replaced", session: s.ID, ev: TraceEvent{Seq: 999, SessionID: "ses_forged", Type: TraceState}},
		{name: "data at the bound", session: s.ID, ev: TraceEvent{Type: TraceToolResult, Data: bigData}, wantData: string(bigData)},
		{name: "data null", session: s.ID, ev: TraceEvent{Type: TraceState, Data: json.RawMessage(`null`)}, wantData: `null`},
		{name: "unknown type", session: s.ID, ev: TraceEvent{Type: "tool_calls"}, want: CodeInvalidArgument},
		{name: "no type", session: s.ID, ev: TraceEvent{}, want: CodeInvalidArgument},
		{name: "data not JSON", session: s.ID, ev: TraceEvent{Type: TraceError, Data: json.RawMessage(`{"a":`)}, want: CodeInvalidArgument},
		{name: "data two values", session: s.ID, ev: TraceEvent{Type: TraceError, Data: json.RawMessage(`1 2`)}, want: CodeInvalidArgument},
		{name: "data over the bound", session: s.ID, ev: TraceEvent{Type: TraceError, Data: json.RawMessage(`"` + strings.Repeat("d", MaxTraceData-1) + `"`)}, want: CodeInvalidArgument},
		{name: "method too long", session: s.ID, ev: TraceEvent{Type: TraceToolCall, Method: long}, want: CodeInvalidArgument},
		{name: "packet id too long", session: s.ID, ev: TraceEvent{Type: TraceToolCall, PacketID: long}, want: CodeInvalidArgument},
		{name: "audit id too long", session: s.ID, ev: TraceEvent{Type: TraceToolCall, AuditID: long}, want: CodeInvalidArgument},
		{name: "unknown session", session: "ses_nope", ev: TraceEvent{Type: TraceState}, want: CodeNotFound},
		{name: "no session", session: "", ev: TraceEvent{Type: TraceState}, want: CodeNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock.Add(time.Second)
			data := slices.Clone(tc.ev.Data)
			got, err := appendTrace(db, tc.session, tc.ev)
			if CodeOf(err) != tc.want {
				t.Fatalf("AppendTrace code %q (%v), want %q", CodeOf(err), err, tc.want)
			}
			if err != nil {
				return
			}
			wantAt := tc.wantAt
			if wantAt.IsZero() {
				wantAt = clock.Now()
			}
			want := TraceEvent{
				Seq: uint64(len(stored) + 1), SessionID: s.ID, At: wantAt, Type: tc.ev.Type,
				Method: tc.ev.Method, PacketID: tc.ev.PacketID, AuditID: tc.ev.AuditID, Data: json.RawMessage(tc.wantData),
			}
			if !equalEvent(got, want) || got.At.Location() != time.UTC {
				t.Errorf("returned %+v, want %+v", got, want)
			}
			// The returned event does not share the caller's Data.
			if len(tc.ev.Data) > 0 {
				tc.ev.Data[0] = ' '
				if !equalEvent(got, want) {
					t.Errorf("returned event changed with the caller's data")
				}
				copy(tc.ev.Data, data)
			}
			stored = append(stored, got)
		})
	}
	// What was returned is what was stored.
	evs := allTrace(t, db, s.ID)
	checkGapFree(t, db, s.ID, evs, len(stored))
	for i := range evs {
		if !equalEvent(evs[i], stored[i]) {
			t.Errorf("stored %+v, returned %+v", evs[i], stored[i])
		}
	}
}

func equalEvent(a, b TraceEvent) bool {
	return a.Seq == b.Seq && a.SessionID == b.SessionID && a.At.Equal(b.At) && a.Type == b.Type &&
		a.Method == b.Method && a.PacketID == b.PacketID && a.AuditID == b.AuditID && string(a.Data) == string(b.Data)
}

// A session has no trace head until its first event; reading it before
// gives an empty timeline, not an error, and an unknown session gives
// not_found.
func TestTraceBeforeFirstEvent(t *testing.T) {
	db := openTestDB(t, Options{})
	s := createSession(t, db, SessionSpec{Kind: SessionExternal})
	mustView(t, db, func(tx *Tx) error {
		if tx.tx.Bucket(bucketTraceHeads).Get([]byte(s.ID)) != nil {
			t.Error("trace head exists before the first event")
		}
		evs, err := tx.TraceEvents(s.ID, 0, 0)
		if err != nil || evs == nil || len(evs) != 0 {
			t.Errorf("TraceEvents before the first event = %v, %v; want an empty list", evs, err)
		}
		if n := tx.LastTraceSeq(s.ID); n != 0 {
			t.Errorf("LastTraceSeq = %d", n)
		}
		if _, err := tx.TraceEvents("ses_nope", 0, 0); CodeOf(err) != CodeNotFound {
			t.Errorf("TraceEvents(unknown) = %v, want not_found", err)
		}
		if n := tx.LastTraceSeq("ses_nope"); n != 0 {
			t.Errorf("LastTraceSeq(unknown) = %d", n)
		}
		return nil
	})
	// In a read-only transaction the first append fails cleanly.
	err := db.View(context.Background(), func(tx *Tx) error { _, err := tx.AppendTrace(s.ID, TraceEvent{Type: TraceState}); return err })
	if err == nil {
		t.Error("AppendTrace in a View succeeded")
	}
	if ev, err := appendTrace(db, s.ID, TraceEvent{Type: TraceSessionOpen}); err != nil || ev.Seq != 1 {
		t.Errorf("first append: %+v, %v", ev, err)
	}
}

// Three sessions, a thousand events each, interleaved at random across
// Updates of random size: each timeline is exactly 1..1000, in the order
// each session's events were appended.
func TestTraceInterleavedGapFree(t *testing.T) {
	const sessions, perSession = 3, 1000
	db := openTestDB(t, Options{})
	skipSync(db) // thousands of commits; durability is not what is tested
	var ids []string
	for range sessions {
		ids = append(ids, createSession(t, db, SessionSpec{Kind: SessionExternal}).ID)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	next := make([]int, sessions) // events appended so far, per session
	updates := 0
	for total := 0; total < sessions*perSession; {
		batch := 1 + rng.IntN(20)
		mustUpdate(t, db, func(tx *Tx) error {
			for range batch {
				w := rng.IntN(sessions)
				for next[w] == perSession {
					w = (w + 1) % sessions
				}
				ev, err := tx.AppendTrace(ids[w], TraceEvent{Type: TraceToolCall, Data: traceData(w, next[w])})
				if err != nil {
					return err
				}
				next[w]++
				total++
				if ev.Seq != uint64(next[w]) {
					return fmt.Errorf("session %d: seq %d, want %d", w, ev.Seq, next[w])
				}
				if total == sessions*perSession {
					break
				}
			}
			return nil
		})
		updates++
	}
	if updates < 100 {
		t.Fatalf("setup: only %d Updates", updates)
	}
	for w, id := range ids {
		evs := allTrace(t, db, id)
		checkGapFree(t, db, id, evs, perSession)
		for i, ev := range evs {
			if m := markOf(t, ev); m != (traceMark{w, i}) {
				t.Fatalf("session %d event %d carries %+v", w, ev.Seq, m)
			}
		}
	}
}

// A rolled-back Update that appended events leaves no gap: the next
// committed event follows the last committed one, whether the rollback
// created the session's bucket or extended it.
func TestTraceRolledBackLeavesNoGap(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name               string
		committed, rolled  int // events committed before; appended and rolled back
		alsoOtherSession   bool
		appendsAfterFailed int
	}{
		{"first append rolled back", 0, 1, false, 1},
		{"many first appends rolled back", 0, 50, true, 3},
		{"one rolled back", 5, 1, false, 1},
		{"many rolled back", 5, 300, true, 2},
		{"rolled back past a page", 200, 700, false, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDB(t, Options{})
			s := createSession(t, db, SessionSpec{Kind: SessionSupervised})
			other := createSession(t, db, SessionSpec{Kind: SessionSupervised})
			mustUpdate(t, db, func(tx *Tx) error {
				for i := range tc.committed {
					if _, err := tx.AppendTrace(s.ID, TraceEvent{Type: TraceState, Data: traceData(0, i)}); err != nil {
						return err
					}
				}
				return nil
			})
			err := db.Update(context.Background(), func(tx *Tx) error {
				for i := range tc.rolled {
					ev, err := tx.AppendTrace(s.ID, TraceEvent{Type: TraceState, Data: traceData(1, i)})
					if err != nil {
						return err
					}
					if ev.Seq != uint64(tc.committed+i+1) {
						t.Errorf("inside the doomed Update: seq %d", ev.Seq)
					}
					if tc.alsoOtherSession {
						if _, err := tx.AppendTrace(other.ID, TraceEvent{Type: TraceState}); err != nil {
							return err
						}
					}
				}
				// The transaction sees its own events.
				if got := tx.LastTraceSeq(s.ID); got != uint64(tc.committed+tc.rolled) {
					t.Errorf("LastTraceSeq inside = %d", got)
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatal(err)
			}
			mustView(t, db, func(tx *Tx) error {
				if got := tx.LastTraceSeq(s.ID); got != uint64(tc.committed) {
					t.Errorf("LastTraceSeq after rollback = %d, want %d", got, tc.committed)
				}
				if got := tx.LastTraceSeq(other.ID); got != 0 {
					t.Errorf("other session's LastTraceSeq after rollback = %d", got)
				}
				return nil
			})
			for i := range tc.appendsAfterFailed {
				ev, err := appendTrace(db, s.ID, TraceEvent{Type: TraceExit, Data: traceData(2, i)})
				if err != nil || ev.Seq != uint64(tc.committed+i+1) {
					t.Fatalf("append after rollback = seq %d, %v; want %d", ev.Seq, err, tc.committed+i+1)
				}
			}
			evs := allTrace(t, db, s.ID)
			checkGapFree(t, db, s.ID, evs, tc.committed+tc.appendsAfterFailed)
			for _, ev := range evs {
				if markOf(t, ev).W == 1 {
					t.Errorf("rolled-back event %d survived", ev.Seq)
				}
			}
		})
	}
}

// Paging forward from any point with any page size visits every later
// event exactly once, in order, while another session's events sit
// between them in the log, a few or many at a time.
func TestTraceEventsPaging(t *testing.T) {
	const n = 1234
	db := openTestDB(t, Options{})
	s := createSession(t, db, SessionSpec{Kind: SessionExternal})
	other := createSession(t, db, SessionSpec{Kind: SessionExternal})
	rng := rand.New(rand.NewPCG(3, 4))
	mustUpdate(t, db, func(tx *Tx) error {
		for i := range n {
			if _, err := tx.AppendTrace(s.ID, TraceEvent{Type: TraceToolCall, Data: traceData(0, i)}); err != nil {
				return err
			}
			between := rng.IntN(3)
			if i%100 == 7 {
				between = 500
			}
			for range between {
				if _, err := tx.AppendTrace(other.ID, TraceEvent{Type: TraceState}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	// 200 trials on bbolt, under race in make test. -short, the
	// PostgreSQL run of the suite, pages through the first 40 of the same
	// seeded draws (fixed pages of 1 to 50 events and changing ones, from
	// the start and from anywhere): each page is a transaction, a round
	// trip to the server, and 200 trials took 50 s there; the paging
	// itself is the store's code above the engine, which bbolt's 200 run.
	trials := 200
	if testing.Short() {
		trials = 40
	}
	for trial := range trials {
		start := uint64(0)
		if trial%4 != 0 {
			start = rng.Uint64N(n + 2)
		}
		fixed := 0
		if trial%3 == 0 {
			fixed = 1 + rng.IntN(50) // the same size every page
		}
		var got []uint64
		after := start
		for pages := 0; ; pages++ {
			if pages > n+2 {
				t.Fatal("paging does not end")
			}
			limit := fixed
			if limit == 0 {
				limit = 1 + rng.IntN(300) // a new size every page
			}
			var page []TraceEvent
			mustView(t, db, func(tx *Tx) error {
				var err error
				page, err = tx.TraceEvents(s.ID, after, limit)
				return err
			})
			if len(page) == 0 {
				break
			}
			if len(page) > limit {
				t.Fatalf("page of %d, limit %d", len(page), limit)
			}
			for _, ev := range page {
				if m := markOf(t, ev); m.N != int(ev.Seq-1) {
					t.Fatalf("event %d carries %+v", ev.Seq, m)
				}
				got = append(got, ev.Seq)
			}
			after = page[len(page)-1].Seq
		}
		var want []uint64
		if start < n {
			want = seqRange(start+1, n)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d from %d: %d events, want %d (first %v)", trial, start, len(got), len(want), got[:min(len(got), 5)])
		}
	}
	// Limits: default 100, at most 1000; nothing after the end.
	mustView(t, db, func(tx *Tx) error {
		for _, tc := range []struct {
			after uint64
			limit int
			want  int
		}{
			{0, 0, 100}, {0, -5, 100}, {0, 1, 1}, {0, 1000, 1000}, {0, 1001, 1000}, {0, 1 << 40, 1000},
			{1200, 1000, 34}, {n - 1, 0, 1}, {n, 10, 0}, {n + 1, 10, 0}, {^uint64(0), 10, 0}, {^uint64(0) - 1, 10, 0},
		} {
			evs, err := tx.TraceEvents(s.ID, tc.after, tc.limit)
			if err != nil || len(evs) != tc.want || evs == nil {
				t.Errorf("TraceEvents(after %d, limit %d) = %d events, %v; want %d", tc.after, tc.limit, len(evs), err, tc.want)
			}
			if len(evs) > 0 && evs[0].Seq != tc.after+1 {
				t.Errorf("TraceEvents(after %d) starts at %d", tc.after, evs[0].Seq)
			}
		}
		return nil
	})
}

// Eight writers append to one session, each event in its own Update, while
// readers page the timeline: it comes out gap-free, each writer's events in
// the order it wrote them, and no reader ever sees a gap.
func TestTraceConcurrentAppends(t *testing.T) {
	const writers, perWriter = 8, 150
	db := openTestDB(t, Options{})
	skipSync(db)
	s := createSession(t, db, SessionSpec{Kind: SessionExternal})
	var wg sync.WaitGroup
	errs := make(chan error, writers+2)
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				if _, err := appendTrace(db, s.ID, TraceEvent{Type: TraceToolCall, Data: traceData(w, i)}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				err := db.View(context.Background(), func(tx *Tx) error {
					last := tx.LastTraceSeq(s.ID)
					evs, err := tx.TraceEvents(s.ID, 0, 1000)
					if err != nil {
						return err
					}
					if uint64(len(evs)) != min(last, 1000) {
						return fmt.Errorf("reader saw %d events, LastTraceSeq %d", len(evs), last)
					}
					for i, ev := range evs {
						if ev.Seq != uint64(i+1) {
							return fmt.Errorf("reader saw seq %d at %d", ev.Seq, i)
						}
					}
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	evs := allTrace(t, db, s.ID)
	checkGapFree(t, db, s.ID, evs, writers*perWriter)
	next := make([]int, writers)
	for _, ev := range evs {
		m := markOf(t, ev)
		if m.N != next[m.W] {
			t.Fatalf("writer %d: event %d came after %d", m.W, m.N, next[m.W]-1)
		}
		next[m.W]++
	}
}

// One Update (one fsync'd commit) per event, as the registry writes an
// event with the call it describes.
func BenchmarkAppendTrace(b *testing.B) {
	db := openTestDB(b, Options{})
	s := createSession(b, db, SessionSpec{Kind: SessionSupervised})
	data := json.RawMessage(`{"method":"work.await_packet","args_digest":"sha256:0123456789abcdef","ms":12}`)
	i := 0
	for b.Loop() {
		if err := db.Update(context.Background(), func(tx *Tx) error {
			_, err := tx.AppendTrace(s.ID, TraceEvent{Type: TraceToolCall, Method: "work.await_packet", AuditID: AuditID(uint64(i + 1)), Data: data})
			return err
		}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// Many events per Update, into a timeline that grows past many pages, with
// fsync off: the per-event work (validation, compaction, encoding, the
// B+tree insert). One op is one Update; ns/event divides it out.
func BenchmarkAppendTraceGrouped(b *testing.B) {
	const perUpdate = 64
	db := openTestDB(b, Options{})
	skipSync(db)
	s := createSession(b, db, SessionSpec{Kind: SessionSupervised})
	data := json.RawMessage(`{"method":"work.await_packet","args_digest":"sha256:0123456789abcdef","ms":12}`)
	n := 0
	for b.Loop() {
		if err := db.Update(context.Background(), func(tx *Tx) error {
			for range perUpdate {
				if _, err := tx.AppendTrace(s.ID, TraceEvent{Type: TraceToolCall, Method: "work.await_packet", Data: data}); err != nil {
					return err
				}
				n++
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
}

// A page of 100 from the middle of a 100 000-event timeline: the cost of an
// SSE client resuming from Last-Event-ID.
func BenchmarkTraceEvents(b *testing.B) {
	const n = 100_000
	db := openTestDB(b, Options{})
	skipSync(db)
	s := createSession(b, db, SessionSpec{Kind: SessionSupervised})
	for done := 0; done < n; {
		mustUpdate(b, db, func(tx *Tx) error {
			for range 10_000 {
				if _, err := tx.AppendTrace(s.ID, TraceEvent{Type: TraceToolCall, Data: traceData(0, done)}); err != nil {
					return err
				}
				done++
			}
			return nil
		})
	}
	for b.Loop() {
		if err := db.View(context.Background(), func(tx *Tx) error {
			evs, err := tx.TraceEvents(s.ID, n/2, 100)
			if err == nil && len(evs) != 100 {
				err = fmt.Errorf("%d events", len(evs))
			}
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// A trace log whose links or entries do not hold together is reported as
// ErrCorrupt, never read as another session's events or as a shorter
// timeline.
func TestTraceCorruptionIsAnError(t *testing.T) {
	// The log holds a's events at 1, 3, 5 and b's at 2, 4, 6.
	for _, tc := range []struct {
		name   string
		victim int // 0: a, 1: b
		damage func(log kvBucket) error
	}{
		{"entry of another session", 1, func(log kvBucket) error {
			return log.Put(u64(2), slices.Clone(log.Get(u64(1))))
		}},
		{"short entry", 0, func(log kvBucket) error { return log.Put(u64(3), []byte("short")) }},
		{"missing entry", 0, func(log kvBucket) error { return log.Delete(u64(3)) }},
		{"not JSON", 0, func(log kvBucket) error {
			return log.Put(u64(3), append(slices.Clone(log.Get(u64(3))[:traceHeader]), "{nope"...))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDB(t, Options{})
			a := createSession(t, db, SessionSpec{Kind: SessionExternal})
			b := createSession(t, db, SessionSpec{Kind: SessionExternal})
			for range 3 {
				for _, s := range []Session{a, b} {
					if _, _, err := addReport(db, s.ID, ReportHeartbeat, "tick", ""); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := db.Update(context.Background(), func(tx *Tx) error { return tc.damage(tx.tx.Bucket(bucketTraceLog)) }); err != nil {
				t.Fatal(err)
			}
			victim, other := []Session{a, b}[tc.victim], []Session{a, b}[1-tc.victim]
			mustView(t, db, func(tx *Tx) error {
				if _, err := tx.TraceEvents(victim.ID, 0, 0); !errors.Is(err, ErrCorrupt) {
					t.Errorf("TraceEvents = %v, want ErrCorrupt", err)
				}
				if _, err := tx.Reports(victim.ID, 0); !errors.Is(err, ErrCorrupt) {
					t.Errorf("Reports = %v, want ErrCorrupt", err)
				}
				// The other session's timeline is whole.
				if evs, err := tx.TraceEvents(other.ID, 0, 0); err != nil || len(evs) != 3 {
					t.Errorf("the other session's events: %d, %v", len(evs), err)
				}
				return nil
			})
		})
	}
}
