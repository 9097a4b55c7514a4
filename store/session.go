package store

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/profile"
)

// Agent sessions, their reports and questions (SPEC §5, §6). The buckets,
// under the tree drawn in schema.go:
//
//	sessions/        <ses_id> -> Session JSON
//	session_order/   <seq BE> -> ses_id, in creation order (the sessions
//	                 bucket's sequence), so a listing pages from the newest
//	                 without decoding every session ever run
//	live_sessions/   <ses_id> -> its session_order seq BE, for every session
//	                 starting or running: the crash sweep and the tray read
//	                 only these
//	questions/       <q_id> -> Question JSON
//	open_questions/  <seq BE> -> q_id, in asking order (the questions
//	                 bucket's sequence), for each unanswered question of a
//	                 live session
//
// A report is kept as the `report` (or `question`) event AddReport
// (report.go) appends to the session's timeline (trace.go). No other method
// of sessions, reports or questions appends a trace event: the caller (the method registry) decides what each
// change means on the timeline and appends it with AppendTrace in the same
// transaction. One writer of each event keeps the timeline free of doubles.
var (
	bucketSessions      = []byte("sessions")
	bucketSessionOrder  = []byte("session_order")
	bucketLiveSessions  = []byte("live_sessions")
	bucketQuestions     = []byte("questions")
	bucketOpenQuestions = []byte("open_questions")

	// sessionBuckets are migration 3's. Its reports/ and trace/ held one
	// nested bucket per session until migration 5 moved them to the
	// trace log.
	sessionBuckets = [][]byte{
		bucketSessions, bucketSessionOrder, bucketLiveSessions, []byte("reports"),
		bucketQuestions, bucketOpenQuestions, []byte("trace"),
	}
)

// Bounds on what agents and callers may store. Beyond them a call is refused
// with invalid_argument rather than cut: an agent should learn that its text
// did not arrive whole.
const (
	// MaxReportText bounds a report's text (and so a question's).
	MaxReportText = 16 << 10
	// MaxAnswerText bounds the answer a person gives to a question.
	MaxAnswerText = 16 << 10
	// maxSessionName bounds identifiers and names stored as given: ids,
	// profile names, who answered.
	maxSessionName = 256
	// maxEndReason is where an end reason is cut (not refused: ending a
	// session must not fail because the reason is long).
	maxEndReason = 1 << 10
)

// SessionKind says who started a session.
type SessionKind string

const (
	// SessionSupervised is an agent the supervisor started in a PTY.
	SessionSupervised SessionKind = "supervised"
	// SessionExternal is an agent started elsewhere that registered itself
	// with a `ready` report.
	SessionExternal SessionKind = "external"
)

// SessionState is where a session is in its life. Starting and running are
// live; ended and lost are final.
type SessionState string

const (
	// SessionStarting: the record exists, the process is not yet known to
	// run.
	SessionStarting SessionState = "starting"
	// SessionRunning: the process runs (or, for an external session, the
	// agent has reported).
	SessionRunning SessionState = "running"
	// SessionEnded: the process exited or was stopped, with Switchboard
	// watching.
	SessionEnded SessionState = "ended"
	// SessionLost: Switchboard stopped watching before the session ended,
	// e.g. the app crashed and the next start found the session still
	// marked live.
	SessionLost SessionState = "lost"
)

// Live reports whether a session in state s may still report and be
// answered.
func (s SessionState) Live() bool { return s == SessionStarting || s == SessionRunning }

func (s SessionState) known() bool {
	return s.Live() || s == SessionEnded || s == SessionLost
}

