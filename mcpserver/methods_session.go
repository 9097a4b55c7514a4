package mcpserver

import (
	"encoding/json"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodSessionReport      Name[ReportArgs, ReportResult]      = "session.report"
	MethodSessionAwaitAnswer Name[AwaitAnswerArgs, AnswerResult] = "session.await_answer"
	MethodSessionAnswer      Name[AnswerArgs, QuestionResult]    = "session.answer"
	MethodSessionEnd         Name[SessionEndArgs, SessionEnded]  = "session.end"
)

// ReportArgs are the arguments of session.report.
type ReportArgs struct {
	SessionID    string `json:"session_id,omitempty" jsonschema:"omit on your first ready report to register a session; a session token implies it"`
	RepositoryID string `json:"repository_id,omitempty" jsonschema:"the repository a new session works in: required on the ready report that opens one"`
	Kind         string `json:"kind" jsonschema:"ready, heartbeat, question or escalate"`
	Text         string `json:"text,omitempty"`
	PacketID     string `json:"packet_id,omitempty"`
}

// ReportResult is the result of session.report.
type ReportResult struct {
	SessionID  string `json:"session_id"`
	ReportID   string `json:"report_id"`
	QuestionID string `json:"question_id,omitempty"`
}

// AwaitAnswerArgs are the arguments of session.await_answer.
type AwaitAnswerArgs struct {
	QuestionID  string `json:"question_id"`
	SessionID   string `json:"session_id,omitempty"`
	WaitSeconds int    `json:"wait_seconds,omitempty" jsonschema:"at most 60 (default 60)"`
}

// AnswerResult is the result of session.await_answer: answered false when
// the wait ended first.
type AnswerResult struct {
	QuestionID string     `json:"question_id"`
	Answered   bool       `json:"answered"`
	Answer     string     `json:"answer,omitempty"`
	AnsweredAt *time.Time `json:"answered_at,omitempty"`
	// ChangesRequested wakes a wait for an answer: packets sent back to the
	// session since it asked. The question stays open.
	ChangesRequested []SentBackPacket `json:"changes_requested,omitempty" jsonschema:"packets a reviewer sent back to you since you asked, with changes requested: take them with work_await_packet (the question stays open)"`
}

// SentBackPacket names a packet sent back for changes, and what the
// reviewer asked.
type SentBackPacket struct {
	PacketID string `json:"packet_id"`
	Title    string `json:"title"`
	Notes    string `json:"notes,omitempty"`
}

// AnswerArgs are the arguments of session.answer.
type AnswerArgs struct {
	QuestionID string `json:"question_id"`
	Answer     string `json:"answer"`
}

// QuestionResult is the result of session.answer.
type QuestionResult struct {
	Question store.Question `json:"question"`
}

func (r *Registry) registerSessions() {
	r.Register(Define(MethodSessionReport, On(OwnSession, store.CapSessionReport), 0,
		"Report ready, heartbeat, question or escalate. ready without a session_id registers your session and returns its id; a question returns question_id for session_await_answer.",
		func(c *Call, in ReportArgs) (ReportResult, error) {
			kind := store.ReportKind(in.Kind)
			ses := c.Principal.SessionID
			if ses == "" {
				ses = in.SessionID
			}
			if ses == "" {
				if kind != store.ReportReady {
					return ReportResult{}, store.Deny(store.CodeInvalidArgument, "session_id is required after the first ready report")
				}
				if in.RepositoryID == "" {
					// Every later call of the session is checked on its
					// repository: a session in none could make no call.
					return ReportResult{}, store.Deny(store.CodeInvalidArgument, "repository_id is required to open a session")
				}
				s, err := c.Tx.CreateSession(store.SessionSpec{Kind: store.SessionExternal, RepositoryID: in.RepositoryID, TokenKeyID: c.Principal.KeyID})
				if err != nil {
					return ReportResult{}, err
				}
				ses = s.ID
				if _, err := c.Tx.AppendTrace(ses, store.TraceEvent{Type: store.TraceSessionOpen, Method: c.Method.Name}); err != nil {
					return ReportResult{}, err
				}
			} else if _, err := c.session(ses); err != nil {
				return ReportResult{}, err
			}
			c.SessionID = ses
			rep, q, err := c.Tx.AddReport(ses, kind, in.Text, in.PacketID)
			if err != nil {
				return ReportResult{}, err
			}
			// The report is its own trace event (store.AddReport).
			out := ReportResult{SessionID: ses, ReportID: rep.ID}
			if q != nil {
				out.QuestionID = q.ID
			}
			if kind == store.ReportQuestion || kind == store.ReportEscalate {
				r.signalAfter(c, attentionKey)
			}
			r.reportSignal(c, ses, kind)
			return out, nil
		}))
	r.Register(Define(MethodSessionAwaitAnswer, On(Question, store.CapSessionReport), ReadOnly,
		"Wait (at most 60 s) for the human's answer to your question.",
		func(c *Call, in AwaitAnswerArgs) (AnswerResult, error) {
			q, err := c.Tx.Question(in.QuestionID)
			if err != nil {
				return AnswerResult{}, err
			}
			ses, err := c.ownSession(q.SessionID)
			if err != nil {
				// Only the asking session's token waits for its answer
				// (an ended session may still read it).
				return AnswerResult{}, err
			}
			if !q.Answered() {
				// A packet of the session's sent back for changes
				// while it waits is news it should act on: the wait
				// ends with it, and the agent asks again later.
				back, err := c.Tx.SentBack(ses.RepositoryID, ses.ID, q.AskedAt)
				if err != nil {
					return AnswerResult{}, err
				}
				if len(back) > 0 {
					out := AnswerResult{QuestionID: q.ID}
					for _, p := range back {
						out.ChangesRequested = append(out.ChangesRequested, SentBackPacket{PacketID: p.ID, Title: p.Title, Notes: p.Review.Notes})
					}
					return out, nil
				}
				if c.Final {
					return AnswerResult{QuestionID: q.ID}, nil
				}
				return AnswerResult{}, c.WaitFor(QuestionKey(q.ID), seconds(in.WaitSeconds, maxWait, maxWait))
			}
			return AnswerResult{QuestionID: q.ID, Answered: true, Answer: q.Answer, AnsweredAt: q.AnsweredAt}, nil
		}))
	r.Register(Define(MethodSessionAnswer, On(Question, store.CapAdmin), Hidden,
		"Answer an agent's question (the person, from the GUI or the CLI).",
		func(c *Call, in AnswerArgs) (QuestionResult, error) {
			q, err := c.Tx.AnswerQuestion(in.QuestionID, in.Answer, "operator")
			if err != nil {
				return QuestionResult{}, err
			}
			if _, err := c.Tx.AppendTrace(q.SessionID, store.TraceEvent{Type: store.TraceAnswer, Method: c.Method.Name, PacketID: q.PacketID}); err != nil && store.CodeOf(err) != store.CodeNotFound {
				return QuestionResult{}, err
			}
			r.signalAfter(c, QuestionKey(q.ID), attentionKey, TraceKey(q.SessionID))
			r.answeredAgent(c, q.SessionID)
			return QuestionResult{Question: q}, nil
		}))
}

