// Package mcpserver holds the method registry, the only way into
// Switchboard's state, and the transports onto it: MCP over HTTP and the
// local control socket used by the CLI.
package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// Registry maps method names to Methods and runs calls.
type Registry struct {
	db      *store.DB
	log     *slog.Logger
	env     Env
	version string
	commit  *groupCommitter
	sig     *signals
	// origins caches the browser origins saved in Settings.
	origins savedOrigins
	methods map[string]*Method
	// tools maps each method's MCP tool name to it.
	tools  map[string]*Method
	order  []string
	agents *supervisor.Supervisor // nil where no agents run
	// worktrees is Options.Worktrees.
	worktrees string
	sandbox   *Sandbox // nil: agents start unconfined
	// instanceGrace is Options.InstanceGrace.
	instanceGrace time.Duration
	// refreshUsage is Options.RefreshUsage (methods_usage.go).
	refreshUsage UsageRefresher
	// conflicts is what WatchConflicts found (conflicts_watch.go).
	conflicts conflictBook
	// removing is held while a worktree is tidied or discarded: one git
	// at a time takes a worktree away, so a discard never meets a tidy
	// half-way through the same folder.
	removing sync.Mutex
	// tidying counts the tidies that run after an agent exited;
	// WaitTidy waits for them. tidyMu guards starting one against
	// tidyClosed: a WaitGroup must not gain a member while Wait runs, and
	// an agent's exit can still be reported after the close began.
	tidying    sync.WaitGroup
	tidyMu     sync.Mutex
	tidyClosed bool
	// landingNow is the packets work.land is landing now (land_recover.go).
	landingNow landingSet
}

// NewRegistry returns a registry over db with no methods; New adds
// Switchboard's.
func NewRegistry(db *store.DB, opts Options) *Registry {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Env == nil {
		opts.Env = offlineEnv{}
	}
	return &Registry{db: db, log: opts.Log, env: opts.Env, version: opts.Version, agents: opts.Agents, worktrees: opts.Worktrees, sandbox: opts.Sandbox,
		instanceGrace: cmp.Or(opts.InstanceGrace, DefaultInstanceGrace),
		methods:       map[string]*Method{}, tools: map[string]*Method{}, commit: newGroupCommitter(db), sig: newSignals(opts.OnWait)}
}

// HearOtherInstances has the instances that share the registry's database
// (team mode, on PostgreSQL) wake this one's long polls and windows as
// their transactions commit; the program calls it once, as it starts. It
// is not done in New: the listener is a goroutine on a network connection,
// which a test on testing/synctest's clock must not have.
func (r *Registry) HearOtherInstances() { r.db.OnSignal(r.sig.fromOtherInstance) }

// Register adds m. Registering a name twice is a programming error and
// panics at start-up, not at the first call.
func (r *Registry) Register(m Method) {
	if _, dup := r.methods[m.Name]; dup {
		panic("mcpserver: method registered twice: " + m.Name)
	}
	if m.Handler == nil || m.Capability == "" {
		panic("mcpserver: method without handler or capability: " + m.Name)
	}
	if m.Object == objectUndeclared || m.Object > Question {
		panic("mcpserver: method without an object declaration (On(Object, capability)): " + m.Name)
	}
	if m.Flags&Slow != 0 && m.Flags&ReadOnly == 0 {
		panic("mcpserver: a Slow method must be ReadOnly (its handler runs in a read transaction): " + m.Name)
	}
	if m.InputSchema == nil {
		m.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(m.InputSchema, &schema); err != nil {
		panic("mcpserver: input schema of " + m.Name + " is not a JSON object: " + err.Error())
	}
	_, m.takesRepository = schema.Properties["repository_id"]
	// Two names that map to one tool name would leave one method unreachable
	// over MCP: the SDK silently replaces a tool added under a taken name.
	tool := ToolName(m.Name)
	if other, dup := r.tools[tool]; dup {
		panic("mcpserver: methods " + other.Name + " and " + m.Name + " share the tool name " + tool)
	}
	r.methods[m.Name], r.tools[tool] = &m, &m
	r.order = append(r.order, m.Name)
}

// Lookup returns the method named name.
func (r *Registry) Lookup(name string) (*Method, bool) {
	m, ok := r.methods[name]
	return m, ok
}

// Methods returns every method in registration order.
func (r *Registry) Methods() []*Method {
	out := make([]*Method, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.methods[n])
	}
	return out
}

