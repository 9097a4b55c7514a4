package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Reports: what a session says of itself (ready, heartbeat, question,
// escalate), kept as events of its timeline in the trace log.

// ReportKind is what an agent's report says.
type ReportKind string

const (
	ReportReady     ReportKind = "ready"     // the agent is up and connected
	ReportHeartbeat ReportKind = "heartbeat" // still alive, optionally with progress text
	ReportQuestion  ReportKind = "question"  // needs a person's answer; creates a Question
	ReportEscalate  ReportKind = "escalate"  // needs a person's attention
)

func (k ReportKind) known() bool {
	switch k {
	case ReportReady, ReportHeartbeat, ReportQuestion, ReportEscalate:
		return true
	}
	return false
}

// Report is one session.report call.
type Report struct {
	ID string `json:"id"`
	// Seq is the sequence number of the report's trace event: increasing,
	// not gap-free (other events come between reports).
	Seq        uint64     `json:"seq"`
	SessionID  string     `json:"session_id"`
	Kind       ReportKind `json:"kind"`
	Text       string     `json:"text,omitempty"`
	PacketID   string     `json:"packet_id,omitempty"`
	QuestionID string     `json:"question_id,omitempty"`
	At         time.Time  `json:"at"`
}

// AddReport records a report from a live session and makes it the session's
// last report. A `question` report also creates the Question (returned, nil
// otherwise) and puts it on OpenQuestions. Any report from a starting
// session is proof of life and moves it to running.
//
// packetID is stored as given: whether the packet exists and belongs to the
// session is the work store's question, asked by the caller.
//
// The report is stored as the session's next trace event, `report` (or
// `question`), with method session.report: the caller appends no event of
// its own for it.
//
// Denials: invalid_argument (kind; text over MaxReportText or not UTF-8;
// empty text for a question or an escalation), not_found, invalid_state
// (the session has ended or is lost).
func (tx *Tx) AddReport(sessionID string, kind ReportKind, text, packetID string) (Report, *Question, error) {
	if !kind.known() {
		return Report{}, nil, Deny(CodeInvalidArgument, "report kind must be ready, heartbeat, question or escalate, not %q", kind)
	}
	if err := checkSessionText("report text", text, MaxReportText); err != nil {
		return Report{}, nil, err
	}
	if (kind == ReportQuestion || kind == ReportEscalate) && strings.TrimSpace(text) == "" {
		return Report{}, nil, Deny(CodeInvalidArgument, "a %s report needs text", kind)
	}
	if len(packetID) > maxSessionName {
		return Report{}, nil, Deny(CodeInvalidArgument, "packet id longer than %d bytes", maxSessionName)
	}
	s, err := tx.liveSession(sessionID)
	if err != nil {
		return Report{}, nil, err
	}
	if packetID != "" {
		// A report about a packet is about one of the session's own
		// repository: a session must not tie its words to another
		// repository's work, nor learn from the answer that it exists.
		p, err := tx.Packet(packetID)
		if err != nil && CodeOf(err) != CodeNotFound {
			return Report{}, nil, err
		}
		if err != nil || (s.RepositoryID != "" && p.RepositoryID != s.RepositoryID) {
			return Report{}, nil, Deny(CodeCapabilityScopeMismatch, "packet %s is not one of this session's repository", packetID)
		}
	}
	r := Report{ID: NewID("rep"), Kind: kind, Text: text, PacketID: packetID}
	typ := TraceReport
	var q *Question
	if kind == ReportQuestion {
		q = &Question{ID: NewID("q"), SessionID: sessionID, PacketID: packetID, Text: text, AskedAt: tx.now}
		r.QuestionID = q.ID
		typ = TraceQuestion
		if err := tx.openQuestion(q); err != nil {
			return Report{}, nil, err
		}
	}
	ev, err := tx.appendTrace(sessionID, TraceEvent{Type: typ, Method: "session.report", PacketID: packetID, Report: &r})
	if err != nil {
		return Report{}, nil, err
	}
	r = *ev.Report
	last := r
	at := tx.now
	s.LastReport, s.LastReportAt = &last, &at
	if s.State == SessionStarting {
		s.State = SessionRunning
	}
	if err := tx.putSession(&s); err != nil {
		return Report{}, nil, err
	}
	return r, q, nil
}

// Reports returns a session's newest reports, at most limit of them
// (default 100, at most 1000), oldest first. It follows the chain of the
// session's report events back from the newest, so it costs the reports it
// returns, however many other events came between them.
func (tx *Tx) Reports(sessionID string, limit int) ([]Report, error) {
	if _, err := tx.Session(sessionID); err != nil {
		return nil, err
	}
	h, err := tx.traceHead(sessionID)
	if err != nil {
		return nil, err
	}
	limit = sessionListLimit(limit)
	var out []Report
	for g := h.report; g != 0 && len(out) < limit; {
		_, prevReport, js, err := tx.traceAt(g)
		if err != nil {
			return nil, err
		}
		var ev TraceEvent
		if err := json.Unmarshal(js, &ev); err != nil {
			return nil, fmt.Errorf("decode trace log entry %d: %v: %w", g, err, ErrCorrupt)
		}
		if ev.Report == nil || ev.SessionID != sessionID {
			return nil, fmt.Errorf("trace log entry %d is not a report of session %s: %w", g, sessionID, ErrCorrupt)
		}
		out = append(out, *ev.Report)
		g = prevReport
	}
	slices.Reverse(out)
	if out == nil {
		out = []Report{}
	}
	return out, nil
}
