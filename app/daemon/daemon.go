// Package daemon is Switchboard without its face: the database, the client
// token, the MCP listener, the control socket and the runtime files. The
// tray and the headless mode both run one Daemon; it imports no GUI code, so
// it builds and tests without cgo.
package daemon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/app/daemon/control"
	"github.com/switchboard-dev/switchboard/mcphttp"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// KeyringTimeout bounds every keyring call: a wedged Secret Service must not
// hang startup.
const KeyringTimeout = 3 * time.Second

// Config configures Start.
type Config struct {
	Paths   Paths
	Listen  mcpserver.ListenAddr
	Version string
	// AllowOrigins are extra browser origins for the MCP endpoint.
	AllowOrigins []string
	// EnvToken is SWITCHBOARD_MCP_TOKEN, when set.
	EnvToken string
	// TokenFile opts in to keeping the client token in an owner-only file
	// when the keyring does not answer.
	TokenFile bool
	// Keyring is the OS keyring; nil means go-keyring behind KeyringTimeout.
	Keyring keyring.Keyring
	Log     *slog.Logger
	// UsageEvery is how often the agents' token usage is read;
	// 0 is DefaultUsageEvery.
	UsageEvery time.Duration
	// DatabaseURL puts the store on PostgreSQL, shared with other
	// instances (team.go); "" is the bbolt file in the data folder.
	DatabaseURL string
	// DatabaseFrom says who named DatabaseURL: DatabaseFromFlag,
	// DatabaseFromEnv or DatabaseFromSettings; "" with none.
	DatabaseFrom string
	// Heartbeat is how often an instance in team mode beats (0 is
	// DefaultHeartbeat), InstanceGrace how long another may be silent
	// before its sessions are ended (0 is mcpserver.DefaultInstanceGrace).
	Heartbeat     time.Duration
	InstanceGrace time.Duration
	// Bwrap names the bubblewrap that confines agents ("" looks for
	// "bwrap" on PATH, "-" uses none: Landlock then, where the kernel
	// has it). SWITCHBOARD_BWRAP sets it for the app.
	Bwrap string
}

// AlreadyRunningError is returned by Start when another Switchboard holds
// the data dir.
type AlreadyRunningError struct {
	Endpoint string
	PID      int
}

func (e *AlreadyRunningError) Error() string {
	msg := "switchboard is already running"
	if e.PID > 0 {
		msg += " (pid " + strconv.Itoa(e.PID) + ")"
	}
	if e.Endpoint != "" {
		msg += "; MCP endpoint " + e.Endpoint
	}
	return msg
}

// Daemon is a running Switchboard core.
type Daemon struct {
	cfg      Config
	log      *slog.Logger
	db       *store.DB
	reg      *mcpserver.Registry
	agents   *supervisor.Supervisor
	usage    *usageWatch
	keyring  keyring.Keyring
	endpoint string
	source   TokenSource
	started  time.Time
	// listen is where the MCP listener was bound, and listenFrom where
	// that address came from.
	listen     mcpserver.ListenAddr
	listenFrom ListenSource

	httpSrv *http.Server
	ctlSrv  *control.Server
	wg      sync.WaitGroup

	// stopLoops ends the background loops (lease expiry).
	stopLoops context.CancelFunc

	// releaseInstance lets go of the data folder's instance.
	releaseInstance func()

	// restart is set when the program is to start again once it has
	// closed (RequestRestart).
	restart atomic.Bool

	mu sync.Mutex
	// clientToken is the raw client token. Guarded by mu.
	clientToken string
	// showWindow puts the app's window in front (SetShowWindow); nil
	// while it has none. Guarded by mu.
	showWindow func() bool
}