// DB is the database the registry runs on.
func (r *Registry) DB() *store.DB { return r.db }

// principalToken re-reads a token principal's token in tx: revoked and
// expired tokens give their denial. The registry's checks (authorize, the
// streams' watcher) start from it.
func principalToken(tx *store.Tx, p Principal) (store.Token, error) {
	return tx.TokenByKeyID(p.KeyID)
}

// errRollback carries a handler's failure out of the transaction so bbolt
// rolls its writes back; the denial is then audited on its own.
type errRollback struct{ err error }

func (e errRollback) Error() string { return e.err.Error() }

// Invoke runs method as p over transport t. It checks that the method
// exists and may be reached over t, re-checks p's token, checks capability,
// scope and expiry, runs the handler and writes the audit record in the same
// transaction. Denials and failures are audited too, in a transaction of
// their own after the failed one rolled back.
func (r *Registry) Invoke(ctx context.Context, p Principal, t Transport, method string, args json.RawMessage) Result {
	start := time.Now()
	rec := store.AuditRecord{
		Transport:  string(t),
		KeyID:      p.KeyID,
		SessionID:  p.SessionID,
		Method:     method,
		ArgsDigest: store.ArgsDigest(args),
	}
	res := Result{Method: method}
	if len(method) > maxMethodName {
		method = Clip(method, maxMethodName)
		rec.Method, res.Method = method, method
		res.Err = store.Deny(store.CodeMethodUnknown, "no method %q (name cut at %d bytes: method names are at most %d)", method, maxMethodName, maxMethodName)
		return r.auditFailure(res, rec, p.SessionID, start)
	}
	objects, err := parseObjectArgs(args)
	if err != nil {
		res.Err = err
		return r.auditFailure(res, rec, p.SessionID, start)
	}
	repoID := objects.RepositoryID
	rec.Repository = repoID
	m, ok := r.methods[method]
	switch {
	case !ok:
		res.Err = store.Deny(store.CodeMethodUnknown, "no method %q", method)
		return r.auditFailure(res, rec, p.SessionID, start)
	case t.IsMCP() && m.Flags&Hidden != 0:
		res.Err = store.Deny(store.CodeToolHidden, "%s is not available over MCP", method)
		return r.auditFailure(res, rec, p.SessionID, start)
	case m.Flags&StartupOnly != 0 && t != TransportStartup:
		res.Err = store.Deny(store.CodeToolHidden, "%s is called only by Switchboard itself while it starts", method)
		return r.auditFailure(res, rec, p.SessionID, start)
	case t == TransportGUIView && m.Flags&ReadOnly == 0:
		// The refusal is not a view (its outcome is not ok): it shows in
		// the default audit view, where the mislabelled call is seen.
		res.Err = store.Deny(store.CodeToolHidden, "%s changes state: a view refresh may only read", method)
		return r.auditFailure(res, rec, p.SessionID, start)
	}
	if m.Flags&SecretArgs != 0 {
		rec.ArgsDigest = ""
	}
	sessionID := p.SessionID
	if sessionID == "" {
		sessionID = objects.SessionID
	}
	call := &Call{Ctx: ctx, Principal: p, Transport: t, Method: m, Args: args, RepositoryID: repoID, SessionID: sessionID, objects: objects}
	if m.Prepare != nil {
		r.prepare(call)
	}
	// A long poll runs its handler, and when it asks to wait, takes the
	// signal channel and runs it once more before blocking: a change
	// committed between the first try and the wait is seen by the second,
	// one committed after it closes the channel. Waiting happens between
	// transactions, never inside one.
	var waitKey string
	var deadline time.Time
	for {
		var wake <-chan struct{}
		if waitKey != "" {
			wake = r.sig.wait(waitKey)
		}
		res, err = r.attempt(call, rec, start)
		if err != nil && waitKey != "" && !call.Final && ctx.Err() != nil {
			// The caller left during a try of its wait, which its
			// context stopped: the last try runs now, as it does when
			// the caller leaves between tries.
			call.Final = true
			continue
		}
		var wf waitFor
		if !errors.As(err, &wf) {
			break
		}
		if waitKey == "" {
			waitKey, deadline = wf.key, time.Now().Add(wf.d)
			continue
		}
		timer := time.NewTimer(time.Until(deadline))
		select {
		case <-wake:
		case <-timer.C:
			call.Final = true
		case <-ctx.Done():
			call.Final = true
		}
		timer.Stop()
	}
	var rb errRollback
	switch {
	case errors.As(err, &rb):
		res.Err = rb.err
		res.Value = nil
		return r.auditFailure(res, rec, sessionID, start)
	case errors.Is(err, store.ErrUnavailable):
		// The shared database is away (team mode). Every long poll
		// looks again now, and fails the same way, rather than wait
		// out its wait for a signal the store cannot send. No audit
		// record: there is nowhere to write it.
		r.sig.signalAll()
		r.log.Warn("registry call failed: the database is unavailable", "method", method, "transport", t, "err", err)
		// The driver's words stay in the log: they name hosts and
		// sockets, nothing an agent acts on.
		res.Err = store.Deny(store.CodeStoreUnavailable, "%s: the shared database did not answer; it may not have been done: try again", method)
		res.Value = nil
		return res
	case err != nil && ctx.Err() != nil:
		// The caller left, and its context stopped the transaction:
		// nothing was done, and nobody waits for the answer.
		r.log.Info("registry call abandoned: the caller left", "method", method, "transport", t, "err", err)
		res.Err = store.Deny(store.CodeInternal, "%s: the caller left before it committed", method)
		res.Value = nil
		return r.auditFailure(res, rec, sessionID, start)
	case err != nil:
		r.log.Error("registry call failed", "method", method, "transport", t, "err", err)
		res.Err = store.Deny(store.CodeInternal, "%s failed to commit", method)
		res.Value = nil
		return r.auditFailure(res, rec, sessionID, start)
	}
	for _, fn := range call.afterCommit {
		fn()
	}
	if call.then != nil {
		if res.Value, res.Err = call.then(res.Value); res.Err != nil {
			res.Value = nil
		}
	}
	if call.SessionID != "" {
		r.sig.signal(TraceKey(call.SessionID))
	}
	if m.Flags&ReadOnly == 0 {
		r.sig.signal(changedKey)
	}
	return res
}

