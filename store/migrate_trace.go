package store

import (
	"encoding/json"
	"fmt"
)

// migrateTraceLog moves every session's events out of trace/<ses_id>/ and its
// reports out of reports/<ses_id>/ into the trace log (trace.go), then drops
// both trees. Events keep their sequence numbers and times. Each `report` or
// `question` event takes the session's next report, in order: the registry
// wrote the two together, one for one. A report left without an event (none
// should be) is appended after the session's events, so none is lost.
//
// It writes through appendTrace, which writes schema 5's layout: a later
// migration that changes the layout must first freeze a copy of today's
// appendTrace here, so that this one keeps doing what it did.
func migrateTraceLog(btx kvTx) error {
	if err := createBuckets(btx, traceBuckets); err != nil {
		return err
	}
	oldTrace, oldReports := btx.Bucket([]byte("trace")), btx.Bucket([]byte("reports"))
	tx := &Tx{tx: btx}
	err := btx.Bucket(bucketSessions).ForEach(func(id, _ []byte) error {
		var reports []Report
		if b := nested(oldReports, id); !b.Missing() {
			if err := b.ForEach(func(k, v []byte) error {
				var r Report
				if err := json.Unmarshal(v, &r); err != nil {
					return fmt.Errorf("decode report %x: %w", k, err)
				}
				reports = append(reports, r)
				return nil
			}); err != nil {
				return err
			}
		}
		next := func() *Report {
			if len(reports) == 0 {
				return nil
			}
			r := reports[0]
			reports = reports[1:]
			return &r
		}
		if b := nested(oldTrace, id); !b.Missing() {
			if err := b.ForEach(func(k, v []byte) error {
				var ev TraceEvent
				if err := json.Unmarshal(v, &ev); err != nil {
					return fmt.Errorf("decode trace event %x: %w", k, err)
				}
				if ev.Type == TraceReport || ev.Type == TraceQuestion {
					ev.Report = next()
				}
				return migrateEvent(tx, string(id), ev)
			}); err != nil {
				return err
			}
		}
		for r := next(); r != nil; r = next() {
			typ := TraceReport
			if r.Kind == ReportQuestion {
				typ = TraceQuestion
			}
			if err := migrateEvent(tx, string(id), TraceEvent{Type: typ, At: r.At, Method: "session.report", PacketID: r.PacketID, Report: r}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, name := range []string{"trace", "reports"} {
		if !btx.Bucket([]byte(name)).Missing() {
			if err := btx.DeleteBucket([]byte(name)); err != nil {
				return fmt.Errorf("drop bucket %s: %w", name, err)
			}
		}
	}
	return nil
}

// migrateEvent appends ev, which must land on the sequence number it had.
func migrateEvent(tx *Tx, sessionID string, ev TraceEvent) error {
	want := ev.Seq
	got, err := tx.appendTrace(sessionID, ev)
	if err != nil {
		return fmt.Errorf("session %s, event %d: %w", sessionID, want, err)
	}
	if want != 0 && got.Seq != want {
		return fmt.Errorf("session %s: event %d became %d (the old timeline had a gap)", sessionID, want, got.Seq)
	}
	return nil
}

func nested(b kvBucket, name []byte) kvBucket {
	if b.Missing() {
		return b
	}
	return b.Bucket(name)
}
