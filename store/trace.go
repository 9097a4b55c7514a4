package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"
)

// Trace events are a session's timeline (SPEC §5): per session, sequence
// numbers from 1 with no gap and no repeat, so the GUI and the SSE feed
// resume from any seq (Last-Event-ID) and miss nothing. Reports are trace
// events too (a `report` or `question` event carries its Report).
//
// Every session's events go to one log in commit order, not to a bucket per
// session: the many agents that report at once then append to the same last
// page, and a group commit of their calls rewrites a dozen pages instead of
// two or three per session (BenchmarkHeartbeatBatch). A session's events are
// chained backwards, and every traceStride-th is indexed, so a session's
// page of events costs its own length, whoever else wrote in between:
//
//	trace_log/    <g BE> -> prev g of the session (8 bytes), prev g of its
//	              last report event (8 bytes, reports only), TraceEvent JSON;
//	              g from the bucket's sequence
//	trace_heads/  <ses_id> -> its last seq, the g of that event, the g of its
//	              last report event (8 bytes each)
//	trace_index/  <ses_id><seq BE> -> g, for seq 1, 1+traceStride, ...
//
// Everything is written in the caller's transaction, so a rolled-back one
// takes its events, their sequence numbers and the head with it: no gap.
var (
	bucketTraceLog   = []byte("trace_log")
	bucketTraceHeads = []byte("trace_heads")
	bucketTraceIndex = []byte("trace_index")

	traceBuckets = [][]byte{bucketTraceLog, bucketTraceHeads, bucketTraceIndex}
)

// traceStride is how many of a session's events one index entry covers: a
// read walks back at most traceStride-1 links before its first event. Small
// enough that the walk is cheap, large enough that most appends write no
// index page.
const traceStride = 32

// traceHeader is the bytes before an event's JSON in trace_log.
const traceHeader = 16

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
// happened, not a copy of it: the audit log and the recording hold the rest.
// (A report event is the exception: it is where the report is kept.)
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
	// Report is set on `report` and `question` events: the report itself,
	// whose only record this is.
	Report *Report `json:"report,omitempty"`
}

// AppendTrace gives ev the session's next sequence number and writes it in
// this transaction, so an event commits with the change it describes. Seq
// and SessionID are set here, whatever ev held; a zero At becomes the
// transaction's time. Data is stored compacted, and the event returned is
// the one stored. Report is for AddReport: an event of any other caller
// carrying one is refused.
//
// Events may follow a session's end (its exit, a lease that expires after
// it). Denials: invalid_argument (type; Data not JSON or too large; a field
// too long), not_found (no such session).
func (tx *Tx) AppendTrace(sessionID string, ev TraceEvent) (TraceEvent, error) {
	if ev.Report != nil {
		return TraceEvent{}, Deny(CodeInvalidArgument, "a report is added with AddReport")
	}
	return tx.appendTrace(sessionID, ev)
}

func (tx *Tx) appendTrace(sessionID string, ev TraceEvent) (TraceEvent, error) {
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
	h, err := tx.traceHead(sessionID)
	if err != nil {
		return TraceEvent{}, err
	}
	log := tx.tx.Bucket(bucketTraceLog)
	log.Appending()
	g, err := log.NextSequence()
	if err != nil {
		return TraceEvent{}, fmt.Errorf("trace sequence: %w", err)
	}
	ev.Seq, ev.SessionID = h.seq+1, sessionID
	if ev.At.IsZero() {
		ev.At = tx.now
	}
	ev.At = ev.At.UTC()
	var prevReport uint64
	if ev.Report != nil {
		ev.Report.Seq, ev.Report.SessionID, ev.Report.At = ev.Seq, sessionID, ev.At
		prevReport, h.report = h.report, g
	}
	v := make([]byte, traceHeader, traceHeader+256)
	binary.BigEndian.PutUint64(v, h.g)
	binary.BigEndian.PutUint64(v[8:], prevReport)
	js, err := json.Marshal(&ev)
	if err != nil {
		return TraceEvent{}, fmt.Errorf("encode trace event: %w", err)
	}
	if err := log.Put(u64(g), append(v, js...)); err != nil {
		return TraceEvent{}, fmt.Errorf("store trace event %d of session %s: %w", ev.Seq, sessionID, err)
	}
	if ev.Seq%traceStride == 1 {
		if err := tx.tx.Bucket(bucketTraceIndex).Put(traceIndexKey(sessionID, ev.Seq), u64(g)); err != nil {
			return TraceEvent{}, fmt.Errorf("index trace event %d of session %s: %w", ev.Seq, sessionID, err)
		}
	}
	h.seq, h.g = ev.Seq, g
	if err := tx.tx.Bucket(bucketTraceHeads).Put([]byte(sessionID), h.encode()); err != nil {
		return TraceEvent{}, fmt.Errorf("store trace head of session %s: %w", sessionID, err)
	}
	return ev, nil
}

