package supervisor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// Config is what a Supervisor needs from the program around it.
type Config struct {
	// RuntimeDir holds the per-session token and MCP config files
	// (owner-only). RecordingsDir holds the asciicast recordings.
	RuntimeDir, RecordingsDir string
	// Exited is called once per session, after its agent exited and its
	// files are gone, and before Done is closed, from the session's own
	// goroutine. The daemon ends the session through the registry there
	// (token revoked, leases released, trace event). It must not wait for
	// the session (Stop, Done): that would wait for itself.
	Exited func(sessionID string, exit Exit)
	Log    *slog.Logger
	// Env is the environment agents start from (default os.Environ()).
	// Variables named SWITCHBOARD_* are removed from it: the app's own
	// client token must never reach an agent.
	Env []string

	// Timings; zero means the default.
	StopGrace   time.Duration // each step of a stop (3 s)
	DrainWait   time.Duration // output drain after the agent exits (1 s)
	IdleAfter   time.Duration // still screen before "idle" (2 s)
	SettleDelay time.Duration // quiet screen before a typed prompt (800 ms)
	// SignalHold is how long the CLI's "working" outlives a still screen
	// (2 min; see Session.Status).
	SignalHold time.Duration
	PromptWait time.Duration // longest wait before typing the prompt anyway (20 s)
	// SetupTimeout bounds a session's setup (DefaultSetupTimeout).
	SetupTimeout time.Duration
	Scrollback   int // emulator scrollback lines (10,000)
	// RecordingCap bounds each session's recording, in bytes
	// (DefaultRecordingCap; 1 MiB at least): past it the oldest output
	// is dropped and the newest kept (recording_cap.go).
	RecordingCap int64

	// Helper is the binary that runs confine.HelperArg (default:
	// switchboard-sandbox beside this one, else this one when it called
	// confine.RunHelper; "" confines nothing, and a launch that asks for
	// confinement is refused); Bwrap names bubblewrap ("bwrap" on PATH;
	// "-" for none).
	Helper, Bwrap string
	// Support, when set, is what confines agents here instead of
	// confine.Probe's answer (tests that take bubblewrap away).
	Support *confine.Support

	// Host, when set, runs agents in an agent host (docs/agent-host.md),
	// started in RuntimeDir or found there, so that they outlive this
	// process; Adopt takes them back after a restart. nil (the default
	// for now) runs them here, children of this process.
	Host *HostOptions
}

// HostOptions says how to start an agent host.
type HostOptions struct {
	// Binary runs HostArg ("": this program).
	Binary string
	// Env is the host's environment (nil: this process's), without the
	// app's own secrets (hostEnv).
	Env []string
	// Linger is how long a host with no agent left waits for a launch
	// before it exits (0: its default).
	Linger time.Duration
}

func (c *Config) defaults() {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&c.StopGrace, 3*time.Second)
	set(&c.DrainWait, time.Second)
	set(&c.IdleAfter, 2*time.Second)
	set(&c.SettleDelay, 800*time.Millisecond)
	set(&c.PromptWait, 20*time.Second)
	set(&c.SetupTimeout, DefaultSetupTimeout)
	if c.Scrollback <= 0 {
		c.Scrollback = 10000
	}
	if c.RecordingCap <= 0 {
		c.RecordingCap = DefaultRecordingCap
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Env == nil {
		c.Env = os.Environ()
	}
	if c.Exited == nil {
		c.Exited = func(string, Exit) {}
	}
	if c.Helper == "" {
		c.Helper = helperPath()
	}
	if c.Bwrap == "" {
		c.Bwrap = "bwrap"
	}
}

// Supervisor runs agents in PTYs. It knows nothing of MCP: it is handed a
// session id, a token and an endpoint, and reports exits through
// Config.Exited.
type Supervisor struct {
	cfg Config

	mu       sync.Mutex
	sessions map[string]*Session // guarded by mu; live and ended, until Forget
	closed   bool                // guarded by mu

	probe     sync.Once
	supported confine.Support // what confines agents here; set by probe

	hosts hostLinks // connections to agent hosts (Config.Host)
}

// New returns a supervisor. The folders are created (0700) on first use.
func New(cfg Config) *Supervisor {
	cfg.defaults()
	return &Supervisor{cfg: cfg, sessions: map[string]*Session{}}
}