// changedKey is signalled after every committed call that may have changed
// state (any method not ReadOnly).
const changedKey = "changed"

// Changed returns a channel closed after the next call that may have
// changed state commits. Views (the GUI) re-read when it fires instead of
// polling: every read is an audited call.
func (r *Registry) Changed() <-chan struct{} { return r.sig.wait(changedKey) }

// TraceKey names what a replay feed parks on: a session's trace.
func TraceKey(sessionID string) string { return "trace:" + sessionID }

// TraceChanged returns a channel closed after the next commit that may have
// appended to the session's trace, for live replay feeds.
func (r *Registry) TraceChanged(sessionID string) <-chan struct{} {
	return r.sig.wait(TraceKey(sessionID))
}

// attempt runs the call once: authorization, the handler and its audit
// record in one write transaction shared with other calls (group commit),
// which may run it more than once, so it starts from a clean slate each
// time. A Slow call's handler reads in a transaction of its own first, so
// that a long read holds up nobody's writes; its token is checked again in
// the write, so a token revoked during the read still makes it a denial.
//
// A long poll with nothing yet (its handler returned WaitFor) leaves no
// audit record and commits what it did (the token's use): failing it would
// roll back, and run again, every other call in its batch.
func (r *Registry) attempt(call *Call, rec store.AuditRecord, start time.Time) (Result, error) {
	slow := call.Method.Flags&Slow != 0
	read := Result{Method: rec.Method}
	ctx := call.Ctx
	if call.Final {
		// A long poll's last try runs after its caller has left too,
		// and commits what it did, as any other try does.
		ctx = context.WithoutCancel(ctx)
	}
	if slow {
		var failed error
		err := r.db.View(ctx, func(tx *store.Tx) error {
			call.reset(tx)
			if read.Err = authorize(tx, call); read.Err == nil {
				read.Value, failed = runHandler(call.Method, call)
			}
			return nil
		})
		if err != nil {
			return read, err
		}
		if failed != nil {
			return read, errRollback{failed}
		}
	}
	var res Result
	var wait waitFor
	err := r.commit.update(ctx, func(tx *store.Tx) error {
		call.reset(tx)
		res, wait = read, waitFor{}
		rec.DurationMicros = time.Since(start).Microseconds()
		if res.Err == nil {
			if err := authorize(tx, call); err != nil {
				// Nothing was written: the denial's record commits here.
				res.Err, res.Value = err, nil
			} else {
				if !call.Principal.Operator {
					if err := tx.MarkUsed(call.token); err != nil {
						return err
					}
				}
				rec.Repository = call.RepositoryID
				if !slow {
					v, err := runHandler(call.Method, call)
					if errors.As(err, &wait) {
						return nil
					}
					if err != nil {
						return errRollback{err}
					}
					res.Value = v
				}
			}
		}
		rec.Outcome = "ok"
		if res.Err != nil {
			rec.Outcome = string(res.Code())
		}
		owned := ownSession(call.readSession, call.SessionID, rec.KeyID)
		if rec.SessionID == "" && owned {
			// An external agent names its session in the arguments.
			rec.SessionID = call.SessionID
		}
		if err := tx.AppendAudit(&rec); err != nil {
			return err
		}
		res.AuditID = rec.ID
		if call.Method.Flags&ReadOnly == 0 {
			// The other instances' windows follow changes too.
			tx.Notify(changedKey)
		}
		return traceCall(tx, owned, call.SessionID, &rec)
	})
	if err == nil && wait.key != "" {
		return res, wait
	}
	return res, err
}