// Session is one agent run.
type Session struct {
	ID   string      `json:"id"`
	Kind SessionKind `json:"kind"`
	// Instance is the Switchboard instance that runs the session, in
	// team mode (instance.go); "" with a database of one instance.
	Instance     string `json:"instance,omitempty"`
	RepositoryID string `json:"repository_id,omitempty"`
	Profile      string `json:"profile,omitempty"`
	// Packet is the packet a person started the session on (agent.start
	// with a packet): held for it while it lives (Packet.ReservedFor).
	Packet string `json:"packet_id,omitempty"`
	// Name is what the session works on, for people: the packet's title,
	// or a name given at its start; "" for none.
	Name       string       `json:"name,omitempty"`
	TokenKeyID string       `json:"keyid,omitempty"`
	State      SessionState `json:"state"`
	PID        int          `json:"pid,omitempty"`
	// ProcStart is the agent process's start time as the kernel counts it
	// (clock ticks since boot), so a later run can tell the agent from an
	// unrelated process that reused its pid before it stops anything.
	ProcStart    uint64     `json:"proc_start,omitempty"`
	StartedAt    time.Time  `json:"started_at"`
	EndedAt      *time.Time `json:"ended_at,omitempty"`
	ExitCode     *int       `json:"exit_code,omitempty"`
	EndReason    string     `json:"end_reason,omitempty"`
	LastReportAt *time.Time `json:"last_report_at,omitempty"`
	LastReport   *Report    `json:"last_report,omitempty"`
	// Workspace is the git worktree a supervised session works in; nil
	// when it works in the repository's folder itself.
	Workspace *Workspace `json:"workspace,omitempty"`
	// Port is the first of the PortBlock ports a supervised session's
	// agent may listen on (its SWITCHBOARD_PORT), unique among live
	// sessions; 0 for none. It is free again once the session ends.
	Port int `json:"port,omitempty"`
	// ConversationID is the agent CLI's own id of its conversation (see
	// Profile.Conversation): a resume continues that conversation.
	ConversationID string `json:"conversation_id,omitempty"`
	// EndedWithApp is set on a supervised session that ended because the
	// app quit, crashed or was killed while it ran, rather than because
	// its agent exited or a person stopped it (session_resume.go).
	EndedWithApp bool `json:"ended_with_app,omitempty"`
	// Resumes counts the times the session was resumed.
	Resumes int `json:"resumes,omitempty"`
	// Permission is the mode a supervised session's CLI was started in
	// (see Permission); "" for an external session, and for one recorded
	// before the modes, which is ask.
	Permission profile.Permission `json:"permission,omitempty"`
	// Usage is the tokens the session's CLI reported for it (usage.go);
	// nil until first read. UsageGiven is the part already given to its
	// packets' usage when their leases ended.
	Usage      *Usage `json:"usage,omitempty"`
	UsageGiven *Usage `json:"usage_given,omitempty"`
}

// Workspace is a git worktree of Switchboard's: a folder of its own on a
// branch of its own, started from a commit of the base branch.
type Workspace struct {
	Path       string `json:"path"`
	Branch     string `json:"branch"`
	BaseBranch string `json:"base_branch"`
	BaseCommit string `json:"base_commit"`
	// Done is the branch's head when the session last completed a packet
	// (empty before): the next packet's changes are counted from it.
	Done string `json:"done,omitempty"`
}

// validate checks the workspace's form: what git made, recorded as it
// said, so any other shape is a caller's mistake.
func (w Workspace) validate() error {
	switch {
	case !filepath.IsAbs(w.Path) || filepath.Clean(w.Path) != w.Path || len(w.Path) > 4096:
		return Deny(CodeInvalidArgument, "workspace path must be an absolute, clean path")
	case w.Branch == "" || len(w.Branch) > maxBranchName || w.BaseBranch == "" || len(w.BaseBranch) > maxBranchName:
		return Deny(CodeInvalidArgument, "workspace needs its branch and base branch")
	case len(w.BaseCommit) != 40 && len(w.BaseCommit) != 64 || strings.Trim(w.BaseCommit, "0123456789abcdef") != "":
		return Deny(CodeInvalidArgument, "workspace base commit must be a full hex object name")
	}
	return nil
}

// SetSessionWorkspace records the worktree a live session works in, once:
// the folder an agent was started in does not change under it.
func (tx *Tx) SetSessionWorkspace(id string, w Workspace) (Session, error) {
	if err := w.validate(); err != nil {
		return Session{}, err
	}
	s, err := tx.liveSession(id)
	if err != nil {
		return Session{}, err
	}
	if w.Done != "" {
		return Session{}, Deny(CodeInvalidArgument, "a new workspace has done nothing yet")
	}
	if s.Workspace != nil {
		if *s.Workspace == w {
			return s, nil
		}
		return Session{}, Deny(CodeInvalidState, "session %s has its workspace already", id)
	}
	s.Workspace = &w
	return s, tx.putSession(&s)
}

