package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodProfileList   Name[NoArgs, ProfileList]           = "profile.list"
	MethodProfilePut    Name[ProfilePutArgs, ProfileResult] = "profile.put"
	MethodProfileDelete Name[ProfileArgs, struct{}]         = "profile.delete"
	MethodAgentStart    Name[AgentStartArgs, AgentStarted]  = "agent.start"
	MethodAgentStarted  Name[AgentStartedArgs, struct{}]    = "agent.started"
	MethodAgentList     Name[NoArgs, AgentList]             = "agent.list"
	MethodAgentAttach   Name[AgentArgs, struct{}]           = "agent.attach"
	MethodAgentStop     Name[AgentStopArgs, AgentStopped]   = "agent.stop"
	MethodAgentInput    Name[AgentInputArgs, struct{}]      = "agent.input"
	MethodAgentResize   Name[AgentResizeArgs, struct{}]     = "agent.resize"
)

// The agent and profile methods are the GUI's and the CLI's: hidden from
// MCP, admin only. Everything that touches a process happens after the
// call's transaction commits (Then), never inside it: a transaction may run
// more than once, and a keystroke must not.

// ProfileList is the result of profile.list.
type ProfileList struct {
	Profiles []supervisor.ProfileInfo `json:"profiles"`
}

// ProfileArgs name one profile.
type ProfileArgs struct {
	ID string `json:"id"`
}

// ProfilePutArgs are the arguments of profile.put.
type ProfilePutArgs struct {
	Profile profile.Profile `json:"profile"`
}

// ProfileResult is one profile after a change.
type ProfileResult struct {
	Profile supervisor.ProfileInfo `json:"profile"`
}

// AgentStartArgs are the arguments of agent.start.
type AgentStartArgs struct {
	Profile      string `json:"profile"`
	RepositoryID string `json:"repository_id"`
	// Prompt replaces the bootstrap prompt.
	Prompt string `json:"prompt,omitempty"`
	Cols   int    `json:"cols,omitempty"`
	Rows   int    `json:"rows,omitempty"`
	// Base is the branch the agent's worktree starts from; "" is the
	// repository's setting, else the branch checked out in its folder.
	Base string `json:"base,omitempty"`
	// NoWorktree runs the agent in the repository's folder, whatever the
	// repository's isolation.
	NoWorktree bool `json:"no_worktree,omitempty"`
	// Permission is the mode the CLI starts in: ask (the default), edits
	// or auto (see profile.Permission).
	Permission profile.Permission `json:"permission,omitempty"`
	// ConfirmFullAuto records a person's confirmation of auto for the
	// repository, which the first auto start there needs; it goes with
	// permission auto only.
	ConfirmFullAuto bool `json:"confirm_full_auto,omitempty"`
	// PacketID starts the agent on a queued packet of the repository: the
	// packet is held for it, its first claim takes it, its prompt names it
	// and its branch is named after it.
	PacketID string `json:"packet_id,omitempty"`
	// Name is what the agent works on, for people; "" takes the packet's
	// title when there is one.
	Name string `json:"name,omitempty"`
}

// AgentStarted is the result of agent.start.
type AgentStarted struct {
	SessionID    string `json:"session_id"`
	Profile      string `json:"profile"`
	RepositoryID string `json:"repository_id"`
	PID          int    `json:"pid"`
	Recording    string `json:"recording"`
	// Permission is the mode the CLI was started in.
	Permission profile.Permission `json:"permission"`
	// Workspace is the git worktree the agent works in; nil when it works
	// in the repository's folder, and Isolation then says why.
	Workspace *store.Workspace `json:"workspace,omitempty"`
	Isolation string           `json:"isolation,omitempty"`
	// Port is the agent's SWITCHBOARD_PORT, the first of its block.
	Port int `json:"port,omitempty"`
	// Confinement says what holds the agent and what it can reach.
	Confinement *supervisor.Confinement `json:"confinement,omitempty"`
	// Setup names the setup that runs before the agent (the repository's
	// command, or .switchboard/setup); PID is the setup's until the agent
	// starts.
	Setup string `json:"setup,omitempty"`
}