// ownSession reports whether sessionID names a session of the token keyID
// (any session, for the operator's empty key id), read with read.
func ownSession(read func(id string) (store.Session, error), sessionID, keyID string) bool {
	if sessionID == "" {
		return false
	}
	s, err := read(sessionID)
	return err == nil && (keyID == "" || s.TokenKeyID == keyID)
}

// traceCall appends the call's trace event to its session, in the call's
// transaction: a denial or a tool call. Calls that name no known session,
// or a session that is not the caller's (owned is false), leave no trace: a
// stranger must not write into another agent's record by naming its
// session.
func traceCall(tx *store.Tx, owned bool, sessionID string, rec *store.AuditRecord) error {
	if !owned {
		return nil
	}
	typ := store.TraceToolCall
	if rec.Outcome != "ok" {
		typ = store.TraceDenial
	}
	data, _ := json.Marshal(map[string]string{"outcome": rec.Outcome})
	_, err := tx.AppendTrace(sessionID, store.TraceEvent{Type: typ, Method: rec.Method, AuditID: rec.ID, Data: data})
	if err != nil && store.CodeOf(err) == store.CodeNotFound {
		return nil
	}
	return err
}

// runHandler runs m's handler, turning a panic into an internal error: a bug
// in one method must not take the server, or a batch of other calls, down.
// A call whose Prepare failed is answered with that failure instead.
func runHandler(m *Method, c *Call) (v any, err error) {
	if c.prepareErr != nil {
		return nil, c.prepareErr
	}
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("%s panicked: %v", m.Name, p)
		}
	}()
	return m.Handler(c)
}

// RefuseTool audits a tools/call whose tool name names no method and returns
// its method_unknown denial. A name past maxMethodName is cut, and the
// answer says so: the caller chose its length, the audit log did not.
func (r *Registry) RefuseTool(p Principal, t Transport, tool string) Result {
	d := store.Deny(store.CodeMethodUnknown, "no tool %q", tool)
	if len(tool) > maxMethodName {
		tool = Clip(tool, maxMethodName)
		d = store.Deny(store.CodeMethodUnknown, "no tool %q (name cut at %d bytes: tool names are at most %d)", tool, maxMethodName, maxMethodName)
	}
	rec := store.AuditRecord{Transport: string(t), KeyID: p.KeyID, SessionID: p.SessionID, Method: tool}
	return r.auditFailure(Result{Method: tool, Err: d}, rec, p.SessionID, time.Now())
}

