package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// MethodAgentResume starts the agent of a session that ended with the app
// again, on its own conversation, in its own worktree.
const MethodAgentResume Name[AgentResumeArgs, AgentStarted] = "agent.resume"

// AgentResumeArgs are the arguments of agent.resume.
type AgentResumeArgs struct {
	SessionID string `json:"session_id"`
	Cols      int    `json:"cols,omitempty"`
	Rows      int    `json:"rows,omitempty"`
	// ConfirmRevoked resumes a session whose token a person revoked while
	// it ran: without it such a resume is refused (token_revoked), since
	// the resume would hand the agent a new token.
	ConfirmRevoked bool `json:"confirm_revoked,omitempty"`
}

// findTimeout bounds the wait for a CLI to write the conversation id it
// picked for itself (Codex writes it with its first prompt).
const findTimeout = 10 * time.Minute

// registerResume defines agent.resume.
//
// A resumed run keeps the session's id: the session is re-opened (live
// again, a new session token, a new process) rather than replaced by a new
// one. Everything the run continues is the session's own — the worktree
// recorded on it, the lease of the packet it worked on (its id is what the
// conversation's history names, and a lease is held by a session id), its
// timeline and its recording — so nothing has to be handed over, and a
// lease that expired while the app was down went back to the queue the
// usual way: the resumed agent claims again.
func (r *Registry) registerResume() {
	r.Register(Define(MethodAgentResume, On(Session, store.CapAdmin), Hidden,
		"Resume a session that ended with the app (quit, crash, kill): its agent CLI starts again on its own conversation, in its own worktree, keeping the lease it still holds.",
		func(c *Call, in AgentResumeArgs) (AgentStarted, error) {
			if r.agents == nil {
				return AgentStarted{}, store.Deny(store.CodeInvalidState, "agents run inside the Switchboard app; start it first")
			}
			endpoint := r.env.Endpoint()
			if endpoint == "" {
				return AgentStarted{}, store.Deny(store.CodeInvalidState, "the MCP listener is off (--mcp-http-addr off): an agent could not connect")
			}
			ses, err := c.Tx.Session(in.SessionID)
			if err != nil {
				return AgentStarted{}, err
			}
			if ses.Instance != c.Tx.InstanceID() {
				return AgentStarted{}, store.Deny(store.CodeInvalidState, "session %s ran on instance %s: its worktree and conversation are there", ses.ID, ses.Instance)
			}
			stored, err := c.Tx.Profiles()
			if err != nil {
				return AgentStarted{}, err
			}
			prof, ok := supervisor.FindProfile(stored, ses.Profile)
			switch {
			case !ok:
				return AgentStarted{}, store.Deny(store.CodeNotFound, "no profile %q (session %s's)", ses.Profile, ses.ID)
			case !prof.Conversation.CanResume():
				return AgentStarted{}, store.Deny(store.CodeInvalidState, "%s cannot resume a conversation", prof.Name)
			case !prof.Available:
				return AgentStarted{}, store.Deny(store.CodeAgentUnavailable, "%s is not installed: %q is not on PATH", prof.Name, prof.Command)
			}
			repo, err := c.Tx.LocalRepository(ses.RepositoryID)
			if err != nil {
				return AgentStarted{}, err
			}
			if at, ok := revokedByHand(c.Tx, ses); ok && !in.ConfirmRevoked {
				return AgentStarted{}, store.Deny(store.CodeTokenRevoked,
					"session %s's token was revoked by hand at %s, while it ran: a resume gives its agent a new token; resume again and confirm (agent resume --yes) if that is what you want",
					ses.ID, at.Local().Format(time.DateTime))
			}
			if ses.Resumable() {
				if err := worktreeThere(ses.Workspace.Path); err != nil {
					return AgentStarted{}, store.Deny(store.CodeWorkspaceUnavailable, "session %s cannot be resumed: %v", ses.ID, err)
				}
			}
			var grants []store.Grant
			for _, cp := range store.AgentCapabilities() {
				grants = append(grants, store.Grant{Capability: cp, Repositories: []string{repo.ID}})
			}
			tok, raw, err := c.Tx.CreateToken(store.TokenSpec{Label: prof.Name + " " + ses.ID + " (resumed)", Kind: store.KindSession, Grants: grants, SessionID: ses.ID})
			if err != nil {
				return AgentStarted{}, err
			}
			port, err := c.Tx.FreePortBlock(portBlockFree)
			if err != nil {
				return AgentStarted{}, err
			}
			// ReopenSession refuses a session that is not Resumable, with
			// the reason.
			if ses, err = c.Tx.ReopenSession(ses.ID, tok.KeyID, port); err != nil {
				return AgentStarted{}, err
			}
			held, err := c.Tx.SessionLeases(ses.ID)
			if err != nil {
				return AgentStarted{}, err
			}
			var packets []string
			for _, p := range held {
				packets = append(packets, fmt.Sprintf("packet %s (lease %s)", p.ID, p.Lease.ID))
			}
			data, _ := json.Marshal(map[string]any{"profile": prof.ID, "repository_id": repo.ID, "resumed": ses.Resumes, "conversation_id": ses.ConversationID})
			if _, err := c.Tx.AppendTrace(ses.ID, store.TraceEvent{Type: store.TraceSessionOpen, Method: c.Method.Name, Data: data}); err != nil {
				return AgentStarted{}, err
			}
			c.SessionID = ses.ID
			spec := supervisor.LaunchSpec{SessionID: ses.ID, RepositoryID: repo.ID, Dir: ses.Workspace.Path, Workspace: ses.Workspace,
				Profile: prof.Profile, Endpoint: endpoint, Token: raw, Cols: in.Cols, Rows: in.Rows, Port: port,
				Prompt:         supervisor.ResumePrompt(ses.ID, repo.ID, packets),
				ConversationID: ses.ConversationID, Resume: true}
			sandbox, err := readSandbox(c.Tx)
			if err != nil {
				return AgentStarted{}, err
			}
			ctx := context.WithoutCancel(c.Ctx)
			c.Then(func(any) (any, error) { return r.relaunch(ctx, spec, repo, sandbox) })
			return AgentStarted{SessionID: ses.ID, Profile: prof.ID, RepositoryID: repo.ID, Port: port, Workspace: ses.Workspace}, nil
		}))
}

