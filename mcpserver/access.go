package mcpserver

import (
	"encoding/json"

	"github.com/switchboard-dev/switchboard/store"
)

// Authorization has one path. Each method declares, once, the capability it
// needs and the object it acts on; before the handler runs, the registry
// resolves that object inside the call's transaction, finds the repository
// it belongs to and checks the caller's grant for that repository. Handlers
// never look at tokens or grants: what they may need of them (the scope of
// a listing, which other methods the caller may use) the Call gives. This
// file says what objects are and how one is found; the checks themselves
// (authorize, permits) are registry.go's.

// Object is the kind of thing a method acts on, named by one argument.
type Object uint8

const (
	// objectUndeclared is the zero value: Register refuses it, so a new
	// method cannot forget to say what it acts on.
	objectUndeclared Object = iota
	// Global methods act on no repository's objects (status, the tool
	// catalogue, the operator's own settings). The capability must be held
	// on some repository; a repository_id argument, when given, is checked
	// like a Repository object, and the handler limits its answer to
	// Call.Scope.
	Global
	// Repository: arguments.repository_id. A call that names none acts on
	// every repository (a listing) and needs a grant on every repository.
	Repository
	// Packet: arguments.packet_id, checked on the packet's repository.
	Packet
	// Session: arguments.session_id (else the session token's own session),
	// checked on the session's repository. Any session of a repository the
	// caller holds the capability on: for reads of timelines.
	Session
	// OwnSession: the caller's own session (the session token's, or
	// arguments.session_id of a session this token opened), checked on its
	// repository. A call that names no session opens one in
	// arguments.repository_id, which it then needs.
	OwnSession
	// Question: arguments.question_id, checked on the repository of the
	// session that asked it.
	Question
)

var objectNames = [...]string{"undeclared", "global", "repository", "packet", "session", "own session", "question"}

func (o Object) String() string {
	if int(o) < len(objectNames) {
		return objectNames[o]
	}
	return "unknown"
}

// Access is what a method needs: a capability, on its object.
type Access struct {
	Capability store.Capability
	Object     Object
}

// On declares that a method needs capability c on object o.
func On(o Object, c store.Capability) Access { return Access{Capability: c, Object: o} }

// Name is a method's name, typed with its arguments and result, so the GUI
// (through Invoke) and the CLI (through its typed call over the socket) pass
// the types the handler takes and get the type it returns, checked by the
// compiler.
type Name[In, Out any] string

// objectArgs are the arguments that name a call's object. One decode of
// the arguments finds them all.
type objectArgs struct {
	RepositoryID string `json:"repository_id"`
	PacketID     string `json:"packet_id"`
	SessionID    string `json:"session_id"`
	QuestionID   string `json:"question_id"`
}

// parseObjectArgs reads the object-naming arguments; a call whose arguments
// are not an object is refused before anything runs. Each is cut to
// maxIDLength: an id is never longer, and whatever the caller sent ends up
// in the audit record and in error texts.
func parseObjectArgs(args json.RawMessage) (objectArgs, error) {
	var a objectArgs
	if len(args) == 0 || string(args) == "null" {
		return a, nil
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return a, store.Deny(store.CodeInvalidArgument, "arguments must be a JSON object: %v", err)
	}
	a.RepositoryID = Clip(a.RepositoryID, maxIDLength)
	a.PacketID = Clip(a.PacketID, maxIDLength)
	a.SessionID = Clip(a.SessionID, maxIDLength)
	a.QuestionID = Clip(a.QuestionID, maxIDLength)
	return a, nil
}