// AgentArgs name a supervised session.
type AgentArgs struct {
	SessionID string `json:"session_id"`
}

// AgentStopArgs are the arguments of agent.stop.
type AgentStopArgs struct {
	SessionID string `json:"session_id"`
	// Kill skips the interrupt and the terminate.
	Kill bool `json:"kill,omitempty"`
}

// AgentInputArgs are the arguments of agent.input.
type AgentInputArgs struct {
	SessionID string `json:"session_id"`
	// Data is sent as typed; with Paste, as a paste (bracketed when the
	// program asked for it).
	Data  string `json:"data"`
	Paste bool   `json:"paste,omitempty"`
}

// AgentResizeArgs are the arguments of agent.resize.
type AgentResizeArgs struct {
	SessionID string `json:"session_id"`
	Cols      int    `json:"cols"`
	Rows      int    `json:"rows"`
}

// AgentList is the result of agent.list.
type AgentList struct {
	Agents []AgentInfo `json:"agents"`
}

// AgentStopped is the result of agent.stop.
type AgentStopped struct {
	SessionID string          `json:"session_id"`
	Exit      supervisor.Exit `json:"exit"`
}

// AgentStartedArgs are the arguments of agent.started, which records the
// process of a session the supervisor started.
type AgentStartedArgs struct {
	SessionID string `json:"session_id"`
	PID       int    `json:"pid"`
	ProcStart uint64 `json:"proc_start,omitempty"`
	// ConversationID is the conversation id the agent's CLI picked for
	// itself, once found (supervisor.FindConversation); with PID 0 it is
	// all that is recorded.
	ConversationID string `json:"conversation_id,omitempty"`
	// Confinement is how the process is held, for the session's record.
	Confinement *supervisor.Confinement `json:"confinement,omitempty"`
}

// maxInput bounds one agent.input: a paste, not a file transfer.
const maxInput = 1 << 20

// stopTimeout bounds agent.stop: two grace periods and a kill.
const stopTimeout = 30 * time.Second

