package mcpserver

import (
	"github.com/switchboard-dev/switchboard/store"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodSessionList  Name[store.SessionFilter, SessionListResult] = "session.list"
	MethodSessionGet   Name[SessionGetArgs, SessionDetail]          = "session.get"
	MethodQuestionList Name[NoArgs, QuestionListResult]             = "question.list"
)

// The session views of the GUI (and the CLI): lists and details of
// sessions, their reports and the questions waiting for a person. Hidden
// from MCP: an agent reads its own session through the
// switchboard://sessions/{id} resource.

// SessionListResult is the result of session.list.
type SessionListResult struct {
	Sessions []store.Session `json:"sessions"`
}

// SessionGetArgs are the arguments of session.get.
type SessionGetArgs struct {
	SessionID string `json:"session_id"`
	// Reports is how many of the newest reports to return (default 100).
	Reports int `json:"reports,omitempty"`
}

// SessionDetail is the result of session.get.
type SessionDetail struct {
	Session store.Session `json:"session"`
	// Reports are the newest reports, oldest first.
	Reports []store.Report `json:"reports"`
	// Questions are the session's questions that wait for an answer.
	Questions []store.Question `json:"questions"`
	// LastSeq is the session's newest trace sequence.
	LastSeq uint64 `json:"last_seq"`
}

// QuestionListResult is the result of question.list.
type QuestionListResult struct {
	Questions []store.Question `json:"questions"`
}

func (r *Registry) registerSessionViews() {
	r.Register(Define(MethodSessionList, On(Repository, store.CapAdmin), Hidden|ReadOnly,
		"List sessions, newest first, by state and repository.",
		func(c *Call, in store.SessionFilter) (SessionListResult, error) {
			ss, err := c.Tx.Sessions(in)
			return SessionListResult{Sessions: ss}, err
		}))
	r.Register(Define(MethodSessionGet, On(Session, store.CapAdmin), Hidden|ReadOnly,
		"A session with its newest reports and its open questions.",
		func(c *Call, in SessionGetArgs) (SessionDetail, error) {
			s, err := c.Tx.Session(in.SessionID)
			if err != nil {
				return SessionDetail{}, err
			}
			out := SessionDetail{Session: s, Reports: []store.Report{}, Questions: []store.Question{}, LastSeq: c.Tx.LastTraceSeq(s.ID)}
			if out.Reports, err = c.Tx.Reports(s.ID, in.Reports); err != nil {
				return SessionDetail{}, err
			}
			qs, err := c.Tx.OpenQuestions()
			if err != nil {
				return SessionDetail{}, err
			}
			for _, q := range qs {
				if q.SessionID == s.ID {
					out.Questions = append(out.Questions, q)
				}
			}
			return out, nil
		}))
	r.Register(Define(MethodQuestionList, On(Global, store.CapAdmin), Hidden|ReadOnly,
		"The questions agents asked that wait for a person's answer, oldest first.",
		func(c *Call, _ NoArgs) (QuestionListResult, error) {
			qs, err := c.Tx.OpenQuestions()
			if qs == nil {
				qs = []store.Question{}
			}
			return QuestionListResult{Questions: qs}, err
		}))
}
