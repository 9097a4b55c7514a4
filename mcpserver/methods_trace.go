package mcpserver

import "github.com/switchboard-dev/switchboard/store"

// The methods of this file, typed with their arguments and results.
const (
	MethodTraceRead Name[TraceReadArgs, TraceReadResult] = "trace.read"
)

// tracePageSize bounds the events read in one transaction.
const tracePageSize = 500

// TraceReadArgs are the arguments of trace.read.
type TraceReadArgs struct {
	SessionID string `json:"session_id" jsonschema:"the session whose trace to read"`
	AfterSeq  uint64 `json:"after_seq,omitempty" jsonschema:"read the events with a greater seq (0: from the first)"`
}

// TraceReadResult is the result of trace.read: the first page of the feed.
type TraceReadResult struct {
	Events []store.TraceEvent `json:"events" jsonschema:"at most 500 events after after_seq, in order"`
	// LastSeq is the session's last sequence number when the page was read.
	LastSeq uint64 `json:"last_seq"`
}

func (r *Registry) registerTraceRead() {
	r.Register(Define(MethodTraceRead, On(Session, store.CapAuditRead), Internal|ReadOnly,
		"Open a session's replay feed: authorize the reader on the session's repository and return the first page of trace events after after_seq.",
		func(c *Call, in TraceReadArgs) (TraceReadResult, error) {
			if in.SessionID == "" {
				return TraceReadResult{}, store.Deny(store.CodeInvalidArgument, "session_id is required")
			}
			s, err := c.Tx.Session(in.SessionID)
			if err != nil {
				return TraceReadResult{}, err
			}
			last := c.Tx.LastTraceSeq(s.ID)
			if in.AfterSeq > last {
				// Sequence numbers never go back: an id from the future is
				// another database's, and waiting for it would look like a
				// feed that hangs.
				return TraceReadResult{}, store.Deny(store.CodeInvalidArgument, "after_seq %d is past the session's last event (%d)", in.AfterSeq, last)
			}
			evs, err := c.Tx.TraceEvents(s.ID, in.AfterSeq, tracePageSize)
			if err != nil {
				return TraceReadResult{}, err
			}
			// Reading a timeline is not an event of it. Left to the
			// registry, the session_id argument would append a tool_call to
			// the very trace being read, and every reconnect of a feed would
			// lengthen what it replays. The audit record keeps the read.
			if c.SessionID == s.ID {
				c.SessionID = ""
			}
			return TraceReadResult{Events: evs, LastSeq: last}, nil
		}))
}
