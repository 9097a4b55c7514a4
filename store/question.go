package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Questions: what an agent asks a person, indexed while unanswered so the
// tray and the GUI read only the open ones.

// Question is what an agent asked a person, and the answer once given.
type Question struct {
	ID         string     `json:"id"`
	SessionID  string     `json:"session_id"`
	PacketID   string     `json:"packet_id,omitempty"`
	Text       string     `json:"text"`
	AskedAt    time.Time  `json:"asked_at"`
	Answer     string     `json:"answer,omitempty"`
	AnsweredAt *time.Time `json:"answered_at,omitempty"`
	AnsweredBy string     `json:"answered_by,omitempty"`
}

// Answered reports whether the question has its answer.
func (q *Question) Answered() bool { return q.AnsweredAt != nil }

func (tx *Tx) putQuestion(q *Question) error {
	v, err := json.Marshal(q)
	if err != nil {
		return fmt.Errorf("encode question %s: %w", q.ID, err)
	}
	if err := tx.tx.Bucket(bucketQuestions).Put([]byte(q.ID), v); err != nil {
		return fmt.Errorf("store question %s: %w", q.ID, err)
	}
	return nil
}

// openQuestion stores a new question and puts it at the end of the open
// index.
func (tx *Tx) openQuestion(q *Question) error {
	seq, err := tx.tx.Bucket(bucketQuestions).NextSequence()
	if err != nil {
		return fmt.Errorf("question sequence: %w", err)
	}
	if err := tx.tx.Bucket(bucketOpenQuestions).Put(u64(seq), []byte(q.ID)); err != nil {
		return fmt.Errorf("index question %s: %w", q.ID, err)
	}
	return tx.putQuestion(q)
}

// Question returns one question by id, or a not_found denial.
func (tx *Tx) Question(id string) (Question, error) {
	v := tx.tx.Bucket(bucketQuestions).Get([]byte(id))
	if v == nil {
		return Question{}, Deny(CodeNotFound, "no question %s", id)
	}
	var q Question
	if err := json.Unmarshal(v, &q); err != nil {
		return Question{}, fmt.Errorf("decode question %s: %w", id, err)
	}
	return q, nil
}

// AnswerQuestion records a person's answer. by says who answered (the
// transport or key id); it is stored as given.
//
// It appends no trace event; the caller appends the `answer` event to the
// question's session in the same transaction.
//
// Denials: invalid_argument (empty or over MaxAnswerText), not_found,
// invalid_state (already answered: the first answer stands; or the session
// has ended, so nobody would read it).
func (tx *Tx) AnswerQuestion(qID, answer, by string) (Question, error) {
	if strings.TrimSpace(answer) == "" {
		return Question{}, Deny(CodeInvalidArgument, "the answer is empty")
	}
	if err := checkSessionText("answer", answer, MaxAnswerText); err != nil {
		return Question{}, err
	}
	if len(by) > maxSessionName {
		return Question{}, Deny(CodeInvalidArgument, "answerer longer than %d bytes", maxSessionName)
	}
	q, err := tx.Question(qID)
	if err != nil {
		return Question{}, err
	}
	if q.Answered() {
		return Question{}, Deny(CodeInvalidState, "question %s was answered at %s", qID, q.AnsweredAt.Format(time.RFC3339))
	}
	if _, err := tx.liveSession(q.SessionID); err != nil {
		return Question{}, err
	}
	now := tx.now
	q.Answer, q.AnsweredAt, q.AnsweredBy = answer, &now, by
	if err := tx.unindexQuestions(func(q2 *Question) bool { return q2.ID == qID }); err != nil {
		return Question{}, err
	}
	return q, tx.putQuestion(&q)
}

// closeQuestions drops the open questions of an ending session from the
// open index; the records stay, unanswered.
func (tx *Tx) closeQuestions(sessionID string) error {
	return tx.unindexQuestions(func(q *Question) bool { return q.SessionID == sessionID })
}

// unindexQuestions removes from the open index every question drop selects.
// The index holds only what waits for a person, so a walk is short.
func (tx *Tx) unindexQuestions(drop func(*Question) bool) error {
	var keys [][]byte
	err := tx.forOpenQuestions(func(k []byte, q *Question) error {
		if drop(q) {
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	b := tx.tx.Bucket(bucketOpenQuestions)
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return fmt.Errorf("unindex question: %w", err)
		}
	}
	return nil
}

// forOpenQuestions calls fn for each open question in asking order. k is a
// copy of the index key, safe to keep.
func (tx *Tx) forOpenQuestions(fn func(k []byte, q *Question) error) error {
	return tx.tx.Bucket(bucketOpenQuestions).ForEach(func(k, id []byte) error {
		q, err := tx.Question(string(id))
		if err != nil {
			// Not %w: a missing record here is corruption, not the
			// caller's not_found.
			return fmt.Errorf("open question index: %v", err)
		}
		return fn(append([]byte(nil), k...), &q)
	})
}

// OpenQuestions returns the questions waiting for a person, oldest first:
// unanswered, from sessions still live. For the GUI and the tray's "needs
// you" state.
func (tx *Tx) OpenQuestions() ([]Question, error) {
	out := []Question{}
	err := tx.forOpenQuestions(func(_ []byte, q *Question) error {
		out = append(out, *q)
		return nil
	})
	return out, err
}

// OpenQuestionsOf returns sessionID's questions still waiting for an answer.
func (tx *Tx) OpenQuestionsOf(sessionID string) ([]Question, error) {
	var out []Question
	err := tx.forOpenQuestions(func(_ []byte, q *Question) error {
		if q.SessionID == sessionID {
			out = append(out, *q)
		}
		return nil
	})
	return out, err
}