// resolveRepository returns the repository the call's object belongs to:
// "" for a Global call that names none, store.AllRepositories for a call on
// every repository. An object that does not exist resolves to
// store.AllRepositories: only a caller who may see every repository learns
// (from the handler) that it does not exist; anyone else is refused as for
// another repository's object.
func resolveRepository(tx *store.Tx, c *Call) (string, error) {
	a := c.objects
	switch c.Method.Access.Object {
	case Global:
		return a.RepositoryID, nil
	case Repository:
		if a.RepositoryID == "" {
			return store.AllRepositories, nil
		}
		return a.RepositoryID, nil
	case Packet:
		if a.PacketID == "" {
			return "", store.Deny(store.CodeInvalidArgument, "packet_id is required")
		}
		if c.packetRepo != "" {
			return c.packetRepo, nil
		}
		p, err := c.packet(a.PacketID)
		if err == nil {
			c.packetRepo = p.RepositoryID
		}
		return orEverywhere(p.RepositoryID, err)
	case Session:
		id := a.SessionID
		if id == "" {
			id = c.Principal.SessionID
		}
		if id == "" {
			return "", store.Deny(store.CodeInvalidArgument, "session_id is required")
		}
		s, err := c.readSession(id)
		return orEverywhere(sessionRepository(s), err)
	case OwnSession:
		if c.Principal.SessionID == "" && a.SessionID == "" {
			// The call opens a session, in the repository it names.
			if a.RepositoryID == "" {
				return "", store.Deny(store.CodeInvalidArgument, "repository_id is required to open a session")
			}
			return a.RepositoryID, nil
		}
		s, err := c.ownSession(a.SessionID)
		if err != nil {
			return "", err
		}
		return sessionRepository(s), nil
	case Question:
		if a.QuestionID == "" {
			return "", store.Deny(store.CodeInvalidArgument, "question_id is required")
		}
		q, err := tx.Question(a.QuestionID)
		if err != nil {
			return orEverywhere("", err)
		}
		s, err := tx.Session(q.SessionID)
		return orEverywhere(sessionRepository(s), err)
	}
	return "", store.Deny(store.CodeInternal, "%s declares no object", c.Method.Name)
}

// orEverywhere maps a lookup that found nothing to every repository.
func orEverywhere(repo string, err error) (string, error) {
	switch {
	case err == nil:
		return repo, nil
	case store.CodeOf(err) == store.CodeNotFound:
		return store.AllRepositories, nil
	}
	return "", err
}

// sessionRepository is the repository a session's calls are checked on. A
// session that names none (registered before sessions had to) is any
// repository's business only for a caller who holds every repository.
func sessionRepository(s store.Session) string {
	if s.RepositoryID == "" {
		return store.AllRepositories
	}
	return s.RepositoryID
}

// hideObject turns a denial on an object's repository into one that says
// nothing about the object: not its repository, its state, or whether it
// exists. Calls that name a repository themselves keep the store's text.
func hideObject(c *Call, err error) error {
	code := store.CodeOf(err)
	if code != store.CodeCapabilityScopeMismatch && code != store.CodeRepoNotRegistered {
		return err
	}
	kind, id := c.Method.Access.Object, ""
	switch kind {
	case Packet:
		id = c.objects.PacketID
	case Session:
		id = c.objects.SessionID
	case Question:
		id = c.objects.QuestionID
	default:
		return err
	}
	return store.Deny(store.CodeCapabilityScopeMismatch, "token %s may not use %s on %s %s", c.Principal.KeyID, c.Method.Access.Capability, kind, id)
}

// Scope is where the caller may use the method's capability: every
// repository for the operator. A Global method limits what it returns to
// it; for other methods it is the object's repository. It is read from the
// token the call's transaction read, when a handler asks: most never do.
func (c *Call) Scope() store.Scope {
	if c.Principal.Operator {
		return store.Scope{All: true}
	}
	return c.Tx.Scope(c.token, c.Method.Access.Capability)
}

// Token is the caller's token as the call's transaction read it (the zero
// Token for the operator).
func (c *Call) Token() store.Token { return c.token }

// ownSession resolves the session a call acts for: the session token's own,
// or the argument, which must name a live session of the caller's token. A
// session token may not act for another session.
func (c *Call) ownSession(arg string) (store.Session, error) {
	id := c.Principal.SessionID
	switch {
	case id != "" && arg != "" && arg != id:
		return store.Session{}, store.Deny(store.CodeCapabilityScopeMismatch, "this token belongs to session %s", id)
	case id == "":
		id = arg
	}
	if id == "" {
		return store.Session{}, store.Deny(store.CodeInvalidArgument, "session_id is required (session_report ready registers one)")
	}
	s, err := c.readSession(id)
	if err != nil {
		if store.CodeOf(err) == store.CodeNotFound && !c.Principal.Operator {
			return store.Session{}, store.Deny(store.CodeCapabilityScopeMismatch, "session %s is not this token's", id)
		}
		return store.Session{}, err
	}
	if !c.Principal.Operator && s.TokenKeyID != c.Principal.KeyID {
		return store.Session{}, store.Deny(store.CodeCapabilityScopeMismatch, "session %s is not this token's", id)
	}
	return s, nil
}