// Start opens everything and starts serving. On any error it has released
// whatever it had opened.
func Start(ctx context.Context, cfg Config) (_ *Daemon, err error) {
	// The start's own writes (the heartbeat, the sweeps of what an earlier
	// run left, the recovery of its landings) run to their end even when
	// a signal comes meanwhile: each leaves the store as it should be and
	// is short, and one cut half way would fail the start for nothing.
	// The program stops on the signal once Start has returned.
	work := context.WithoutCancel(ctx)
	d := &Daemon{cfg: cfg, log: cfg.Log, started: time.Now()}
	d.usage = newUsageWatch(d)
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	var cleanup []func()
	defer func() {
		if err != nil {
			for i := len(cleanup) - 1; i >= 0; i-- {
				cleanup[i]()
			}
		}
	}()
	if err := cfg.Paths.MakeDirs(); err != nil {
		return nil, err
	}
	// A running instance answers on its socket at once; asking first means
	// a second start need not wait out the database lock.
	helloCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	h, err := control.NewClient(cfg.Paths.ControlSocket()).Hello(helloCtx)
	cancel()
	if err == nil {
		return nil, &AlreadyRunningError{Endpoint: h.Endpoint, PID: h.PID}
	}
	release, err := lockInstance(cfg.Paths)
	if errors.Is(err, errInstanceLocked) {
		return nil, &AlreadyRunningError{Endpoint: ReadEndpoint(cfg.Paths)}
	}
	if err != nil {
		return nil, err
	}
	d.releaseInstance = release
	cleanup = append(cleanup, release)
	d.db, err = OpenStore(cfg.Paths, cfg.DatabaseURL, 0)
	if errors.Is(err, store.ErrLocked) {
		return nil, &AlreadyRunningError{Endpoint: ReadEndpoint(cfg.Paths)}
	}
	if err != nil {
		return nil, err
	}
	cleanup = append(cleanup, func() { d.db.Close() })
	// Runs after the servers below are stopped, before the database closes.
	cleanup = append(cleanup, d.wg.Wait)

	d.keyring = cfg.Keyring
	if d.keyring == nil {
		d.keyring = keyring.NewSystem(KeyringTimeout)
	}
	d.agents = supervisor.New(supervisor.Config{
		RuntimeDir:    cfg.Paths.Runtime,
		RecordingsDir: cfg.Paths.Recordings(),
		// d.reg is set just below, before any agent can start. The last
		// read of the agent's usage comes before its end is recorded.
		Exited: func(id string, e supervisor.Exit) { d.usage.exited(id); d.reg.AgentExited(id, e) },
		Log:    d.log,
		Bwrap:  cfg.Bwrap,
	})
	// The registry comes before the first write: every write goes
	// through it, the startup's own too. Neither it nor the supervisor
	// starts anything when made, so a start that fails before the
	// listeners has nothing of theirs to stop.
	d.reg = mcpserver.New(d.db, mcpserver.Options{Version: cfg.Version, Env: d, Log: d.log, Agents: d.agents, Worktrees: cfg.Paths.Worktrees(),
		Sandbox: sandbox(cfg.Paths), RefreshUsage: d.usage.refresh, InstanceGrace: cfg.InstanceGrace})
	if cfg.DatabaseURL != "" {
		// Running, in the other instances' eyes, before the sweeps
		// below end this instance's sessions of the run before.
		if err := d.beat(work); err != nil {
			return nil, err
		}
		d.reg.HearOtherInstances()
	}

	if err := revokeStaleEphemeral(work, d.reg); err != nil {
		return nil, fmt.Errorf("revoke tokens of earlier runs: %w", err)
	}
	stores := []secretStore{{kr: d.keyring, user: keyringUser(cfg.Paths.Data), source: SourceKeyring}}
	if cfg.TokenFile {
		stores = append(stores, secretStore{kr: keyring.NewFile(d.tokenFilePath()), user: keyringUser(cfg.Paths.Data), source: SourceFile})
	}
	tok, err := resolveClientToken(work, d.reg, cfg.EnvToken, stores)
	if err != nil {
		return nil, err
	}
	d.clientToken, d.source = tok.raw, tok.source

	if err := d.sweepLostSessions(work); err != nil {
		return nil, fmt.Errorf("end sessions of an earlier run: %w", err)
	}
	// Landings and worktree removals a kill cut off are settled with git
	// before anyone can land or discard again.
	if err := d.reg.RecoverWorkspaces(work); err != nil {
		return nil, err
	}
	// Leases expire whether or not anyone polls: a sweep now for those that
	// expired while nothing ran, then a timer on the next expiry.
	loopCtx, stopLoops := context.WithCancel(context.Background())
	d.stopLoops = stopLoops
	cleanup = append(cleanup, stopLoops)
	d.serve("lease expiry", func() error { d.expireLeases(loopCtx); return nil })
	d.serve("worktree prune", func() error { d.pruneWorktrees(loopCtx); return nil })
	// Whether each packet waiting to land still applies to its target,
	// ahead of anyone clicking Land.
	d.serve("conflict watch", func() error { d.reg.WatchConflicts(loopCtx, mcpserver.ConflictPoll); return nil })
	usageEvery := cmp.Or(cfg.UsageEvery, DefaultUsageEvery)
	d.serve("usage", func() error { d.usage.run(loopCtx, usageEvery); return nil })
	if cfg.DatabaseURL != "" {
		every := cmp.Or(cfg.Heartbeat, DefaultHeartbeat)
		grace := cmp.Or(cfg.InstanceGrace, mcpserver.DefaultInstanceGrace)
		d.serve("heartbeat", func() error { d.heartbeat(loopCtx, every, grace); return nil })
	}

	if d.listen, d.listenFrom, err = d.resolveListen(); err != nil {
		return nil, err
	}
	if !d.listen.Off {
		ln, err := d.listenHTTP(work)
		if err != nil {
			return nil, err
		}
		cleanup = append(cleanup, func() { ln.Close() })
		d.endpoint = "http://" + ln.Addr().String() + "/mcp"
		mux := http.NewServeMux()
		mcpHandler := mcphttp.NewHTTPHandler(d.reg, mcphttp.HTTPOptions{AllowOrigins: cfg.AllowOrigins, Version: cfg.Version, Log: d.log})
		mux.Handle("/mcp", mcpHandler)
		mux.Handle("/mcp/", mcpHandler)
		mux.Handle("/events", mcpHandler)
		mux.Handle(supervisor.ClaudeHookPath, mcpHandler) // Claude Code's hooks (supervisor/hooks.go)
		d.httpSrv = mcphttp.NewServer(mux, d.log)
		d.serve("mcp http", func() error { return d.httpSrv.Serve(ln) })
		cleanup = append(cleanup, func() { d.httpSrv.Close() })
	}

	ctlLn, err := control.Listen(cfg.Paths.ControlSocket())
	if errors.Is(err, control.ErrInUse) {
		return nil, &AlreadyRunningError{Endpoint: ReadEndpoint(cfg.Paths)}
	}
	if err != nil {
		return nil, err
	}
	// Shutdown alone would leave the socket answering until the serve
	// goroutine gets to run; a failed Start must let go of it before it
	// returns, or a retry finds it "in use".
	cleanup = append(cleanup, func() { ctlLn.Close() })
	d.ctlSrv = control.NewServer(d.reg, d.hello, d.show, d.log)
	d.serve("control socket", func() error { return d.ctlSrv.Serve(ctlLn) })
	cleanup = append(cleanup, func() { d.ctlSrv.Shutdown(context.Background()) })

	if err := writeFileAtomic(filepath.Join(cfg.Paths.Runtime, PIDFile), []byte(strconv.Itoa(os.Getpid())+"\n")); err != nil {
		return nil, fmt.Errorf("write pid file: %w", err)
	}
	cleanup = append(cleanup, func() { os.Remove(filepath.Join(cfg.Paths.Runtime, PIDFile)) })
	// The endpoint file comes last: its appearance means "ready".
	if d.endpoint != "" {
		if err := writeFileAtomic(cfg.Paths.Endpoint(), []byte(d.endpoint+"\n")); err != nil {
			return nil, fmt.Errorf("write endpoint file: %w", err)
		}
	} else {
		os.Remove(cfg.Paths.Endpoint())
	}
	return d, nil
}

