package store

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A database of schema 4 kept each session's events and reports in nested
// buckets of their own. Opening it moves both into the trace log: the same
// events at the same seqs, each report on its event, a report without an
// event appended after the rest, and the old trees gone.
func TestMigrateTraceLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := applyMigrations(b, migrations[:4]); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	sec := func(n int) time.Time { return at.Add(time.Duration(n) * time.Second) }
	ready := Report{ID: "rep_a1", Seq: 1, SessionID: "ses_a", Kind: ReportReady, Text: "up", At: sec(1)}
	ask := Report{ID: "rep_a2", Seq: 2, SessionID: "ses_a", Kind: ReportQuestion, Text: "which branch?", QuestionID: "q_a", At: sec(3)}
	orphan := Report{ID: "rep_b1", Seq: 1, SessionID: "ses_b", Kind: ReportHeartbeat, Text: "alone", PacketID: "pkt_1", At: sec(9)}
	eventsA := []TraceEvent{
		{Seq: 1, SessionID: "ses_a", At: sec(0), Type: TraceSessionOpen, Method: "session.report"},
		{Seq: 2, SessionID: "ses_a", At: sec(1), Type: TraceReport, Method: "session.report"},
		{Seq: 3, SessionID: "ses_a", At: sec(1), Type: TraceToolCall, Method: "session.report", AuditID: "aud_1", Data: json.RawMessage(`{"outcome":"ok"}`)},
		{Seq: 4, SessionID: "ses_a", At: sec(3), Type: TraceQuestion, Method: "session.report"},
		{Seq: 5, SessionID: "ses_a", At: sec(4), Type: TraceExit},
	}
	err = b.Update(func(tx *bolt.Tx) error {
		for _, id := range []string{"ses_a", "ses_b", "ses_c"} {
			v, _ := json.Marshal(Session{ID: id, Kind: SessionExternal, State: SessionEnded, StartedAt: at})
			if err := tx.Bucket(bucketSessions).Put([]byte(id), v); err != nil {
				return err
			}
		}
		put := func(tree, id string, seq uint64, v any) error {
			nb, err := tx.Bucket([]byte(tree)).CreateBucketIfNotExists([]byte(id))
			if err != nil {
				return err
			}
			js, _ := json.Marshal(v)
			return nb.Put(u64(seq), js)
		}
		for _, ev := range eventsA {
			if err := put("trace", "ses_a", ev.Seq, ev); err != nil {
				return err
			}
		}
		for _, r := range []Report{ready, ask} {
			if err := put("reports", "ses_a", r.Seq, r); err != nil {
				return err
			}
		}
		return put("reports", "ses_b", 1, orphan)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustView(t, db, func(tx *Tx) error {
		if tx.StoredSchemaVersion() != SchemaVersion() {
			t.Errorf("schema %d", tx.StoredSchemaVersion())
		}
		for _, name := range []string{"trace", "reports"} {
			if !tx.tx.Bucket([]byte(name)).Missing() {
				t.Errorf("bucket %s is still there", name)
			}
		}
		evs, err := tx.TraceEvents("ses_a", 0, 0)
		if err != nil || len(evs) != len(eventsA) {
			t.Fatalf("ses_a: %d events, %v", len(evs), err)
		}
		wantReport := map[uint64]Report{2: ready, 4: ask}
		for i, ev := range evs {
			if !equalEvent(ev, eventsA[i]) {
				t.Errorf("event %d: %+v, want %+v", i, ev, eventsA[i])
			}
			r, isReport := wantReport[ev.Seq]
			r.Seq = ev.Seq
			if isReport != (ev.Report != nil) || isReport && !equalReport(*ev.Report, r) {
				t.Errorf("event %d carries report %+v, want %+v", ev.Seq, ev.Report, r)
			}
		}
		rs, err := tx.Reports("ses_a", 0)
		if err != nil || len(rs) != 2 || rs[0].ID != ready.ID || rs[1].ID != ask.ID || rs[0].Seq != 2 || rs[1].Seq != 4 {
			t.Errorf("ses_a reports %+v, %v", rs, err)
		}
		evs, err = tx.TraceEvents("ses_b", 0, 0)
		if err != nil || len(evs) != 1 || evs[0].Type != TraceReport || evs[0].Report == nil || evs[0].Report.ID != orphan.ID ||
			!evs[0].At.Equal(orphan.At) || evs[0].PacketID != "pkt_1" {
			t.Errorf("ses_b events %+v, %v", evs, err)
		}
		if n := tx.LastTraceSeq("ses_c"); n != 0 {
			t.Errorf("ses_c has %d events", n)
		}
		return nil
	})
	// The timelines go on from where they were.
	ev, err := appendTrace(db, "ses_a", TraceEvent{Type: TraceState})
	if err != nil || ev.Seq != 6 {
		t.Errorf("next event of ses_a: seq %d, %v", ev.Seq, err)
	}
}
