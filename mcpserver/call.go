package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// Call is one invocation, handed to a Method's Handler.
type Call struct {
	Ctx       context.Context
	Tx        *store.Tx
	Principal Principal
	Transport Transport
	Method    *Method
	Args      json.RawMessage
	// RepositoryID is the repository of the call's object once it is
	// authorized (for a token; the repository_id argument for the
	// operator), "" for a call on no single repository.
	RepositoryID string
	// SessionID is the session the call belongs to: the session token's,
	// or the "session_id" argument.
	SessionID string
	// Final is set on a long poll's last run: answer with what there is.
	Final bool

	afterCommit []func()
	then        func(result any) (any, error)

	// Prepared is what the method's Prepare returned (nil for a method
	// without one), for the handler. When the Prepare failed, the handler
	// does not run: the registry held the error back until the call was
	// authorized, and answers with it then (runHandler).
	Prepared   any
	prepareErr error
	// decoded is the arguments as the Prepare decoded them (Decode), a
	// pointer; nil when it decoded none, or they did not decode.
	decoded any

	// Set by authorize, in the call's transaction.
	objects objectArgs
	token   store.Token

	// Read in the call's transaction, once, and handed on: the packet the
	// arguments name and the session last looked up, for what the call
	// checks of them (their repository, owner, lease, liveness). What a
	// store method writes it reads itself, or is handed these.
	pkt *store.Packet
	ses *store.Session
	// packetRepo is the repository of the packet the arguments name, once
	// resolved. It outlives a transaction: a packet never moves to another
	// repository, so the write after a Prepare's read authorizes without
	// reading the packet again.
	packetRepo string
}

// packet returns the packet id names, read once in the call's transaction.
func (c *Call) packet(id string) (store.Packet, error) {
	if c.pkt != nil && c.pkt.ID == id {
		return *c.pkt, nil
	}
	p, err := c.Tx.Packet(id)
	if err != nil {
		return store.Packet{}, err
	}
	c.pkt = &p
	return p, nil
}

// readSession returns the session id names, read once in the call's
// transaction.
func (c *Call) readSession(id string) (store.Session, error) {
	if c.ses != nil && c.ses.ID == id {
		return *c.ses, nil
	}
	s, err := c.Tx.Session(id)
	if err != nil {
		return store.Session{}, err
	}
	c.ses = &s
	return s, nil
}

// Decode decodes the call's arguments into v, refusing unknown fields so a
// misspelt argument is an error rather than silently ignored.
func (c *Call) Decode(v any) error {
	if len(c.Args) == 0 || string(c.Args) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(c.Args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return store.Deny(store.CodeInvalidArgument, "arguments of %s: %v", c.Method.Name, err)
	}
	if c.Tx == nil {
		// Decoded by a Prepare (outside any transaction): the handler,
		// when it takes the same type, starts from it (Define).
		c.decoded = v
	}
	return nil
}

// AfterCommit runs fn once the call's transaction has committed, for effects
// outside the database (the keyring) that must not happen on rollback.
func (c *Call) AfterCommit(fn func()) { c.afterCommit = append(c.afterCommit, fn) }

// Then runs fn once the transaction has committed, with the handler's
// result, and makes what fn returns the call's result: for work that can
// only happen after the commit and can still fail (starting a process).
// The call's audit record, committed already, says ok; fn records a
// failure with calls of its own.
func (c *Call) Then(fn func(result any) (any, error)) { c.then = fn }

// Result is the outcome of Invoke.
type Result struct {
	Method  string
	AuditID string
	// Value is the method's result when Err is nil.
	Value any
	// Err is a *store.Denial for denials and method errors.
	Err error
}

// Code is the outcome code: "ok" or the denial/error code.
func (r *Result) Code() store.Code {
	if r.Err == nil {
		return "ok"
	}
	return store.CodeOf(r.Err)
}

// reset readies the call for a run in tx: group commit may run a call
// more than once, and each run starts from a clean slate.
func (c *Call) reset(tx *store.Tx) {
	c.Tx, c.afterCommit, c.then = tx, nil, nil
	c.RepositoryID = c.objects.RepositoryID
	c.token, c.pkt, c.ses = store.Token{}, nil, nil
}

// waitFor is what a long-poll handler returns when there is nothing yet: the
// registry waits for a signal on key, until the deadline, and runs it again
// (with Call.Final set once the deadline has passed or the client left).
type waitFor struct {
	key string
	d   time.Duration
}

func (w waitFor) Error() string { return "waiting on " + w.key }

// WaitFor asks the registry to run the call again when key is signalled, or
// with Final set once d has passed (wall-clock time: the transaction clock
// may be a test's). What the handler wrote before it is committed, not
// rolled back, so a long poll must return it before it writes anything it
// would not write on every try.
func (c *Call) WaitFor(key string, d time.Duration) error { return waitFor{key, d} }