func (d *Daemon) tokenFilePath() string { return d.cfg.Paths.tokenFile() }

// ListenSource says where the MCP listener's address came from.
type ListenSource string

const (
	ListenFromFlag     ListenSource = "--mcp-http-addr" // or SWITCHBOARD_MCP_HTTP_ADDR
	ListenFromSettings ListenSource = "settings"
	ListenDefault      ListenSource = "default"
)

// resolveListen picks the listener's address: the flag's (or the
// environment's) when given, else the one saved in Settings, else the
// default. A saved address the rules now refuse is logged and passed over:
// a setting must not keep the app from starting.
func (d *Daemon) resolveListen() (mcpserver.ListenAddr, ListenSource, error) {
	if d.cfg.Listen != (mcpserver.ListenAddr{}) {
		return d.cfg.Listen, ListenFromFlag, nil
	}
	var saved mcpserver.ConnectionSettings
	err := d.db.View(context.Background(), func(tx *store.Tx) (err error) {
		saved, err = mcpserver.ReadConnection(tx)
		return err
	})
	if err != nil {
		return mcpserver.ListenAddr{}, "", fmt.Errorf("read the saved listen address: %w", err)
	}
	if saved.ListenAddr == "" {
		return mcpserver.ListenAddr{}, ListenDefault, nil
	}
	la, err := mcpserver.ParseListenAddr(saved.ListenAddr)
	if err != nil {
		d.log.Warn("saved listen address refused; using the default", "err", err)
		return mcpserver.ListenAddr{}, ListenDefault, nil
	}
	return la, ListenFromSettings, nil
}

