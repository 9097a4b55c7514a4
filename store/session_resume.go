package store

import (
	"bytes"
	"fmt"
	"regexp"
)

// Resuming a supervised session after the app quit, crashed or was killed
// while it ran. The session keeps its id: its worktree, its timeline and
// the lease of the packet it worked on (while the lease lasts) are the
// session's, and a resume re-opens it with a new token and a new process,
// rather than making a new session that would have to take all of them
// over.

// conversationID is what a CLI's conversation id may look like: a UUID, or
// a name of the same characters.
var conversationID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

func checkConversationID(id string) error {
	if !conversationID.MatchString(id) {
		return Deny(CodeInvalidArgument, "conversation id must match %s", conversationID)
	}
	return nil
}

// Resumable reports whether the store's part of a resume allows one: the
// session ended with the app, its CLI's conversation id is known, and it
// worked in a worktree of its own (a resume runs there; the repository's
// folder may have moved on under another agent). Whether the worktree
// still exists and the profile can resume are the caller's to check.
func (s Session) Resumable() bool {
	return s.Kind == SessionSupervised && !s.State.Live() && s.EndedWithApp &&
		s.ConversationID != "" && s.Workspace != nil
}

// SetSessionConversation records the conversation id a live session's CLI
// picked for itself, once; recording the same id again changes nothing.
func (tx *Tx) SetSessionConversation(id, conversation string) (Session, error) {
	if err := checkConversationID(conversation); err != nil {
		return Session{}, err
	}
	s, err := tx.liveSession(id)
	if err != nil {
		return Session{}, err
	}
	switch s.ConversationID {
	case conversation:
		return s, nil
	case "":
	default:
		return Session{}, Deny(CodeInvalidState, "session %s has its conversation id already", id)
	}
	s.ConversationID = conversation
	return s, tx.putSession(&s)
}

// MarkEndedWithApp records that the session, which has just ended, ended
// because the app quit or crashed with it running.
func (tx *Tx) MarkEndedWithApp(id string) (Session, error) {
	s, err := tx.Session(id)
	if err != nil {
		return Session{}, err
	}
	if s.State.Live() {
		return Session{}, Deny(CodeInvalidState, "session %s is still %s", id, s.State)
	}
	if s.EndedWithApp {
		return s, nil
	}
	s.EndedWithApp = true
	return s, tx.putSession(&s)
}

// ReopenSession brings a Resumable session back to "starting" for a resume,
// with tokenKeyID (a new session token of its own) and port (a block
// FreePortBlock chose in the same transaction, or 0). What the ended run
// recorded of its end is cleared; the session is live again, listed where
// it was. Denials: not_found, invalid_state (not resumable),
// invalid_argument (token, port).
func (tx *Tx) ReopenSession(id, tokenKeyID string, port int) (Session, error) {
	s, err := tx.Session(id)
	if err != nil {
		return Session{}, err
	}
	if !s.Resumable() {
		return Session{}, Deny(CodeInvalidState, "session %s cannot be resumed: %s", id, notResumable(s))
	}
	if tokenKeyID != "" {
		if _, ok, err := tx.Token(tokenKeyID); err != nil {
			return Session{}, err
		} else if !ok {
			return Session{}, Deny(CodeInvalidArgument, "no token %s", tokenKeyID)
		}
	}
	if port != 0 {
		if err := tx.checkPortBlock(port); err != nil {
			return Session{}, err
		}
	}
	seq, err := tx.sessionSeq(id)
	if err != nil {
		return Session{}, err
	}
	if err := tx.tx.Bucket(bucketLiveSessions).Put([]byte(id), seq); err != nil {
		return Session{}, fmt.Errorf("index session %s: %w", id, err)
	}
	s.State = SessionStarting
	s.TokenKeyID, s.Port = tokenKeyID, port
	s.PID, s.ProcStart = 0, 0
	s.EndedAt, s.ExitCode, s.EndReason = nil, nil, ""
	s.EndedWithApp = false
	s.Resumes++
	return s, tx.putSession(&s)
}

// notResumable says why s is not Resumable, for a denial a person reads.
func notResumable(s Session) string {
	switch {
	case s.Kind != SessionSupervised:
		return "Switchboard did not start its agent"
	case s.State.Live():
		return "it is " + string(s.State)
	case !s.EndedWithApp:
		return "it did not end with the app (its agent exited or was stopped)"
	case s.ConversationID == "":
		return "its agent's conversation id is not known"
	default:
		return "it worked in no worktree of its own"
	}
}

// sessionSeq finds the session's key in session_order, walking back from
// the newest: a session resumed is nearly always a recent one.
func (tx *Tx) sessionSeq(id string) ([]byte, error) {
	c := tx.tx.Bucket(bucketSessionOrder).Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		if bytes.Equal(v, []byte(id)) {
			return bytes.Clone(k), nil
		}
	}
	return nil, fmt.Errorf("session %s is missing from the session order", id)
}

// SessionLeases returns the packets leased to sessionID whose lease has
// not expired: what a resumed session still holds. It reads the session's
// entries of the leases_by_session index only.
func (tx *Tx) SessionLeases(sessionID string) ([]Packet, error) {
	prefix := leaseBySessionKey(sessionID, "")
	var out []Packet
	c := tx.tx.Bucket(bucketLeasesBySession).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		p, _, err := tx.packet(string(k[len(prefix):]))
		if err != nil {
			return nil, fmt.Errorf("session lease index: %w", err)
		}
		if p.Lease != nil && p.Lease.SessionID == sessionID && tx.now.Before(p.Lease.ExpiresAt) {
			out = append(out, *p)
		}
	}
	return out, nil
}