// SessionSpec describes a session to create.
type SessionSpec struct {
	// ID is the session's id; "" makes a new one. A caller names it when
	// it must mint the session token (which carries the session id) before
	// the session record, in the same transaction. It must start with
	// "ses_" and be unused.
	ID   string
	Kind SessionKind
	// RepositoryID, when given, must be registered.
	RepositoryID string
	// Profile is the agent profile a supervised session was started with.
	Profile string
	// TokenKeyID, when given, must name an existing token. EndSession
	// revokes it if it is this session's own session token.
	TokenKeyID string
	PID        int
	// Port, when given, is the first port of a block FreePortBlock chose
	// in the same transaction.
	Port int
	// ConversationID, when given, is the conversation id Switchboard made
	// for the agent CLI.
	ConversationID string
	// Permission is a supervised session's mode ("" is ask).
	Permission profile.Permission
	// Packet is the packet the session is started on, which the caller
	// reserves for it (ReservePacket) in the same transaction.
	Packet string
	// Name is what the session works on (Session.Name).
	Name string
}

// CreateSession records a new session. A supervised session starts in
// "starting" (MarkSessionRunning or its first report moves it on); an
// external one registers with its first report and so starts "running".
// Denials: invalid_argument (kind, id, unknown token), repo_not_registered.
func (tx *Tx) CreateSession(spec SessionSpec) (Session, error) {
	var state SessionState
	switch spec.Kind {
	case SessionSupervised:
		state = SessionStarting
	case SessionExternal:
		state = SessionRunning
	default:
		return Session{}, Deny(CodeInvalidArgument, "session kind must be %q or %q, not %q", SessionSupervised, SessionExternal, spec.Kind)
	}
	id := spec.ID
	if id == "" {
		id = NewID("ses")
	} else {
		if !strings.HasPrefix(id, "ses_") || len(id) <= len("ses_") || len(id) > maxSessionName {
			return Session{}, Deny(CodeInvalidArgument, "session id must start with \"ses_\" and be at most %d bytes", maxSessionName)
		}
		if tx.tx.Bucket(bucketSessions).Get([]byte(id)) != nil {
			return Session{}, Deny(CodeInvalidArgument, "session %s already exists", id)
		}
	}
	if len(spec.Profile) > maxSessionName {
		return Session{}, Deny(CodeInvalidArgument, "profile name longer than %d bytes", maxSessionName)
	}
	if err := checkWorkText("session name", spec.Name, maxSessionName, false); err != nil {
		return Session{}, err
	}
	if err := profile.CheckPermission(spec.Permission); err != nil {
		return Session{}, Deny(CodeInvalidArgument, "%v", err)
	}
	if spec.RepositoryID != "" && !tx.RepositoryExists(spec.RepositoryID) {
		return Session{}, Deny(CodeRepoNotRegistered, "repository %s is not registered", spec.RepositoryID)
	}
	if spec.Port != 0 {
		if err := tx.checkPortBlock(spec.Port); err != nil {
			return Session{}, err
		}
	}
	if spec.ConversationID != "" {
		if err := checkConversationID(spec.ConversationID); err != nil {
			return Session{}, err
		}
	}
	if spec.TokenKeyID != "" {
		if _, ok, err := tx.Token(spec.TokenKeyID); err != nil {
			return Session{}, err
		} else if !ok {
			return Session{}, Deny(CodeInvalidArgument, "no token %s", spec.TokenKeyID)
		}
	}
	s := Session{
		ID:           id,
		Kind:         spec.Kind,
		Instance:     tx.db.instance,
		RepositoryID: spec.RepositoryID,
		Profile:      spec.Profile,
		Packet:       spec.Packet,
		Name:         spec.Name,
		TokenKeyID:   spec.TokenKeyID,
		State:        state,
		PID:          spec.PID,
		Port:         spec.Port,
		Permission:   spec.Permission,
		StartedAt:    tx.now,

		ConversationID: spec.ConversationID,
	}
	seq, err := tx.tx.Bucket(bucketSessions).NextSequence()
	if err != nil {
		return Session{}, fmt.Errorf("session sequence: %w", err)
	}
	if err := tx.tx.Bucket(bucketSessionOrder).Put(u64(seq), []byte(id)); err != nil {
		return Session{}, fmt.Errorf("index session %s: %w", id, err)
	}
	if err := tx.tx.Bucket(bucketLiveSessions).Put([]byte(id), u64(seq)); err != nil {
		return Session{}, fmt.Errorf("index session %s: %w", id, err)
	}
	return s, tx.putSession(&s)
}

