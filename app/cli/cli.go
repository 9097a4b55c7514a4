// Package cli is the switchboard command line. It talks to a running
// Switchboard over the control socket, or, when none runs, opens the
// database itself and runs the same registry, so a command means the same
// thing either way.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/app/daemon/control"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// DatabaseEnv names the variable that puts the store on PostgreSQL (team
// mode), as --database does for the app.
const DatabaseEnv = "SWITCHBOARD_DATABASE_URL"

// Env is the process environment the CLI runs in.
type Env struct {
	// Stdin is where attach reads keystrokes; nil means os.Stdin.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Keyring is the OS keyring; nil means go-keyring.
	Keyring keyring.Keyring
	Version string
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, c *cli, args []string) error
}

func commands() []command {
	return []command{
		{"status", "show whether Switchboard runs, its endpoint and counts", runStatus},
		{"endpoint", "print the MCP endpoint URL of the running Switchboard", runEndpoint},
		{"token", "create, list, revoke, rotate tokens; print the client token", runToken},
		{"repo", "register and list repositories", runRepo},
		{"work", "create, list, show, cancel and requeue work packets", runWork},
		{"answer", "answer an agent's question", runAnswer},
		{"diff", "show what a packet's commits or a session's worktree changed", runDiff},
		{"land", "bring a done packet's commits onto its base branch", runLand},
		{"review", "approve a packet, send it back with notes and line comments, or reject it", runReview},
		{"workspace", "list the agents' worktrees, or discard one", runWorkspace},
		{"agent", "start, list, stop and attach to supervised agents", runAgent},
		{"profile", "list, add and remove agent profiles", runProfile},
		{"connection", "show or set the saved listen address and browser origins", runConnection},
		{"sandbox", "show or set the paths hidden from every agent and the recordings' cap", runSandbox},
		{"audit", "show the audit log, --follow it, or --verify its hash chain", runAudit},
		{"mcp", "bridge MCP over stdio to the running Switchboard", runMCP},
		{"autostart", "start Switchboard at login, or not; show which", runAutostart},
		{"team", "show the shared store of team mode: its instances and queue", runTeam},
	}
}

// IsCommand reports whether name is a CLI subcommand (as opposed to a flag
// of the app itself).
func IsCommand(name string) bool {
	if name == "help" {
		return true
	}
	for _, c := range commands() {
		if c.name == name {
			return true
		}
	}
	return false
}

// Usage writes the list of subcommands.
func Usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: switchboard [flags]            run the tray app (headless without a display)")
	fmt.Fprintln(w, "       switchboard COMMAND [args]     talk to it")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'switchboard COMMAND --help' for a command's flags.")
}

// Run runs one subcommand and returns the process exit code.
func Run(ctx context.Context, env Env, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		Usage(env.Stdout)
		return 0
	}
	for _, cmd := range commands() {
		if cmd.name != args[0] {
			continue
		}
		if env.Stdin == nil {
			env.Stdin = os.Stdin
		}
		c := &cli{env: env}
		defer c.close()
		err := cmd.run(ctx, c, args[1:])
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			return 2
		}
		fmt.Fprintln(env.Stderr, "switchboard "+cmd.name+": "+err.Error())
		return 1
	}
	fmt.Fprintf(env.Stderr, "switchboard: unknown command %q\n", args[0])
	Usage(env.Stderr)
	return 2
}

// errUsage means the flag package already explained the mistake.
var errUsage = errors.New("usage")

// cli holds the connection, made on first use.
type cli struct {
	env    Env
	paths  daemon.Paths
	caller caller
	closer func()
}

// caller runs a registry method: over the socket, or in this process.
type caller interface {
	Call(ctx context.Context, method string, args any) (control.Response, error)
}

func (c *cli) close() {
	if c.closer != nil {
		c.closer()
	}
}

func (c *cli) resolvePaths() error {
	if c.paths.Data != "" {
		return nil
	}
	p, err := daemon.ResolvePaths(c.env.Getenv)
	if err != nil {
		return err
	}
	c.paths = p
	return nil
}