// LaunchSpec is one agent to start.
type LaunchSpec struct {
	SessionID    string
	RepositoryID string
	// Dir is the working directory: the session's worktree, or the
	// repository's folder when it has none.
	Dir string
	// Workspace is the session's git worktree, nil when it works in the
	// repository's folder; the agent learns it from its environment.
	Workspace *store.Workspace
	Profile   profile.Profile
	// Endpoint is the MCP URL the agent connects to.
	Endpoint string
	// Token is the session's own token. It goes into a 0600 file (and the
	// environment when the profile asks) and nowhere else.
	Token string
	// Prompt is the first prompt a person gave, always delivered: as the
	// argument when the profile takes one, else typed in. "" means
	// BootstrapPrompt's, delivered only as the profile says (firstPrompt).
	Prompt string
	// PacketNote ends Switchboard's bootstrap prompt (not a person's own)
	// for an agent started on a packet: which packet is its.
	PacketNote string
	Cols, Rows int
	// Port is the first of the session's block of ports, given to the
	// agent (and its setup) as SWITCHBOARD_PORT; 0 gives none.
	Port int
	// Setup, when set, runs first on the session's terminal, in Dir with
	// the agent's environment; the agent starts only if it exits 0.
	Setup *Setup
	// ConversationID is the CLI's conversation id ({conversation_id}): the
	// one Switchboard made for a new session whose profile takes it, or
	// the one recorded for a resume; "" when the CLI picks its own.
	ConversationID string
	// Resume starts the CLI again on conversation ConversationID, with the
	// profile's Conversation resume arguments (conversation.go).
	Resume bool
	// Permission is the mode the CLI starts in ("" is ask): the profile's
	// arguments for it are added (addPermission).
	Permission profile.Permission
	// Policy is what the agent (and its setup) may reach; nil runs it
	// unconfined, which Unconfined then explains (the person's choice for
	// the repository). A policy nothing here can enforce refuses the
	// launch: an agent never starts unconfined instead.
	Policy     *confine.Policy
	Unconfined string
	// RecordingCap bounds this session's recording (bytes); 0 is
	// Config.RecordingCap.
	RecordingCap int64
}

// ErrClosed is returned by Launch once Close has begun.
var ErrClosed = errors.New("the supervisor is shutting down")

