package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Trace events are a session's timeline (SPEC §5): per session, sequence
// numbers from 1 with no gap and no repeat, so the GUI and the SSE feed
// resume from any seq (Last-Event-ID) and miss nothing. They live in one
// nested bucket per session, trace/<ses_id>/<seq BE>, made by the first
// append; the nested bucket's own sequence numbers the events, so a
// rolled-back transaction, which rolls the sequence back with it, leaves no
// gap.

// TraceType is what a trace event records.
type TraceType string

const (
	TraceSessionOpen   TraceType = "session_open"   // the session was created
	TraceToolCall      TraceType = "tool_call"      // an MCP call arrived
	TraceToolResult    TraceType = "tool_result"    // and was answered
	TraceReport        TraceType = "report"         // session.report
	TraceQuestion      TraceType = "question"       // the agent asked a person
	TraceAnswer        TraceType = "answer"         // the person answered
	TracePacketClaimed TraceType = "packet_claimed" // a packet was leased to the session
	TraceLeaseExpired  TraceType = "lease_expired"  // a lease ran out
	TraceState         TraceType = "state"          // the session's state changed
	TraceDenial        TraceType = "denial"         // a call was refused
	TraceError         TraceType = "error"          // a call failed
	TraceExit          TraceType = "exit"           // the process exited
)

// Known reports whether t is one of the types above.
func (t TraceType) Known() bool {
	switch t {
	case TraceSessionOpen, TraceToolCall, TraceToolResult, TraceReport, TraceQuestion,
		TraceAnswer, TracePacketClaimed, TraceLeaseExpired, TraceState, TraceDenial,
		TraceError, TraceExit:
		return true
	}
	return false
}

// MaxTraceData bounds an event's Data. Trace events are an index into what
// happened, not a copy of it: the audit log, the reports and the recording
// hold the rest.
const MaxTraceData = 8 << 10

// TraceEvent is one entry on a session's timeline.
type TraceEvent struct {
	Seq       uint64    `json:"seq"`
	SessionID string    `json:"session_id"`
	At        time.Time `json:"at"`
	Type      TraceType `json:"type"`
	Method    string    `json:"method,omitempty"`
	PacketID  string    `json:"packet_id,omitempty"`
	AuditID   string    `json:"audit_id,omitempty"`
	// Data is a small JSON value (at most MaxTraceData bytes), redacted by
	// the caller: never a token or a secret.
	Data json.RawMessage `json:"data,omitempty"`
}

// AppendTrace gives ev the session's next sequence number and writes it in
// this transaction, so an event commits with the change it describes. Seq
// and SessionID are set here, whatever ev held; a zero At becomes the
// transaction's time. Data is stored compacted, and the event returned is
// the one stored.
//
// Events may follow a session's end (its exit, a lease that expires after
// it). Denials: invalid_argument (type; Data not JSON or too large; a field
// too long), not_found (no such session).
func (tx *Tx) AppendTrace(sessionID string, ev TraceEvent) (TraceEvent, error) {
	if !ev.Type.Known() {
		return TraceEvent{}, Deny(CodeInvalidArgument, "unknown trace event type %q", ev.Type)
	}
	for _, f := range []struct{ name, v string }{{"method", ev.Method}, {"packet id", ev.PacketID}, {"audit id", ev.AuditID}} {
		if len(f.v) > maxSessionName {
			return TraceEvent{}, Deny(CodeInvalidArgument, "trace event %s longer than %d bytes", f.name, maxSessionName)
		}
	}
	if len(ev.Data) > 0 {
		if len(ev.Data) > MaxTraceData {
			return TraceEvent{}, Deny(CodeInvalidArgument, "trace event data is %d bytes, at most %d allowed", len(ev.Data), MaxTraceData)
		}
		// Compact also validates, and makes a copy the caller cannot
		// change behind the returned event.
		var buf bytes.Buffer
		if err := json.Compact(&buf, ev.Data); err != nil {
			return TraceEvent{}, Deny(CodeInvalidArgument, "trace event data is not JSON: %v", err)
		}
		ev.Data = buf.Bytes()
	}
	if tx.tx.Bucket(bucketSessions).Get([]byte(sessionID)) == nil {
		return TraceEvent{}, Deny(CodeNotFound, "no session %s", sessionID)
	}
	b, err := tx.tx.Bucket(bucketTrace).CreateBucketIfNotExists([]byte(sessionID))
	if err != nil {
		return TraceEvent{}, fmt.Errorf("trace of session %s: %w", sessionID, err)
	}
	b.FillPercent = appendFill
	seq, err := b.NextSequence()
	if err != nil {
		return TraceEvent{}, fmt.Errorf("trace sequence: %w", err)
	}
	ev.Seq, ev.SessionID = seq, sessionID
	if ev.At.IsZero() {
		ev.At = tx.now
	}
	ev.At = ev.At.UTC()
	v, err := json.Marshal(&ev)
	if err != nil {
		return TraceEvent{}, fmt.Errorf("encode trace event: %w", err)
	}
	if err := b.Put(u64(seq), v); err != nil {
		return TraceEvent{}, fmt.Errorf("store trace event %d of session %s: %w", seq, sessionID, err)
	}
	return ev, nil
}

// TraceEvents returns the session's events with a sequence strictly above
// afterSeq, in order, at most limit of them (default 100, at most 1000). It
// seeks straight to afterSeq+1, so a page costs its own size whatever the
// length of the timeline. Resume with the last Seq returned (or an SSE
// client's Last-Event-ID). Denial: not_found (no such session).
func (tx *Tx) TraceEvents(sessionID string, afterSeq uint64, limit int) ([]TraceEvent, error) {
	if tx.tx.Bucket(bucketSessions).Get([]byte(sessionID)) == nil {
		return nil, Deny(CodeNotFound, "no session %s", sessionID)
	}
	out := []TraceEvent{}
	b := tx.tx.Bucket(bucketTrace).Bucket([]byte(sessionID))
	if b == nil || afterSeq == ^uint64(0) { // no events yet; nothing after the last possible
		return out, nil
	}
	limit = sessionListLimit(limit)
	c := b.Cursor()
	for k, v := c.Seek(u64(afterSeq + 1)); k != nil && len(out) < limit; k, v = c.Next() {
		var ev TraceEvent
		if err := json.Unmarshal(v, &ev); err != nil {
			return nil, fmt.Errorf("decode trace event %x of session %s: %w", k, sessionID, err)
		}
		out = append(out, ev)
	}
	return out, nil
}

// LastTraceSeq is the sequence number of the session's last event, 0 when it
// has none (or there is no such session). Events are gap-free from 1, so it
// is also their count.
func (tx *Tx) LastTraceSeq(sessionID string) uint64 {
	b := tx.tx.Bucket(bucketTrace).Bucket([]byte(sessionID))
	if b == nil {
		return 0
	}
	return b.Sequence()
}