func (r *Registry) registerAgents() {
	r.registerFullAuto()
	r.registerUnconfined()
	r.Register(Define(MethodProfileList, On(Global, store.CapAdmin), Hidden|ReadOnly,
		"List the agent profiles: the built-ins (or the person's edit of one) and the person's own, each with whether its command is installed.",
		func(c *Call, _ NoArgs) (ProfileList, error) {
			stored, err := c.Tx.Profiles()
			if err != nil {
				return ProfileList{}, err
			}
			return ProfileList{Profiles: supervisor.MergeProfiles(stored)}, nil
		}))
	r.Register(Define(MethodProfilePut, On(Global, store.CapAdmin), Hidden,
		"Add a profile, or replace one (a built-in's id overrides the built-in).",
		func(c *Call, in ProfilePutArgs) (ProfileResult, error) {
			if err := c.Tx.PutProfile(in.Profile); err != nil {
				return ProfileResult{}, err
			}
			stored, err := c.Tx.Profiles()
			if err != nil {
				return ProfileResult{}, err
			}
			p, _ := supervisor.FindProfile(stored, in.Profile.ID)
			return ProfileResult{Profile: p}, nil
		}))
	r.Register(Define(MethodProfileDelete, On(Global, store.CapAdmin), Hidden,
		"Delete a profile of the person's; for an edited built-in, bring the built-in back.",
		func(c *Call, in ProfileArgs) (struct{}, error) {
			return struct{}{}, c.Tx.DeleteProfile(in.ID)
		}))

	r.Register(Define(MethodAgentStart, On(Repository, store.CapAdmin), Hidden,
		"Start an agent CLI from a profile in a supervised terminal, in a repository, with a session token scoped to it.",
		func(c *Call, in AgentStartArgs) (AgentStarted, error) {
			if r.agents == nil {
				return AgentStarted{}, store.Deny(store.CodeInvalidState, "agents run inside the Switchboard app; start it first")
			}
			endpoint := r.env.Endpoint()
			if endpoint == "" {
				return AgentStarted{}, store.Deny(store.CodeInvalidState, "the MCP listener is off (--mcp-http-addr off): an agent could not connect")
			}
			stored, err := c.Tx.Profiles()
			if err != nil {
				return AgentStarted{}, err
			}
			prof, ok := supervisor.FindProfile(stored, in.Profile)
			if !ok {
				return AgentStarted{}, store.Deny(store.CodeNotFound, "no profile %q", in.Profile)
			}
			if !prof.Available {
				return AgentStarted{}, store.Deny(store.CodeAgentUnavailable, "%s is not installed: %q is not on PATH", prof.Name, prof.Command)
			}
			if len(in.Prompt) > store.MaxReportText {
				return AgentStarted{}, store.Deny(store.CodeInvalidArgument, "prompt longer than %d bytes", store.MaxReportText)
			}
			repo, err := c.Tx.LocalRepository(in.RepositoryID)
			if err != nil {
				return AgentStarted{}, err
			}
			if err := (store.RepositorySettings{Base: in.Base}).Validate(); err != nil {
				return AgentStarted{}, err
			}
			var pkt store.Packet
			if in.PacketID != "" {
				if pkt, err = startablePacket(c.Tx, in.PacketID, repo.ID); err != nil {
					return AgentStarted{}, err
				}
			}
			plan := worktreePlan{repo: repo, base: cmp.Or(in.Base, repo.Base), slug: cmp.Or(pkt.Title, prof.ID), isolation: repo.Isolation}
			if in.NoWorktree {
				plan.isolation = store.IsolationNone
			}
			if plan.sandbox, err = readSandbox(c.Tx); err != nil {
				return AgentStarted{}, err
			}
			mode, confirmed, err := checkPermission(c, in, prof.Profile, repo, plan, r.unconfinedWhy(repo))
			if err != nil {
				return AgentStarted{}, err
			}
			id := store.NewID("ses")
			var grants []store.Grant
			for _, cp := range store.AgentCapabilities() {
				grants = append(grants, store.Grant{Capability: cp, Repositories: []string{repo.ID}})
			}
			tok, raw, err := c.Tx.CreateToken(store.TokenSpec{Label: prof.Name + " " + id, Kind: store.KindSession, Grants: grants, SessionID: id})
			if err != nil {
				return AgentStarted{}, err
			}
			port, err := c.Tx.FreePortBlock(portBlockFree)
			if err != nil {
				return AgentStarted{}, err
			}
			conv := ""
			if prof.Conversation.Makes() {
				conv = newConversationID()
			}
			if _, err := c.Tx.CreateSession(store.SessionSpec{ID: id, Kind: store.SessionSupervised, RepositoryID: repo.ID, Profile: prof.ID, TokenKeyID: tok.KeyID, Port: port, ConversationID: conv, Permission: mode, Packet: pkt.ID, Name: cmp.Or(in.Name, pkt.Title)}); err != nil {
				return AgentStarted{}, err
			}
			var packetNote string
			if pkt.ID != "" {
				if _, err := c.Tx.ReservePacket(pkt.ID, id); err != nil {
					return AgentStarted{}, err
				}
				packetNote = packetPrompt(pkt)
			}
			open := map[string]any{"profile": prof.ID, "repository_id": repo.ID, "permission": mode}
			if confirmed {
				open["full_auto_confirmed"] = true
			}
			data, _ := json.Marshal(open)
			if _, err := c.Tx.AppendTrace(id, store.TraceEvent{Type: store.TraceSessionOpen, Method: c.Method.Name, Data: data}); err != nil {
				return AgentStarted{}, err
			}
			c.SessionID = id
			spec := supervisor.LaunchSpec{SessionID: id, RepositoryID: repo.ID, Dir: repo.Path, Profile: prof.Profile,
				Endpoint: endpoint, Token: raw, Prompt: in.Prompt, PacketNote: packetNote, Cols: in.Cols, Rows: in.Rows, Port: port, ConversationID: conv, Permission: mode}
			ctx := context.WithoutCancel(c.Ctx)
			c.Then(func(any) (any, error) { return r.launch(ctx, spec, plan) })
			return AgentStarted{SessionID: id, Profile: prof.ID, RepositoryID: repo.ID, Port: port, Permission: mode}, nil
		}))
	r.Register(Define(MethodAgentStarted, On(Session, store.CapAdmin), Hidden|Internal,
		"Record the process of a supervised session (the supervisor, once it runs).",
		func(c *Call, in AgentStartedArgs) (struct{}, error) {
			if in.ConversationID != "" {
				if _, err := c.Tx.SetSessionConversation(in.SessionID, in.ConversationID); err != nil {
					return struct{}{}, err
				}
				if in.PID == 0 {
					return struct{}{}, nil
				}
			}
			if _, err := c.Tx.MarkSessionRunning(in.SessionID, in.PID, in.ProcStart); err != nil {
				return struct{}{}, err
			}
			event := map[string]any{"state": store.SessionRunning, "pid": in.PID}
			if in.Confinement != nil {
				event["confinement"] = in.Confinement
			}
			data, _ := json.Marshal(event)
			_, err := c.Tx.AppendTrace(in.SessionID, store.TraceEvent{Type: store.TraceState, Method: c.Method.Name, Data: data})
			return struct{}{}, err
		}))
	r.Register(Define(MethodAgentList, On(Global, store.CapAdmin), Hidden|ReadOnly,
		"List the agents this app supervises (live, and ended ones still shown).",
		func(c *Call, _ NoArgs) (AgentList, error) {
			out := AgentList{Agents: []AgentInfo{}}
			if r.agents != nil {
				out.Agents = withUsage(c.Tx, r.agents.List())
			}
			return out, nil
		}))
	r.Register(Define(MethodAgentAttach, On(Session, store.CapAdmin), Hidden|ReadOnly,
		"Watch an agent's terminal and type into it (the CLI's attach; the stream itself is not an MCP call).",
		func(c *Call, in AgentArgs) (struct{}, error) {
			_, err := r.agent(in.SessionID)
			c.SessionID = in.SessionID
			return struct{}{}, err
		}))
	r.Register(Define(MethodAgentStop, On(Session, store.CapAdmin), Hidden,
		"Stop an agent: interrupt, then terminate, then kill its process group, with a grace period between; or kill it at once.",
		func(c *Call, in AgentStopArgs) (AgentStopped, error) {
			s, err := r.agent(in.SessionID)
			if err != nil {
				return AgentStopped{}, err
			}
			c.SessionID = in.SessionID
			ctx := c.Ctx
			c.Then(func(any) (any, error) {
				ctx, cancel := context.WithTimeout(ctx, stopTimeout)
				defer cancel()
				exit, err := s.Stop(ctx, in.Kill)
				if err != nil {
					return nil, store.Deny(store.CodeInternal, "stop %s: %v", in.SessionID, err)
				}
				return AgentStopped{SessionID: in.SessionID, Exit: exit}, nil
			})
			return AgentStopped{}, nil
		}))
	r.Register(Define(MethodAgentInput, On(Session, store.CapAdmin), Hidden,
		"Send keystrokes or a paste to an agent's terminal.",
		func(c *Call, in AgentInputArgs) (struct{}, error) {
			s, err := r.agent(in.SessionID)
			if err != nil {
				return struct{}{}, err
			}
			if len(in.Data) > maxInput {
				return struct{}{}, store.Deny(store.CodeInvalidArgument, "input longer than %d bytes", maxInput)
			}
			c.SessionID = in.SessionID
			c.Then(func(any) (any, error) {
				var err error
				if in.Paste {
					err = s.Paste(in.Data)
				} else {
					err = s.Input([]byte(in.Data))
				}
				if err != nil {
					return nil, store.Deny(store.CodeInvalidState, "input to %s: %v", in.SessionID, err)
				}
				return struct{}{}, nil
			})
			return struct{}{}, nil
		}))
	r.Register(Define(MethodAgentResize, On(Session, store.CapAdmin), Hidden,
		"Resize an agent's terminal (the PTY and the emulator together).",
		func(c *Call, in AgentResizeArgs) (struct{}, error) {
			s, err := r.agent(in.SessionID)
			if err != nil {
				return struct{}{}, err
			}
			c.SessionID = in.SessionID
			c.Then(func(any) (any, error) {
				if err := s.Resize(in.Cols, in.Rows); err != nil {
					return nil, store.Deny(store.CodeInvalidArgument, "resize %s: %v", in.SessionID, err)
				}
				return struct{}{}, nil
			})
			return struct{}{}, nil
		}))
}