// traceHead is where a session's timeline ends: its last seq, that event's
// place in trace_log, and the place of its last report event (0: none).
type traceHead struct{ seq, g, report uint64 }

func (h traceHead) encode() []byte {
	v := make([]byte, 24)
	binary.BigEndian.PutUint64(v, h.seq)
	binary.BigEndian.PutUint64(v[8:], h.g)
	binary.BigEndian.PutUint64(v[16:], h.report)
	return v
}

func (tx *Tx) traceHead(sessionID string) (traceHead, error) {
	v := tx.tx.Bucket(bucketTraceHeads).Get([]byte(sessionID))
	switch len(v) {
	case 0:
		return traceHead{}, nil
	case 24:
		return traceHead{binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:]), binary.BigEndian.Uint64(v[16:])}, nil
	}
	return traceHead{}, fmt.Errorf("trace head of session %s is %d bytes: %w", sessionID, len(v), ErrCorrupt)
}

func traceIndexKey(sessionID string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte(sessionID), seq)
}

// traceAt reads the log entry at g: the links before it and its JSON.
func (tx *Tx) traceAt(g uint64) (prev, prevReport uint64, js []byte, err error) {
	v := tx.tx.Bucket(bucketTraceLog).Get(u64(g))
	if len(v) < traceHeader {
		return 0, 0, nil, fmt.Errorf("trace log entry %d is missing or short: %w", g, ErrCorrupt)
	}
	return binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:]), v[traceHeader:], nil
}

// decodeTraceAt decodes the entry at g and checks that it is event seq of
// sessionID, as the link or index that led there says.
func (tx *Tx) decodeTraceAt(g uint64, sessionID string, seq uint64) (TraceEvent, uint64, uint64, error) {
	prev, prevReport, js, err := tx.traceAt(g)
	if err != nil {
		return TraceEvent{}, 0, 0, err
	}
	var ev TraceEvent
	if err := json.Unmarshal(js, &ev); err != nil {
		return TraceEvent{}, 0, 0, fmt.Errorf("decode trace log entry %d: %v: %w", g, err, ErrCorrupt)
	}
	if ev.SessionID != sessionID || ev.Seq != seq {
		return TraceEvent{}, 0, 0, fmt.Errorf("trace log entry %d is event %d of %s, want %d of %s: %w", g, ev.Seq, ev.SessionID, seq, sessionID, ErrCorrupt)
	}
	return ev, prev, prevReport, nil
}

// TraceEvents returns the session's events with a sequence strictly above
// afterSeq, in order, at most limit of them (default 100, at most 1000). It
// starts from the index entry at or just past the page's end and follows
// the session's links back, so a page costs its own size plus at most
// traceStride steps, whatever the length of the timeline. Resume with the
// last Seq returned (or an SSE client's Last-Event-ID). Denial: not_found
// (no such session).
func (tx *Tx) TraceEvents(sessionID string, afterSeq uint64, limit int) ([]TraceEvent, error) {
	if tx.tx.Bucket(bucketSessions).Get([]byte(sessionID)) == nil {
		return nil, Deny(CodeNotFound, "no session %s", sessionID)
	}
	h, err := tx.traceHead(sessionID)
	if err != nil {
		return nil, err
	}
	out := []TraceEvent{}
	if afterSeq >= h.seq {
		return out, nil
	}
	limit = sessionListLimit(limit)
	hi := h.seq
	if h.seq-afterSeq > uint64(limit) {
		hi = afterSeq + uint64(limit)
	}
	// Start at the first indexed event at or past hi, or the head.
	seq, g := h.seq, h.g
	if c := (hi+traceStride-2)/traceStride*traceStride + 1; c < h.seq {
		v := tx.tx.Bucket(bucketTraceIndex).Get(traceIndexKey(sessionID, c))
		if len(v) != 8 {
			return nil, fmt.Errorf("trace index of session %s has no entry for %d: %w", sessionID, c, ErrCorrupt)
		}
		seq, g = c, binary.BigEndian.Uint64(v)
	}
	for ; seq > hi; seq-- {
		if g, _, _, err = tx.traceAt(g); err != nil {
			return nil, err
		}
	}
	out = make([]TraceEvent, hi-afterSeq)
	for ; seq > afterSeq; seq-- {
		ev, prev, _, err := tx.decodeTraceAt(g, sessionID, seq)
		if err != nil {
			return nil, err
		}
		out[seq-afterSeq-1], g = ev, prev
	}
	return out, nil
}

// LastTraceSeq is the sequence number of the session's last event, 0 when it
// has none (or there is no such session, or its head cannot be read).
// Events are gap-free from 1, so it is also their count.
func (tx *Tx) LastTraceSeq(sessionID string) uint64 {
	h, _ := tx.traceHead(sessionID)
	return h.seq
}