// Listen returns where the MCP listener was bound (Off when it is not) and
// where that address came from.
func (d *Daemon) Listen() (mcpserver.ListenAddr, ListenSource) { return d.listen, d.listenFrom }

// listenHTTP binds the MCP listener: the configured address, or loopback on
// the port remembered from the last run when it is free (so clients keep
// working across restarts), else an ephemeral port. The port is remembered
// for next time.
func (d *Daemon) listenHTTP(ctx context.Context) (net.Listener, error) {
	var ln net.Listener
	var err error
	if d.listen.Addr != "" {
		ln, err = net.Listen("tcp", d.listen.Addr)
		if err != nil {
			return nil, fmt.Errorf("listen on %s (from %s): %w", d.listen.Addr, d.listenFrom, err)
		}
	} else {
		var last string
		d.db.View(ctx, func(tx *store.Tx) error { last = tx.Setting(mcpserver.SettingHTTPPort); return nil })
		if last != "" {
			ln, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", last))
		}
		if ln == nil {
			if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
				return nil, fmt.Errorf("listen on loopback: %w", err)
			}
		}
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if _, err := startupCall(ctx, d.reg, mcpserver.MethodConnectionRememberPort, mcpserver.RememberPortArgs{Port: port}); err != nil {
		ln.Close()
		return nil, fmt.Errorf("remember port %d: %w", port, err)
	}
	return ln, nil
}

func (d *Daemon) serve(name string, fn func() error) {
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		if err := fn(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.log.Error("server stopped", "server", name, "err", err)
		}
	}()
}

func (d *Daemon) hello() control.Hello {
	return control.Hello{PID: os.Getpid(), Endpoint: d.endpoint, Version: d.cfg.Version}
}

// SetShowWindow sets what a second launch of the app asks for over the
// control socket: show puts the app's window in front and reports whether
// it could. The GUI sets it once it runs; headless, nothing does.
func (d *Daemon) SetShowWindow(show func() bool) {
	d.mu.Lock()
	d.showWindow = show
	d.mu.Unlock()
}

// show runs the window's show, if any.
func (d *Daemon) show() bool {
	d.mu.Lock()
	show := d.showWindow
	d.mu.Unlock()
	return show != nil && show()
}