// Launch starts an agent. On success the session runs until the agent
// exits; Config.Exited is called then. On failure nothing is left behind
// (no process, no files) and Exited is not called.
func (sv *Supervisor) Launch(spec LaunchSpec) (*Session, error) {
	if spec.Cols == 0 || spec.Rows == 0 {
		spec.Cols, spec.Rows = 120, 40
	}
	if err := checkSize(spec.Cols, spec.Rows); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(spec.SessionID, "ses_") || strings.ContainsAny(spec.SessionID, `/\.`) {
		return nil, fmt.Errorf("bad session id %q", spec.SessionID)
	}
	sv.mu.Lock()
	old := sv.sessions[spec.SessionID]
	// A resume re-opens an ended session under its own id.
	closed, dup := sv.closed, old != nil && !(spec.Resume && old.Exit() != nil)
	sv.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if dup {
		return nil, fmt.Errorf("session %s is already running", spec.SessionID)
	}
	prompt, delivery := firstPrompt(spec)
	spec.Prompt = prompt

	sesDir := sessionsDir(sv.cfg.RuntimeDir)
	for _, d := range []string{sesDir, sv.cfg.RecordingsDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
	}
	var files []string
	cleanup := func() {
		for _, f := range files {
			os.Remove(f)
		}
	}
	tokenFile, configFile := sessionFiles(sv.cfg.RuntimeDir, spec.SessionID)
	if err := writePrivate(tokenFile, []byte(spec.Token)); err != nil {
		return nil, err
	}
	files = append(files, tokenFile)
	vars := sessionVars(spec, delivery, tokenFile, configFile)
	if spec.Profile.MCPConfig != "" {
		if err := writePrivate(configFile, MCPServersJSON(spec.Endpoint, spec.Token)); err != nil {
			cleanup()
			return nil, err
		}
		files = append(files, configFile)
	}
	x, err := sv.extras(spec, vars)
	if err != nil {
		cleanup()
		return nil, err
	}
	files = append(files, x.Files...)
	path, args, err := commandLine(spec.Profile, vars, x)
	if err != nil {
		cleanup()
		return nil, err
	}
	env := append(agentEnv(sv.cfg.Env, spec, tokenFile, vars), x.Env...)
	bx, conf, inside, err := sv.sandboxFor(spec, path, env, files)
	if err != nil {
		cleanup()
		return nil, err
	}
	// A confined agent is told where its files are inside its sandbox.
	for i := range args {
		args[i] = inside(args[i])
	}
	for i := range env {
		env[i] = inside(env[i])
	}

	recording := sv.RecordingPath(spec.SessionID)
	if sv.cfg.Host != nil {
		if spec.Setup == nil {
			s, err := sv.launchHosted(spec, Spec{Path: path, Args: args, Dir: spec.Dir, Env: env, Cols: uint16(spec.Cols), Rows: uint16(spec.Rows), box: bx},
				conf, recording, files, delivery == profile.PromptTyped)
			if err != nil {
				cleanup()
				return nil, err
			}
			return s, nil
		}
		// The host does not run setups yet: this one, and its agent,
		// run here and end with the app.
		sv.cfg.Log.Warn("a session with a setup step runs in the app, not in the agent host: it will not outlive the app", "session", spec.SessionID)
	}
	if spec.Resume {
		if err := keepRecording(recording); err != nil {
			cleanup()
			return nil, err
		}
	}
	var recAt time.Time
	f, w, err := openRecording(recording, spec.Cols, spec.Rows,
		map[string]string{"TERM": "xterm-256color", "SHELL": shellCommand("{shell}")},
		spec.Profile.Name+" · "+spec.SessionID, &recAt)
	if err != nil {
		cleanup()
		return nil, err
	}
	agent := Spec{Path: path, Args: args, Dir: spec.Dir, Env: env, Cols: uint16(spec.Cols), Rows: uint16(spec.Rows), box: bx}
	var proc *Process
	var next *afterSetup
	if spec.Setup == nil {
		proc, err = Start(agent)
	} else {
		proc, next, err = startSetup(*spec.Setup, agent)
		if err == nil && spec.Workspace != nil {
			next.worktree = spec.Workspace.Path
		}
	}
	if err != nil {
		f.Close()
		os.Remove(recording)
		cleanup()
		return nil, err
	}
	procStart, err := ProcStart(proc.PID())
	if err != nil {
		sv.cfg.Log.Warn("process start time unknown; a crash would leave it running", "session", spec.SessionID, "err", err)
	}

	s := &Session{
		id: spec.SessionID, profile: spec.Profile.ID, repoID: spec.RepositoryID, permission: spec.Permission.Or(), confinement: conf,
		takesPrompts: spec.Profile.Prompt != profile.PromptNone,
		recCap:       cmp.Or(spec.RecordingCap, sv.cfg.RecordingCap),
		started:      time.Now(), master: proc.PTY(), proc: proc, procStart: procStart, settingUp: next != nil,
		recording: recording, files: files,
		cfg: &sv.cfg, log: sv.cfg.Log,
		emuQ: newQueue(emuLimit), recQ: newQueue(recLimit),
		input: make(chan []byte, inputQueue), stopIn: make(chan struct{}),
		subs: map[*Subscription]struct{}{}, screens: map[chan struct{}]struct{}{},
		cols: spec.Cols, rows: spec.Rows,
		agentUp:  make(chan struct{}),
		readDone: make(chan struct{}), emuDone: make(chan struct{}), done: make(chan struct{}),
	}
	s.term = vt.New(spec.Cols, spec.Rows, vt.WithScrollback(sv.cfg.Scrollback), vt.WithReply(s.reply))
	recDone := make(chan error, 1)
	goInBackground(func() { s.record(f, w, &recAt, recDone) })
	goInBackground(s.emulate)
	go s.write()
	go s.readLoop()
	typed := delivery == profile.PromptTyped
	if next == nil {
		close(s.agentUp)
		if typed {
			go s.typePrompt(spec.Prompt, time.Time{})
		}
	} else {
		next.typed, next.prompt = typed, spec.Prompt
	}
	go s.run(recDone, next)

	sv.mu.Lock()
	sv.sessions[s.id] = s
	sv.pruneEndedLocked()
	sv.mu.Unlock()
	return s, nil
}

// keepEnded is how many ended sessions the supervisor keeps for listings
// and their last screen. Each holds an emulator with its scrollback (a
// megabyte or two); a replay reads the recording, not these.
const keepEnded = 16

// pruneEndedLocked forgets the oldest ended sessions beyond keepEnded.
func (sv *Supervisor) pruneEndedLocked() {
	var ended []*Session
	for _, s := range sv.sessions {
		if s.Exit() != nil {
			ended = append(ended, s)
		}
	}
	if len(ended) <= keepEnded {
		return
	}
	slices.SortFunc(ended, func(a, b *Session) int { return a.started.Compare(b.started) })
	for _, s := range ended[:len(ended)-keepEnded] {
		delete(sv.sessions, s.id)
	}
}

// RecordingPath is where the recording of session id is (or would be):
// ended sessions of earlier runs are replayed from it.
func (sv *Supervisor) RecordingPath(id string) string {
	return filepath.Join(sv.cfg.RecordingsDir, filepath.Base(id)+".cast")
}

// Get returns the session id, live or ended (until Forget).
func (sv *Supervisor) Get(id string) (*Session, bool) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	s, ok := sv.sessions[id]
	return s, ok
}

// Forget drops an ended session from the supervisor's list.
func (sv *Supervisor) Forget(id string) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if s, ok := sv.sessions[id]; ok && s.Exit() != nil {
		delete(sv.sessions, id)
	}
}