func (tx *Tx) putSession(s *Session) error {
	v, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode session %s: %w", s.ID, err)
	}
	if err := tx.tx.Bucket(bucketSessions).Put([]byte(s.ID), v); err != nil {
		return fmt.Errorf("store session %s: %w", s.ID, err)
	}
	tx.db.sessions.stored(s.ID, v, *s)
	return nil
}

// decodeSession decodes the session stored as v, through the DB's cache:
// a session is read by every call its agent makes, often several times.
// scan says the lookup is one of a walk over many sessions.
func (tx *Tx) decodeSession(id, v []byte, scan bool) (Session, error) {
	return tx.db.sessions.decode(string(id), v, scan)
}

// Session returns one session by id, or a not_found denial.
func (tx *Tx) Session(id string) (Session, error) {
	if r := tx.db.reads; r != nil {
		r.Sessions.Add(1)
	}
	v := tx.tx.Bucket(bucketSessions).Get([]byte(id))
	if v == nil {
		return Session{}, Deny(CodeNotFound, "no session %s", id)
	}
	return tx.decodeSession([]byte(id), v, false)
}

// liveSession returns a session that may still report, or not_found or
// invalid_state.
func (tx *Tx) liveSession(id string) (Session, error) {
	s, err := tx.Session(id)
	if err != nil {
		return Session{}, err
	}
	if !s.State.Live() {
		return Session{}, Deny(CodeInvalidState, "session %s has %s", id, s.State)
	}
	return s, nil
}

// MarkSessionRunning moves a starting session to running and records its
// process id and start time (pid 0 keeps the ones recorded). On a running
// session it only records the process. An ended or lost session gives
// invalid_state.
func (tx *Tx) MarkSessionRunning(id string, pid int, procStart uint64) (Session, error) {
	s, err := tx.liveSession(id)
	if err != nil {
		return Session{}, err
	}
	if s.State == SessionRunning && (pid == 0 || pid == s.PID && procStart == s.ProcStart) {
		return s, nil
	}
	s.State = SessionRunning
	if pid != 0 {
		s.PID, s.ProcStart = pid, procStart
	}
	return s, tx.putSession(&s)
}

// EndSession records that a session ended (state SessionEnded) or was lost
// (SessionLost), with its exit code when known. Ending a session that has
// already ended changes nothing and returns it as it was: the first end
// stands, whichever of the supervisor and the crash sweep gets there first.
//
// In the same transaction it drops the session's unanswered questions from
// OpenQuestions (nobody is left to read an answer), and revokes the
// session's token when that token is this session's own session token; a
// client or operator token named by an external session is left alone.
// Releasing the session's leases is the work store's part
// (ReleaseSessionLeases), which the caller runs in the same transaction.
//
// A reason longer than 1 KiB is cut, not refused. Denials: invalid_argument
// (state), not_found.
func (tx *Tx) EndSession(id string, state SessionState, exitCode *int, reason string) (Session, error) {
	if state != SessionEnded && state != SessionLost {
		return Session{}, Deny(CodeInvalidArgument, "a session ends as %q or %q, not %q", SessionEnded, SessionLost, state)
	}
	s, err := tx.Session(id)
	if err != nil {
		return Session{}, err
	}
	if !s.State.Live() {
		return s, nil
	}
	now := tx.now
	s.State = state
	s.EndedAt = &now
	if exitCode != nil {
		code := *exitCode // not the caller's variable
		s.ExitCode = &code
	}
	s.EndReason = cutSessionText(reason, maxEndReason)
	if err := tx.tx.Bucket(bucketLiveSessions).Delete([]byte(id)); err != nil {
		return Session{}, fmt.Errorf("unindex session %s: %w", id, err)
	}
	if err := tx.closeQuestions(id); err != nil {
		return Session{}, err
	}
	if s.TokenKeyID != "" {
		tok, ok, err := tx.Token(s.TokenKeyID)
		if err != nil {
			return Session{}, err
		}
		if ok && tok.Kind == KindSession && tok.SessionID == id {
			if _, err := tx.RevokeToken(tok.KeyID); err != nil {
				return Session{}, err
			}
		}
	}
	return s, tx.putSession(&s)
}

