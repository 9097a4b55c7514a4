package hostwire

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The protocol versions this package speaks. A change that an older peer
// would misread raises Version; MinVersion rises only when the oldest
// version is dropped.
//
// Version 2 replaced version 1's catch-up (a replay of the newest output)
// with the agent's screen state (TypeState) and added the resize event;
// version 1 never left development, so nothing speaks it.
const (
	Version    = 2
	MinVersion = 2
)

// Hello is the first frame each side sends. The client sends first; the
// host answers with its own, or with Refused set and then closes.
type Hello struct {
	// Protocol is the newest version the sender speaks, MinProtocol the
	// oldest.
	Protocol    int `json:"protocol"`
	MinProtocol int `json:"min_protocol"`
	// PID is the sender's process id.
	PID int `json:"pid"`
	// Binary is the sender's program version ("0.1.0").
	Binary string `json:"binary"`
	// Started is when the sender started.
	Started time.Time `json:"started"`
	// Refused, in a host's answer, says why it will not talk to this
	// client.
	Refused *Refusal `json:"refused,omitempty"`
}

// Refusal is why a host turned a client away.
type Refusal struct {
	// Code is RefusedVersion or RefusedPeer.
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Refusal codes.
const (
	// RefusedVersion: the two sides speak no version in common.
	RefusedVersion = "version"
	// RefusedPeer: the client is not one the host talks to (another
	// user, or a process one of its agents started).
	RefusedPeer = "peer"
)

// ErrVersion is the cause of a connection refused because its two sides
// speak no protocol version in common.
var ErrVersion = errors.New("no protocol version in common")

// ErrPeer is the cause of a connection the host refused for who the client
// is.
var ErrPeer = errors.New("the agent host refused this client")

// Negotiate is the version two sides speak: the newest both do. The error
// wraps ErrVersion and names both ranges.
func Negotiate(local, remote Hello) (int, error) {
	v := min(local.Protocol, remote.Protocol)
	if v < max(local.MinProtocol, remote.MinProtocol) || v < 1 {
		return 0, fmt.Errorf("%w: this side speaks %s, the other %s", ErrVersion, span(local), span(remote))
	}
	return v, nil
}

func span(h Hello) string {
	if h.MinProtocol == h.Protocol || h.MinProtocol == 0 {
		return fmt.Sprintf("version %d", h.Protocol)
	}
	return fmt.Sprintf("versions %d to %d", h.MinProtocol, h.Protocol)
}

// Ops a Request names.
const (
	OpLaunch = "launch" // Launch: start an agent
	OpAttach = "attach" // Session: screen state, then live output
	OpDetach = "detach" // Session: no more output on this connection
	OpResize = "resize" // Session, Size
	OpSignal = "signal" // Session, Signal: one signal to the agent
	OpStop   = "stop"   // Session, Stop: interrupt, terminate, kill
	OpList   = "list"   // every agent the host holds
	OpStatus = "status" // the host itself
)

// Request is one call from the client. ID is the client's, echoed by the
// Reply.
type Request struct {
	ID      uint64  `json:"id"`
	Op      string  `json:"op"`
	Session string  `json:"session,omitempty"`
	Launch  *Launch `json:"launch,omitempty"`
	Size    *Size   `json:"size,omitempty"`
	Signal  string  `json:"signal,omitempty"` // "interrupt", "terminate", "hangup", "kill"
	Stop    *Stop   `json:"stop,omitempty"`
}

// Reply answers the Request with the same ID. Error is set when it failed.
type Reply struct {
	ID       uint64    `json:"id"`
	Error    string    `json:"error,omitempty"`
	Agent    *Agent    `json:"agent,omitempty"`    // launch, stop
	Attached *Attached `json:"attached,omitempty"` // attach, launch with Attach
	Agents   []Agent   `json:"agents,omitempty"`   // list
	Status   *Status   `json:"status,omitempty"`   // status
}

// Launch is an agent to start: everything it needs comes with it (its
// environment carries its own token), since the host has no database.
type Launch struct {
	Session string   `json:"session"`
	Path    string   `json:"path"`
	Args    []string `json:"args,omitempty"`
	Dir     string   `json:"dir"`
	Env     []string `json:"env"`
	Cols    int      `json:"cols"`
	Rows    int      `json:"rows"`
	// Scrollback is how many lines of scrollback the host's emulator of
	// this agent keeps (0: 10,000, the supervisor's default).
	Scrollback int `json:"scrollback,omitempty"`
	// Box is how it is confined and held, as the app decided it.
	Box Box `json:"box"`
	// Recording is the asciicast file the host writes.
	Recording Recording `json:"recording"`
	// Files are the session's own files (its token, its MCP config),
	// removed when the agent ends.
	Files []string `json:"files,omitempty"`
	// Attach attaches this connection at once: the reply carries
	// Attached and no output comes before it.
	Attach bool `json:"attach,omitempty"`
}

// Box is the sandbox and process set an agent starts in: the supervisor's
// box, field for field. The zero Box starts the agent as it is.
type Box struct {
	Bwrap    string `json:"bwrap,omitempty"`
	Seatbelt string `json:"seatbelt,omitempty"`
	Helper   string `json:"helper,omitempty"`
	// Checked is the checked policy (confine.Checked), as JSON.
	Checked json.RawMessage `json:"checked,omitempty"`
	Cgroup  string          `json:"cgroup,omitempty"`
	Name    string          `json:"name,omitempty"`
}

// Recording is where the host records the agent and the header it starts
// the file with.
type Recording struct {
	Path  string            `json:"path"`
	Title string            `json:"title,omitempty"`
	Env   map[string]string `json:"env,omitempty"`
	// Cap bounds the file in bytes (0: the supervisor's default).
	Cap int64 `json:"cap,omitempty"`
	// Keep renames an earlier recording at Path out of the way (a
	// resume) instead of refusing to start.
	Keep bool `json:"keep,omitempty"`
}

// Size is a terminal size.
type Size struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// Stop ends an agent: an interrupt, after Grace a terminate and a hangup,
// then a kill of its whole process set; Kill goes straight to the kill.
type Stop struct {
	Grace time.Duration `json:"grace,omitempty"` // 0: the host's default
	Kill  bool          `json:"kill,omitempty"`
}

// Agent statuses.
const (
	StatusRunning  = "running"
	StatusStopping = "stopping"
	StatusExited   = "exited"
)

// Agent is one agent the host holds.
type Agent struct {
	Session string    `json:"session"`
	PID     int       `json:"pid"`
	Status  string    `json:"status"`
	Started time.Time `json:"started"`
	Cols    int       `json:"cols"`
	Rows    int       `json:"rows"`
	// Holder names what holds its processes ("cgroup", "pid namespace"…).
	Holder    string `json:"holder"`
	Recording string `json:"recording"`
	// Output is how many bytes the agent has printed.
	Output uint64 `json:"output"`
	// Clients is how many connections are attached to it.
	Clients int   `json:"clients"`
	Exit    *Exit `json:"exit,omitempty"`
}

// Exit is how an agent ended.
type Exit struct {
	// Code is the exit status, -1 when a signal ended it.
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"`
	// Reason: "exited", "stopped", "killed", or "failed: …".
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// Attached answers an attach. Caught bytes of state frames come first: the
// agent's screen as the host's emulator holds it (vt.WriteState), which,
// written to a fresh terminal of Cols×Rows with Scrollback lines of
// scrollback, makes it the host's. The output frames that follow start at
// Offset, the stream offset of the first byte printed after the state was
// taken, and run on without a gap.
type Attached struct {
	Session    string `json:"session"`
	Offset     uint64 `json:"offset"`
	Caught     uint64 `json:"caught"`
	Cols       int    `json:"cols"`
	Rows       int    `json:"rows"`
	Scrollback int    `json:"scrollback"`
}

// Status describes the host.
type Status struct {
	PID      int       `json:"pid"`
	Binary   string    `json:"binary"`
	Protocol int       `json:"protocol"`
	Started  time.Time `json:"started"`
	// Agents counts the agents still running; Ended those it still
	// lists after they ended.
	Agents  int `json:"agents"`
	Ended   int `json:"ended"`
	Clients int `json:"clients"`
}

// Event kinds.
const (
	// EventExit: Session's agent ended (Exit).
	EventExit = "exit"
	// EventDetached: this connection no longer gets Session's output
	// (Reason): it fell too far behind, or the host is going away.
	EventDetached = "detached"
	// EventInputRefused: input for Session was not delivered (Reason).
	EventInputRefused = "input_refused"
	// EventResize: Session's terminal is now Size. It is sent to each
	// attached connection in order with the output: the output frames
	// before it were printed at the old size, those after at the new.
	EventResize = "resize"
)

// Event is what the host says unasked.
type Event struct {
	Kind    string `json:"kind"`
	Session string `json:"session"`
	Exit    *Exit  `json:"exit,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Size    *Size  `json:"size,omitempty"`
}
