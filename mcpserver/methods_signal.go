package mcpserver

import (
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// The CLI's own word on its state, beside its screen: Claude Code's hooks
// arrive here (hooks_http.go), and session_report's kinds are passed on
// too (reportSignal). Both reach the live supervised session
// (supervisor.Session.Signal) once the call has committed; its status,
// agent.list, the Sessions window and the tray follow.

// MethodSessionSignal records a hook of a supervised agent's CLI.
const MethodSessionSignal Name[SignalArgs, SignalResult] = "session.signal"

// MaxSignalText bounds a signal's title and text, in bytes: a line for a
// desktop notification, not a document. The hook path clips longer ones;
// any other caller is refused.
const MaxSignalText = 1000

// SignalArgs are the arguments of session.signal.
type SignalArgs struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the session token's own; another session is refused"`
	// Event is the Claude Code hook's event.
	Event string `json:"event" jsonschema:"Notification, Stop, UserPromptSubmit, PreToolUse or PostToolUse"`
	// Title and Text are what the CLI tells the person (a Notification's
	// title and message), shown sanitized.
	Title string `json:"title,omitempty"`
	Text  string `json:"text,omitempty"`
}

// SignalResult is the result of session.signal.
type SignalResult struct {
	SessionID string                 `json:"session_id"`
	State     supervisor.SignalState `json:"state"`
}

// claudeHookStates maps Claude Code's hook events to the state each says.
var claudeHookStates = map[string]supervisor.SignalState{
	"Notification":     supervisor.SignalWaiting,
	"Stop":             supervisor.SignalIdle,
	"UserPromptSubmit": supervisor.SignalWorking,
	"PreToolUse":       supervisor.SignalWorking,
	"PostToolUse":      supervisor.SignalWorking,
}

func (r *Registry) registerSignals() {
	// Hidden: no agent's model sees it among its tools; the hooks call it
	// over their own path with the session's token, and OwnSession keeps
	// each token to its own session (a client token has none).
	r.Register(Define(MethodSessionSignal, On(OwnSession, store.CapSessionReport), Hidden,
		"Record a supervised agent's own signal of its state (a Claude Code hook): waiting for the person, working or idle.",
		func(c *Call, in SignalArgs) (SignalResult, error) {
			state, ok := claudeHookStates[in.Event]
			if !ok {
				return SignalResult{}, store.Deny(store.CodeInvalidArgument, "event %q is not a hook Switchboard takes", Clip(in.Event, 40))
			}
			if len(in.Title) > MaxSignalText || len(in.Text) > MaxSignalText {
				return SignalResult{}, store.Deny(store.CodeInvalidArgument, "title and text are at most %d bytes", MaxSignalText)
			}
			ses, err := c.liveSession(in.SessionID)
			if err != nil {
				return SignalResult{}, err
			}
			if ses.Kind != store.SessionSupervised {
				return SignalResult{}, store.Deny(store.CodeInvalidState, "session %s is not one Switchboard supervises", ses.ID)
			}
			c.SessionID = ses.ID
			sig := supervisor.Signal{State: state, Source: supervisor.SourceHook, Event: in.Event}
			title, text := vt.CleanText(in.Title), vt.CleanText(in.Text)
			if state == supervisor.SignalWaiting && title == "" {
				// The desktop notification's title: whose hook it is.
				title = "Claude Code"
			}
			r.signalAgent(c, ses.ID, sig, title, text)
			return SignalResult{SessionID: ses.ID, State: state}, nil
		}))
}

// signalAgent passes sig on to the live supervised session id once the
// call has committed. Sessions of other agents (external, or ended) have
// no live status to change.
func (r *Registry) signalAgent(c *Call, id string, sig supervisor.Signal, title, text string) {
	if r.agents == nil {
		return
	}
	c.AfterCommit(func() {
		if s, ok := r.agents.Get(id); ok {
			s.Signal(sig, title, text)
		}
	})
	if sig.State == supervisor.SignalWaiting {
		// The tray re-reads on the next tick rather than the next poll.
		r.signalAfter(c, attentionKey)
	}
}

// reportSignal passes a session_report on to the supervised session as
// its signal: a question or an escalation waits for the person, a ready
// or heartbeat works. The question itself is the person's notification
// (the tray announces questions), so the signal brings none.
func (r *Registry) reportSignal(c *Call, id string, kind store.ReportKind) {
	state := supervisor.SignalWorking
	switch kind {
	case store.ReportQuestion, store.ReportEscalate:
		state = supervisor.SignalWaiting
	case store.ReportReady, store.ReportHeartbeat:
	default:
		return
	}
	r.signalAgent(c, id, supervisor.Signal{State: state, Source: supervisor.SourceReport, Event: string(kind)}, "", "")
}

// answeredAgent tells the supervised session id that the person answered
// its question in Switchboard.
func (r *Registry) answeredAgent(c *Call, id string) {
	if r.agents == nil {
		return
	}
	c.AfterCommit(func() {
		if s, ok := r.agents.Get(id); ok {
			s.Answered()
		}
	})
}