// Agents is the supervisor, or nil where no agents run.
func (r *Registry) Agents() *supervisor.Supervisor { return r.agents }

// agent finds a live supervised session.
func (r *Registry) agent(id string) (*supervisor.Session, error) {
	if r.agents == nil {
		return nil, store.Deny(store.CodeInvalidState, "agents run inside the Switchboard app; start it first")
	}
	s, ok := r.agents.Get(id)
	if !ok {
		return nil, store.Deny(store.CodeNotFound, "no agent runs as session %s here", id)
	}
	if s.Exit() != nil {
		return nil, store.Deny(store.CodeInvalidState, "the agent of session %s has exited", id)
	}
	return s, nil
}

// launch starts the agent of a session agent.start has just recorded. If
// the process cannot start, the session ends at once (its token revoked),
// and the caller gets agent_unavailable.
func (r *Registry) launch(ctx context.Context, spec supervisor.LaunchSpec, plan worktreePlan) (any, error) {
	fail := func(code store.Code, reason string) (any, error) {
		if err := r.EndSession(ctx, SessionEndArgs{SessionID: spec.SessionID, Reason: reason}); err != nil {
			r.log.Error("end a session whose agent did not start", "session", spec.SessionID, "err", err)
		}
		return nil, store.Deny(code, "%s", reason)
	}
	ws, isolation, err := r.workspaceFor(ctx, spec.SessionID, plan)
	var d *store.Denial
	switch {
	case errors.As(err, &d):
		return fail(d.Code, d.Reason) // already says what to do
	case err != nil:
		return fail(store.CodeWorkspaceUnavailable, "no worktree: "+err.Error())
	}
	if ws != nil {
		spec.Dir, spec.Workspace = ws.dir, &ws.Workspace
	}
	spec.Setup = r.setupFor(spec.SessionID, plan.repo, ws)
	spec.RecordingCap = int64(plan.sandbox.RecordingCapMiB) << 20
	if spec.Unconfined = r.unconfinedWhy(plan.repo); spec.Unconfined == "" {
		if spec.Policy, err = r.policyFor(ctx, plan.repo.Path, spec.Workspace, spec.Dir, plan.sandbox.Hidden); err != nil {
			return fail(store.CodeAgentUnavailable, "cannot confine the agent: "+err.Error())
		}
	}
	s, err := r.agents.Launch(spec)
	if err != nil {
		reason := "failed to start: " + err.Error()
		if errors.Is(err, supervisor.ErrClosed) {
			reason = "the app is shutting down"
		}
		return fail(store.CodeAgentUnavailable, reason)
	}
	// The process is recorded so a crash sweep can stop it: the setup's
	// first when there is one, then the agent's once it runs.
	r.recordProcess(ctx, s)
	r.findConversation(ctx, s, spec)
	info := s.Info()
	out := AgentStarted{SessionID: spec.SessionID, Profile: spec.Profile.ID, RepositoryID: spec.RepositoryID, PID: s.PID(), Recording: info.Recording, Permission: spec.Permission,
		Workspace: spec.Workspace, Isolation: isolation, Port: spec.Port, Confinement: &info.Confinement}
	if spec.Setup != nil {
		out.Setup = spec.Setup.Label
		go func() {
			select {
			case <-s.AgentStarted():
				r.recordProcess(ctx, s)
			case <-s.Done():
			}
		}()
	}
	return out, nil
}