// Close stops every agent, then the servers, removes the runtime files and
// closes the database, waiting up to ctx for calls in flight. Agents go
// first: their ends are recorded through the registry.
func (d *Daemon) Close(ctx context.Context) error {
	if err := d.agents.Close(ctx); err != nil {
		d.log.Error("stop agents", "err", err)
	}
	if d.httpSrv != nil {
		d.httpSrv.Shutdown(ctx)
	}
	d.ctlSrv.Shutdown(ctx)
	d.stopLoops()
	d.wg.Wait()
	if err := d.reg.WaitTidy(ctx); err != nil {
		d.log.Warn("close", "err", err)
	}
	os.Remove(d.cfg.Paths.Endpoint())
	os.Remove(filepath.Join(d.cfg.Paths.Runtime, PIDFile))
	os.Remove(d.cfg.Paths.ControlSocket())
	if d.cfg.DatabaseURL != "" {
		if err := d.reg.StopInstance(); err != nil {
			d.log.Warn("close", "err", err)
		}
	}
	err := d.db.Close()
	if d.releaseInstance != nil {
		d.releaseInstance() // after the last write as this instance
	}
	return err
}

// AllowOrigins are the browser origins the MCP endpoint accepts besides
// loopback ones, for the GUI's settings.
func (d *Daemon) AllowOrigins() []string { return append([]string(nil), d.cfg.AllowOrigins...) }

// Agents is the supervisor, for the GUI's terminal views.
func (d *Daemon) Agents() *supervisor.Supervisor { return d.agents }

// Registry is the method registry, for the GUI.
func (d *Daemon) Registry() *mcpserver.Registry { return d.reg }

// Endpoint is the MCP URL, or "" with the listener off.
func (d *Daemon) Endpoint() string { return d.endpoint }

// Running is true: this process serves the database.
func (d *Daemon) Running() bool { return true }

// TokenSource says where the client token came from.
func (d *Daemon) TokenSource() TokenSource { return d.source }

// KeyringState says whether the OS keyring answers.
func (d *Daemon) KeyringState() string {
	return keyringState(d.keyring)
}

// ClientToken returns the raw client token.
func (d *Daemon) ClientToken() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.clientToken, nil
}

// ClientTokenRotated keeps a rotated client token: in memory always, in the
// keyring (or the opt-in file) when this run's token came from there.
func (d *Daemon) ClientTokenRotated(raw string) error {
	d.mu.Lock()
	d.clientToken = raw
	source := d.source
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), KeyringTimeout)
	defer cancel()
	user := keyringUser(d.cfg.Paths.Data)
	switch source {
	case SourceKeyring:
		return d.keyring.Set(ctx, KeyringService, user, raw)
	case SourceFile:
		return keyring.NewFile(d.tokenFilePath()).Set(ctx, KeyringService, user, raw)
	}
	return nil
}

// StartupLines are what a person needs on start: the endpoint and where the
// client token comes from, with a warning when it will not survive a
// restart.
func (d *Daemon) StartupLines(headless bool) []string {
	ep := d.endpoint
	if ep == "" {
		ep = "off (--mcp-http-addr off)"
	}
	lines := []string{"Switchboard " + d.cfg.Version + " MCP endpoint: " + ep}
	switch d.source {
	case SourceEnv:
		lines = append(lines, "Client token: from SWITCHBOARD_MCP_TOKEN.")
	case SourceKeyring:
		lines = append(lines, "Client token: kept in the OS keyring (stable across restarts).")
	case SourceFile:
		lines = append(lines, "Client token: kept in "+d.tokenFilePath()+" (owner-only file; the keyring did not answer). WARNING: anyone who can read this file as you can act as your agents.")
	case SourceMemory:
		lines = append(lines, "Client token: minted for this run only ("+d.KeyringState()+"). WARNING: it changes on restart; set SWITCHBOARD_MCP_TOKEN or start with --token-file to keep it.")
	}
	if headless {
		lines = append(lines, "Running headless. Print the client token with: switchboard token client")
	}
	return lines
}