// relaunch starts the agent of a session agent.resume has just re-opened.
// If it cannot start, the session ends again as it was, resumable (its
// leases kept until they expire): a CLI missing for a moment does not cost
// the conversation.
func (r *Registry) relaunch(ctx context.Context, spec supervisor.LaunchSpec, repo store.Repository, sandbox SandboxSettings) (any, error) {
	var s *supervisor.Session
	var err error
	spec.RecordingCap = int64(sandbox.RecordingCapMiB) << 20
	if spec.Unconfined = r.unconfinedWhy(repo); spec.Unconfined == "" {
		spec.Policy, err = r.policyFor(ctx, repo.Path, spec.Workspace, spec.Dir, sandbox.Hidden)
	}
	if err == nil {
		s, err = r.agents.Launch(spec)
	}
	if err != nil {
		reason := "failed to resume: " + err.Error()
		if errors.Is(err, supervisor.ErrClosed) {
			reason = "the app is shutting down"
		}
		if err := r.EndSession(ctx, SessionEndArgs{SessionID: spec.SessionID, Reason: reason, WithApp: true}); err != nil {
			r.log.Error("end a session whose resume did not start", "session", spec.SessionID, "err", err)
		}
		return nil, store.Deny(store.CodeAgentUnavailable, "%s", reason)
	}
	r.recordProcess(ctx, s)
	return AgentStarted{SessionID: spec.SessionID, Profile: spec.Profile.ID, RepositoryID: spec.RepositoryID, PID: s.PID(),
		Recording: s.Info().Recording, Workspace: spec.Workspace, Port: spec.Port}, nil
}

// worktreeThere checks that a session's worktree is still on disk as a
// git worktree (a folder with its .git file): a resume runs in it.
func worktreeThere(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("its worktree %s is gone", path)
	}
	if !fi.IsDir() {
		return fmt.Errorf("its worktree %s is not a folder", path)
	}
	if _, err := os.Lstat(filepath.Join(path, ".git")); err != nil {
		return fmt.Errorf("%s is no longer a git worktree", path)
	}
	return nil
}

// Resumable reports whether session s can be resumed now: the store's part
// (store.Session.Resumable), a profile of profiles (profile.list's) that
// resumes conversations, and the worktree still there. The GUI asks it for
// the session it shows.
func Resumable(s store.Session, profiles []supervisor.ProfileInfo) bool {
	if !s.Resumable() {
		return false
	}
	for _, p := range profiles {
		if p.ID == s.Profile {
			return p.Conversation.CanResume() && worktreeThere(s.Workspace.Path) == nil
		}
	}
	return false
}

// findConversation records, once found, the conversation id a session's
// CLI picked for itself (a profile whose Conversation.Find is set), in the
// background: the CLI writes it after it starts.
func (r *Registry) findConversation(ctx context.Context, s *supervisor.Session, spec supervisor.LaunchSpec) {
	if c := spec.Profile.Conversation; c == nil || c.Find == "" || spec.ConversationID != "" {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(ctx, findTimeout)
		defer cancel()
		id, err := r.agents.FindConversation(ctx, s, spec.Profile, spec.Dir)
		if err != nil || id == "" {
			r.log.Warn("the agent's conversation id was not found; its session cannot be resumed", "session", spec.SessionID, "err", err)
			return
		}
		if _, err := Invoke(ctx, r, OperatorPrincipal(), TransportSupervisor, MethodAgentStarted, AgentStartedArgs{SessionID: spec.SessionID, ConversationID: id}); err != nil {
			r.log.Warn("record the agent's conversation id", "session", spec.SessionID, "err", err)
		}
	}()
}

// newConversationID makes a random (version 4) UUID, the form Claude Code's
// --session-id and Gemini CLI's require.
func newConversationID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// revokedByHand reports whether ses's token was revoked before the session
// ended (token.revoke while it ran), and when: a session's end revokes its
// token in the same transaction, at the same time.
func revokedByHand(tx *store.Tx, ses store.Session) (time.Time, bool) {
	if ses.TokenKeyID == "" || ses.EndedAt == nil {
		return time.Time{}, false
	}
	tok, ok, err := tx.Token(ses.TokenKeyID)
	if err != nil || !ok || tok.RevokedAt == nil || !tok.RevokedAt.Before(*ses.EndedAt) {
		return time.Time{}, false
	}
	return *tok.RevokedAt, true
}