// recordProcess records the process now on the session's terminal
// (agent.started).
func (r *Registry) recordProcess(ctx context.Context, s *supervisor.Session) {
	conf := s.Info().Confinement
	args, _ := json.Marshal(AgentStartedArgs{SessionID: s.ID(), PID: s.PID(), ProcStart: s.ProcStart(), Confinement: &conf})
	if res := r.Invoke(ctx, OperatorPrincipal(), TransportSupervisor, "agent.started", args); res.Err != nil && store.CodeOf(res.Err) != store.CodeInvalidState {
		// invalid_state: the agent already exited and its session ended.
		r.log.Error("record an agent's process", "session", s.ID(), "err", res.Err)
	}
}

// AgentExited is the supervisor's Config.Exited for a registry: the session
// ends through session.end, as the supervisor.
func (r *Registry) AgentExited(sessionID string, exit supervisor.Exit) {
	code := exit.Code
	reason := exit.Reason
	if exit.Signal != "" {
		reason += " (" + exit.Signal + ")"
	}
	// An agent stopped because the app quits ends with the app: its
	// session may be resumed at the next start, in the same worktree.
	withApp := r.agents != nil && r.agents.Closing()
	err := r.EndSession(context.Background(), SessionEndArgs{SessionID: sessionID, ExitCode: &code, Reason: reason, WithApp: withApp})
	if err != nil && store.CodeOf(err) != store.CodeInvalidState {
		r.log.Error("end the session of an exited agent", "session", sessionID, "err", err)
	}
	if exit.Setup {
		// The worktree stays as the setup left it, for the person to see
		// what went wrong; workspace discard takes it away.
		return
	}
	// Apart from the exit: agent.stop waits for the exit, and taking a
	// checkout of many thousand files away can outlast its timeout.
	r.goTidy(func() { r.TidyWorktree(context.Background(), sessionID) })
}

// goTidy runs tidy in the background unless WaitTidy has begun: then the
// worktree is left as it is, and the next start's RecoverWorkspaces
// tidies it.
func (r *Registry) goTidy(tidy func()) {
	r.tidyMu.Lock()
	defer r.tidyMu.Unlock()
	if !r.tidyClosed {
		r.tidying.Go(tidy)
	}
}

// WaitTidy waits, until ctx ends, for the worktree tidies started by
// agents' exits: the daemon closes the database only after them, so none
// is cut off half-way through a folder. No tidy starts after it is
// called.
func (r *Registry) WaitTidy(ctx context.Context) error {
	r.tidyMu.Lock()
	r.tidyClosed = true
	r.tidyMu.Unlock()
	done := make(chan struct{})
	go func() {
		r.tidying.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("worktree tidies still running: %w", ctx.Err())
	}
}

// EndSession ends a session through session.end, as the supervisor: the
// one way an agent's end (exited, failed to start, lost in a crash) is
// recorded.
func (r *Registry) EndSession(ctx context.Context, args SessionEndArgs) error {
	b, _ := json.Marshal(args)
	return r.Invoke(ctx, OperatorPrincipal(), TransportSupervisor, "session.end", b).Err
}