// connect picks the running Switchboard when it answers, else the database.
func (c *cli) connect(ctx context.Context) (caller, error) {
	if c.caller != nil {
		return c.caller, nil
	}
	if err := c.resolvePaths(); err != nil {
		return nil, err
	}
	client := control.NewClient(c.paths.ControlSocket())
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	_, err := client.Hello(hctx)
	cancel()
	if err == nil {
		c.caller = client
		return client, nil
	}
	// In team mode the store is the shared one, as this data folder's
	// instance; otherwise the folder's own file, which must exist.
	dbURL := c.env.Getenv(DatabaseEnv)
	if _, statErr := os.Stat(c.paths.DB()); dbURL == "" && errors.Is(statErr, os.ErrNotExist) {
		return nil, fmt.Errorf("no Switchboard database in %s: start switchboard first (or set SWITCHBOARD_DATA_DIR)", c.paths.Data)
	}
	db, err := daemon.OpenStore(c.paths, dbURL, time.Second)
	if errors.Is(err, store.ErrLocked) {
		return nil, errors.New("the database is held by a Switchboard whose control socket does not answer (still starting, or the runtime dir differs)")
	}
	if err != nil {
		return nil, err
	}
	kr := c.env.Keyring
	if kr == nil {
		kr = keyring.NewSystem(daemon.KeyringTimeout)
	}
	// Warnings go to the person: with no daemon there is no other log, and
	// one says when a rotated client token could be kept nowhere.
	log := slog.New(slog.NewTextHandler(c.env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	reg := mcpserver.New(db, mcpserver.Options{Version: c.env.Version, Env: daemon.OfflineEnv{Paths: c.paths, Keyring: kr}, Log: log})
	c.caller = localCaller{reg}
	c.closer = func() { db.Close() }
	return c.caller, nil
}

// localCaller runs the registry in this process, as the operator over rpc:
// exactly what the socket would do.
type localCaller struct{ reg *mcpserver.Registry }

func (l localCaller) Call(ctx context.Context, method string, args any) (control.Response, error) {
	var raw json.RawMessage
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return control.Response{}, err
		}
		raw = b
	}
	return control.ResponseFor(l.reg.Invoke(ctx, mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, method, raw)), nil
}

// call runs the method name with in and returns its result. A denial is
// an *errDenied, whose text names its code.
func call[In, Out any](ctx context.Context, c *cli, name mcpserver.Name[In, Out], in In) (Out, error) {
	out, _, err := callAudited(ctx, c, name, in)
	return out, err
}

// callAudited is call that also returns the id of the call's own audit
// record.
func callAudited[In, Out any](ctx context.Context, c *cli, name mcpserver.Name[In, Out], in In) (Out, string, error) {
	var out Out
	cl, err := c.connect(ctx)
	if err != nil {
		return out, "", err
	}
	resp, err := cl.Call(ctx, string(name), in)
	if err != nil {
		return out, "", err
	}
	if !resp.OK {
		return out, "", &errDenied{resp.Error, resp.Message}
	}
	if err := json.Unmarshal(resp.Result, &out); err != nil {
		return out, "", fmt.Errorf("decode result of %s: %w", name, err)
	}
	return out, resp.AuditID, nil
}

// errDenied is the registry's refusal of a call, as opposed to failing to
// reach the registry at all.
type errDenied struct {
	code    store.Code
	message string
}

func (e *errDenied) Error() string { return fmt.Sprintf("%s: %s", e.code, e.message) }

// newFlags makes a FlagSet that reports to stderr and returns errors.
func (c *cli) newFlags(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("switchboard "+name, flag.ContinueOnError)
	fs.SetOutput(c.env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(c.env.Stderr, "Usage: switchboard %s\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

func (c *cli) printJSON(v any) error {
	enc := json.NewEncoder(c.env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (c *cli) printf(format string, args ...any) { fmt.Fprintf(c.env.Stdout, format, args...) }

func fmtTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
