package mcpserver

import (
	"encoding/json"
	"strings"

	"github.com/switchboard-dev/switchboard/store"
)

// What a method is, who calls it and over what.

// Transport names where a call came from. It is recorded in every audit
// record.
type Transport string

const (
	TransportMCP      Transport = "mcp"
	TransportMCPSSE   Transport = "mcp-sse"
	TransportMCPStdio Transport = "mcp-stdio"
	TransportRPC      Transport = "rpc"
	TransportGUI      Transport = "gui"
	// TransportGUIView is the GUI's own background refresh reads: a window
	// or the tray's menu re-reading what it shows on a timer or after a
	// change. They are audited and chained like every call, but the
	// default audit query leaves their successful records out
	// (store.AuditRecord.IsView). Only ReadOnly methods may be called over
	// it: a write mislabelled as a view is refused, so no change can hide
	// in the views.
	TransportGUIView    Transport = store.ViewTransport
	TransportSupervisor Transport = "supervisor"
	// TransportHook is the calls a CLI's hooks make to the listener's
	// hook path (supervisor.ClaudeHookPath), outside MCP.
	TransportHook Transport = "hook"
	// TransportStartup is the daemon's own calls while it starts, before
	// it serves anyone (the client token, the remembered port): named
	// apart so the audit log shows which writes no caller asked for. The
	// startup methods refuse every other transport.
	TransportStartup Transport = "startup"
)

// IsMCP reports whether calls on t come from an agent over MCP, where hidden
// methods fail closed.
func (t Transport) IsMCP() bool {
	return t == TransportMCP || t == TransportMCPSSE || t == TransportMCPStdio
}

// Principal is who is calling. The operator (the person, through the GUI or
// the CLI on the owner-only socket) holds every capability; anyone else is a
// token, re-checked inside the call's transaction.
type Principal struct {
	Operator  bool
	KeyID     string
	SessionID string
}

// OperatorPrincipal is the principal of the GUI and the CLI.
func OperatorPrincipal() Principal { return Principal{Operator: true} }

// TokenPrincipal is the principal of an authenticated token.
func TokenPrincipal(t store.Token) Principal {
	return Principal{KeyID: t.KeyID, SessionID: t.SessionID}
}

// Flags say where a method may be seen.
type Flags uint8

const (
	// Hidden methods are refused over MCP with tool_hidden, whatever the
	// token holds: they are for the GUI and CLI.
	Hidden Flags = 1 << iota
	// Internal methods are plumbing and never listed.
	Internal
	// Deprecated methods still work but are not listed.
	Deprecated
	// ReadOnly methods change nothing but the audit log.
	ReadOnly
	// StartupOnly methods are the daemon's own writes while it starts,
	// refused over every transport but TransportStartup: they assume
	// nothing is served yet (revoking "earlier runs'" ephemeral tokens
	// while Switchboard runs would revoke its live client token).
	StartupOnly
	// SecretArgs methods take a secret in their arguments (a raw token):
	// their audit records keep no digest of them, which would confirm a
	// guessed secret.
	SecretArgs
	// Slow methods (ReadOnly ones that read much: verifying the whole audit
	// chain) run their handler in a read transaction of their own, and only
	// their audit record joins the shared write transaction: a ten-second
	// read must not hold every other call's commit.
	Slow
)

// Method is one entry of the registry.
type Method struct {
	Name string
	// Access is the capability the method needs and the object it acts
	// on; the registry checks it before the handler runs.
	Access
	Flags       Flags
	Description string
	// InputSchema is the JSON schema of the arguments object; OutputSchema
	// that of the result. Define derives both from Go types.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// takesRepository is set by Register when the input schema has a
	// repository_id property: tools/call then copies params.repository_id in.
	takesRepository bool
	// Handler runs inside the call's transaction, which group commit shares
	// with other calls: it must not block. A method that waits (a long poll)
	// waits before or between transactions, never inside one. Its result is encoded as
	// JSON; its error, when a *store.Denial, gives the outcome code.
	Handler func(c *Call) (any, error)
	// Prepare, when set, runs once before the call's write transaction and
	// outside it, for what the handler must not do inside a transaction
	// other calls share: reading and hashing a file. Retries and long-poll
	// rounds of the handler reuse its result. It runs under the call's
	// context cut to prepareTimeout. It runs before the write transaction
	// has authorized the call, so it reads the database only through
	// Registry.prepareView, which authorizes first, and its result and
	// error reach the caller only through the handler (Call.Prepared),
	// which runs once the call is authorized.
	Prepare func(c *Call) (any, error)
}

// Visible reports whether m may be listed to agents at all.
func (m *Method) Visible() bool { return m.Flags&(Hidden|Internal|Deprecated) == 0 }

// ToolName is the MCP tool name of a method: dots become underscores, since
// several clients refuse or mangle dotted names.
func ToolName(method string) string { return strings.ReplaceAll(method, ".", "_") }

// TakesRepository reports whether the method's arguments have a
// repository_id: an MCP transport copies params.repository_id in.
func (m *Method) TakesRepository() bool { return m.takesRepository }