func (r *Registry) auditFailure(res Result, rec store.AuditRecord, sessionID string, start time.Time) Result {
	rec.Outcome = string(res.Code())
	rec.DurationMicros = time.Since(start).Microseconds()
	// Recorded whether or not the caller is still there.
	err := r.commit.update(context.Background(), func(tx *store.Tx) error {
		if err := tx.AppendAudit(&rec); err != nil {
			return err
		}
		return traceCall(tx, ownSession(tx.Session, sessionID, rec.KeyID), sessionID, &rec)
	})
	if err != nil {
		r.log.Error("audit of a failed call could not be written", "method", rec.Method, "err", err)
		return res
	}
	if sessionID != "" {
		r.sig.signal(TraceKey(sessionID))
	}
	res.AuditID = rec.ID
	return res
}

// MethodForTool maps a tool name (or a dotted method name) back to a method.
func (r *Registry) MethodForTool(name string) (*Method, bool) {
	if m, ok := r.methods[name]; ok {
		return m, true
	}
	m, ok := r.tools[name]
	return m, ok
}

// ---- authorization: the one place tokens and grants are looked at ----

// authorize checks the call's principal inside the transaction: the token
// is re-read (it may have been revoked since the transport authenticated
// it), the method's object is resolved to its repository and the grant is
// checked there. On success it sets the call's RepositoryID to the
// object's repository. It only reads: a Slow call runs it in a read
// transaction too.
func authorize(tx *store.Tx, c *Call) error {
	if c.Principal.Operator {
		return nil
	}
	tok, err := principalToken(tx, c.Principal)
	if err != nil {
		return err
	}
	c.token = tok
	capability := c.Method.Access.Capability
	// Without any grant of the capability the object is not even looked
	// at: nothing about it is revealed, not even whether it exists.
	if err := tx.AuthorizeAny(tok, capability); err != nil {
		return err
	}
	repo, err := resolveRepository(tx, c)
	if err != nil {
		return err
	}
	if repo == "" {
		// A Global call that names no repository: its handler answers
		// within the scope.
		return nil
	}
	if err := tx.Authorize(tok, capability, repo); err != nil {
		return hideObject(c, err)
	}
	if repo != store.AllRepositories {
		c.RepositoryID = repo
	}
	return nil
}

// Permits says whether the caller could call m on repoID (on some
// repository when repoID is ""), with the denial it would get: what
// listings of tools show and tools.describe answers.
func (c *Call) Permits(m *Method, repoID string) error {
	return permits(c.Tx, c.Principal, c.token, m, repoID)
}

func permits(tx *store.Tx, p Principal, tok store.Token, m *Method, repoID string) error {
	switch {
	case p.Operator:
		return nil
	case repoID == "":
		return tx.AuthorizeAny(tok, m.Capability)
	}
	return tx.Authorize(tok, m.Capability, repoID)
}

// ToolsFor returns the tool names p may see listed, for repository repoID
// when not empty.
func (r *Registry) ToolsFor(ctx context.Context, p Principal, repoID string) map[string]bool {
	out := map[string]bool{}
	r.db.View(ctx, func(tx *store.Tx) error {
		ms, err := r.callable(tx, p, repoID)
		for _, m := range ms {
			out[ToolName(m.Name)] = true
		}
		return err
	})
	return out
}

// callable returns the visible methods p may call on repoID (on some
// repository when ""): what tools/list, tools.search and the catalogue
// show.
func (r *Registry) callable(tx *store.Tx, p Principal, repoID string) ([]*Method, error) {
	var tok store.Token
	if !p.Operator {
		var err error
		if tok, err = principalToken(tx, p); err != nil {
			return nil, err
		}
	}
	var out []*Method
	for _, m := range r.Methods() {
		if m.Visible() && permits(tx, p, tok, m, repoID) == nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// MayCall reports whether p holds the capability of method on some
// repository: whether a resource or the prompt is listed to it.
func (r *Registry) MayCall(ctx context.Context, p Principal, method string) bool {
	m, ok := r.methods[method]
	if !ok {
		return false
	}
	return r.db.View(ctx, func(tx *store.Tx) error {
		var tok store.Token
		if !p.Operator {
			var err error
			if tok, err = principalToken(tx, p); err != nil {
				return err
			}
		}
		return permits(tx, p, tok, m, "")
	}) == nil
}