// List describes every session the supervisor holds, oldest first.
func (sv *Supervisor) List() []Info {
	sv.mu.Lock()
	ss := make([]*Session, 0, len(sv.sessions))
	for _, s := range sv.sessions {
		ss = append(ss, s)
	}
	sv.mu.Unlock()
	out := make([]Info, 0, len(ss))
	for _, s := range ss {
		out = append(out, s.Info())
	}
	slices.SortFunc(out, func(a, b Info) int { return a.StartedAt.Compare(b.StartedAt) })
	return out
}

// Close stops every agent (interrupt, terminate, kill, as Stop does) and
// refuses new ones. When ctx ends first, the agents still running are
// killed at once: quitting the app never leaves one behind. It returns once
// all have exited.
func (sv *Supervisor) Close(ctx context.Context) error {
	sv.mu.Lock()
	sv.closed = true
	var live []*Session
	for _, s := range sv.sessions {
		if s.Exit() == nil {
			live = append(live, s)
		}
	}
	sv.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(live))
	for i, s := range live {
		wg.Go(func() {
			_, errs[i] = s.Stop(ctx, false)
		})
	}
	wg.Wait()
	for _, s := range live {
		select {
		case <-s.Done():
			continue
		default:
		}
		s.killNow()
		<-s.Done()
	}
	// Every agent has ended: the hosts exit after their linger.
	sv.closeHosts()
	if ctx.Err() != nil {
		return fmt.Errorf("stop agents: %w; the rest were killed", ctx.Err())
	}
	return errors.Join(errs...)
}

// Closing reports whether Close has begun: an agent that exits now ends
// with the app, and its session may be resumed at the next start.
func (sv *Supervisor) Closing() bool {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.closed
}

// MCPServersJSON is an mcpServers block naming Switchboard with the literal
// URL and Authorization header: a Claude Code --mcp-config file, and what
// most MCP clients read. Literal, so it works whatever a client does or
// does not expand.
func MCPServersJSON(endpoint, token string) []byte {
	type server struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	b, _ := json.MarshalIndent(map[string]map[string]server{"mcpServers": {"switchboard": {
		Type: "http", URL: endpoint, Headers: map[string]string{"Authorization": "Bearer " + token},
	}}}, "", "  ")
	return append(b, '\n')
}

func sessionsDir(runtimeDir string) string { return filepath.Join(runtimeDir, "sessions") }

func sessionFiles(runtimeDir, sessionID string) (token, mcpConfig string) {
	dir := sessionsDir(runtimeDir)
	return filepath.Join(dir, sessionID+".token"), filepath.Join(dir, sessionID+".mcp.json")
}

// SessionFiles are the files a session's agent is given in runtimeDir
// (its token, its MCP config, its hook settings), for removal after a
// crash left them.
func SessionFiles(runtimeDir, sessionID string) []string {
	t, c := sessionFiles(runtimeDir, sessionID)
	return []string{t, c, hooksFile(runtimeDir, sessionID)}
}

// writePrivate writes a new owner-only file.
func writePrivate(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", filepath.Base(path), err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("chmod %s: %w", filepath.Base(path), err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// confinedNote ends a confined agent's bootstrap prompt: what it can reach,
// so that it does not spend its turns finding the walls.
const confinedNote = "You run in a sandbox: you can write the current folder (your working copy, " +
	"where you commit with git as usual, on your own branch: other branches are read-only), " +
	"your CLI's own settings and caches, and /tmp; " +
	"everything else is read-only, and other agents' worktrees, Switchboard's own folders " +
	"and the person's keys and credentials are not there at all. The network is open."

// BootstrapPrompt is the first thing an agent is told: where its work comes
// from and how to report. It names the tools by their MCP names.
func BootstrapPrompt(sessionID, repositoryID string) string {
	return fmt.Sprintf("You are working under Switchboard (session %s, repository %s). "+
		"Its MCP server \"switchboard\" is connected. First list its tools (tools/list). "+
		"Then loop: call work_await_packet with repository_id %q to claim a work packet; "+
		"call work_ack to start it, do what its instructions say inside its write scope, "+
		"publish each expected artifact with artifact_publish, then call work_complete "+
		"(or work_release with a reason if you cannot do it). "+
		"Report progress with session_report (kind heartbeat), and when you need a person, "+
		"session_report kind question, then session_await_answer. "+
		"Use the packet_id and lease_id each call returns.",
		sessionID, repositoryID, repositoryID)
}

// Owner names the live session whose process set holds process pid: the
// control socket refuses such a peer, whatever it did to leave its
// agent's process group.
func (sv *Supervisor) Owner(pid int) (sessionID string, ok bool) {
	sv.mu.Lock()
	live := make([]*Session, 0, len(sv.sessions))
	for _, s := range sv.sessions {
		live = append(live, s)
	}
	sv.mu.Unlock()
	for _, s := range live {
		if s.Exit() == nil && s.holds(pid) {
			return s.id, true
		}
	}
	return "", false
}