// SessionEndArgs are the arguments of session.end.
type SessionEndArgs struct {
	SessionID string `json:"session_id"`
	// Lost marks a session found dead (an app crash) rather than ended.
	Lost     bool   `json:"lost,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// WithApp says the session ends because the app quit, crashed or was
	// killed while it ran (or its resume could not start): a session that
	// can be resumed (store.Session.Resumable) then keeps its leases until
	// they expire, for the resume to carry on with (agent.resume).
	WithApp bool `json:"with_app,omitempty"`
}

// SessionEnded is the result of session.end.
type SessionEnded struct {
	Session  store.Session `json:"session"`
	Released []string      `json:"released_packets"`
}

func (r *Registry) registerSessionEnd() {
	r.Register(Define(MethodSessionEnd, On(Session, store.CapAdmin), Hidden,
		"End a session: its leases go back to the queue, its session token is revoked, its trace gets an exit event.",
		r.endSession))
}

// endSession is session.end in the caller's transaction: the instance sweep
// ends a lost instance's sessions with it, in its own call.
func (r *Registry) endSession(c *Call, in SessionEndArgs) (SessionEnded, error) {
	state := store.SessionEnded
	if in.Lost {
		state = store.SessionLost
	}
	before, err := c.Tx.Session(in.SessionID)
	if err != nil {
		return SessionEnded{}, err
	}
	ses, err := c.Tx.EndSession(in.SessionID, state, in.ExitCode, in.Reason)
	if err != nil {
		return SessionEnded{}, err
	}
	if in.WithApp && before.State.Live() {
		if ses, err = c.Tx.MarkEndedWithApp(ses.ID); err != nil {
			return SessionEnded{}, err
		}
	}
	ps := []store.Packet{}
	if !ses.Resumable() {
		if ps, err = c.Tx.ReleaseSessionLeases(ses.ID, "session ended: "+in.Reason); err != nil {
			return SessionEnded{}, err
		}
	}
	out := SessionEnded{Session: ses, Released: []string{}}
	keys := []string{leasesKey, TraceKey(ses.ID)}
	if ses.RepositoryID != "" {
		// A packet sent back for changes waits for the session
		// that made them; with it gone, agents already waiting
		// on the repository may claim it now.
		keys = append(keys, QueueKey(ses.RepositoryID))
	}
	for _, p := range ps {
		out.Released = append(out.Released, p.ID)
		keys = append(keys, QueueKey(p.RepositoryID))
	}
	exit := map[string]any{"state": state, "exit_code": in.ExitCode, "reason": in.Reason}
	if ses.Resumable() {
		exit["resumable"] = true
	}
	data, _ := json.Marshal(exit)
	if _, err := c.Tx.AppendTrace(ses.ID, store.TraceEvent{Type: store.TraceExit, Method: c.Method.Name, Data: data}); err != nil {
		return SessionEnded{}, err
	}
	r.signalAfter(c, keys...)
	return out, nil
}

// attentionKey is signalled when a question is asked or answered: the tray's
// "needs you" state follows it.
const attentionKey = "attention"