// cutSessionText cuts s to at most n bytes without splitting a character,
// and replaces invalid bytes.
func cutSessionText(s string, n int) string {
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// SessionFilter selects sessions. Empty fields match everything.
type SessionFilter struct {
	State        SessionState `json:"state,omitempty"`
	RepositoryID string       `json:"repository_id,omitempty"`
	// Limit is how many to return: default 100, at most 1000.
	Limit int `json:"limit,omitempty"`
}

// sessionListLimit applies the default (100) and the cap (1000) that the
// session, report and trace listings share with QueryAudit.
func sessionListLimit(n int) int {
	if n <= 0 {
		return 100
	}
	return min(n, 1000)
}

// Sessions lists matching sessions, newest first. Live states are read from
// the live index, so the tray's "which agents run" costs what runs, not
// what ever ran; other listings walk back from the newest session and stop
// at the limit.
func (tx *Tx) Sessions(f SessionFilter) ([]Session, error) {
	if f.State != "" && !f.State.known() {
		return nil, Deny(CodeInvalidArgument, "unknown session state %q", f.State)
	}
	limit := sessionListLimit(f.Limit)
	match := func(s *Session) bool {
		return (f.State == "" || s.State == f.State) && (f.RepositoryID == "" || s.RepositoryID == f.RepositoryID)
	}
	out := []Session{}
	if f.State.Live() {
		live, err := tx.liveSessions()
		if err != nil {
			return nil, err
		}
		slices.Reverse(live)
		for _, s := range live {
			if len(out) == limit {
				break
			}
			if match(&s) {
				out = append(out, s)
			}
		}
		return out, nil
	}
	sessions := tx.tx.Bucket(bucketSessions)
	c := tx.tx.Bucket(bucketSessionOrder).Cursor()
	for k, id := c.Last(); k != nil && len(out) < limit; k, id = c.Prev() {
		v := sessions.Get(id)
		if v == nil {
			return nil, fmt.Errorf("session index names missing session %s", id)
		}
		s, err := tx.decodeSession(id, v, true)
		if err != nil {
			return nil, err
		}
		if match(&s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// RunningSessions returns every live session (starting or running), oldest
// first. At start nothing can be running yet: whatever this returns was left
// behind by a crash, and the sweep ends it as lost.
func (tx *Tx) RunningSessions() ([]Session, error) {
	return tx.liveSessions()
}

// liveSessions returns the sessions in the live index in creation order.
func (tx *Tx) liveSessions() ([]Session, error) {
	type entry struct {
		seq uint64
		s   Session
	}
	var es []entry
	sessions := tx.tx.Bucket(bucketSessions)
	err := tx.tx.Bucket(bucketLiveSessions).ForEach(func(id, seq []byte) error {
		v := sessions.Get(id)
		if v == nil || len(seq) != 8 {
			return fmt.Errorf("live session index names missing session %s", id)
		}
		s, err := tx.decodeSession(id, v, true)
		if err != nil {
			return err
		}
		es = append(es, entry{binary.BigEndian.Uint64(seq), s})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]Session, len(es))
	for i, e := range es {
		out[i] = e.s
	}
	return out, nil
}

// checkSessionText refuses text that is too long or not UTF-8 (which JSON
// would silently mangle).
func checkSessionText(what, s string, limit int) error {
	if len(s) > limit {
		return Deny(CodeInvalidArgument, "%s is %d bytes, at most %d allowed", what, len(s), limit)
	}
	if !utf8.ValidString(s) {
		return Deny(CodeInvalidArgument, "%s is not valid UTF-8", what)
	}
	return nil
}

// checkHead refuses what is not a full hex object name.
func checkHead(head string) error {
	if len(head) != 40 && len(head) != 64 || strings.Trim(head, "0123456789abcdef") != "" {
		return Deny(CodeInvalidArgument, "head must be a full hex object name")
	}
	return nil
}
