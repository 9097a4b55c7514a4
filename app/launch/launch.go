// Package launch is Switchboard's command line: it parses the flags, starts
// the daemon and shows the tray it is given, or hands over to the CLI. It is
// free of Fyne (the tray comes in as a function), so a headless build
// without cgo (cmd/switchboard-daemon, the macOS build) shares it with the
// tray app.
package launch

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/app/cli"
	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/app/daemon/control"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/supervisor"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// Version is the program's version.
const Version = "0.1.0"

// Tray runs the GUI until the user quits or ctx ends, from the main
// goroutine; an error says no tray can appear, and the program goes on
// headless.
type Tray func(ctx context.Context, d *daemon.Daemon, log *slog.Logger) error

// Main runs the program with args (without the program name) and returns
// its exit code. tray nil is a build without a GUI: always headless.
func Main(args []string, tray Tray) int {
	// A confined agent's start runs this binary as its sandbox helper
	// first (confine.HelperArg); it becomes the agent and never returns.
	confine.RunHelper(append([]string{os.Args[0]}, args...))
	// The agent host (supervisor.StartHost starts it): it owns agents'
	// terminals so that they outlive the app.
	if len(args) > 0 && args[0] == supervisor.HostArg {
		return supervisor.RunHost(args[1:], Version)
	}
	if len(args) > 0 && cli.IsCommand(args[0]) {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return cli.Run(ctx, cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Version: Version}, args)
	}
	return runApp(args, tray)
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func runApp(args []string, tray Tray) int {
	// No process of the person's (an agent among them) may read the
	// app's memory or environment through /proc, or trace it.
	notDumpable()
	fs := flag.NewFlagSet("switchboard", flag.ContinueOnError)
	addr := fs.String("mcp-http-addr", os.Getenv("SWITCHBOARD_MCP_HTTP_ADDR"), "MCP listener: `ADDR` (loopback host:port), a bare port, or off (env SWITCHBOARD_MCP_HTTP_ADDR)")
	var origins listFlag
	if env := os.Getenv("SWITCHBOARD_ALLOW_ORIGINS"); env != "" {
		origins = strings.Split(env, ",")
	}
	fs.Var(&origins, "allow-origin", "browser origin `URL` accepted besides loopback ones (repeatable; env SWITCHBOARD_ALLOW_ORIGINS, comma-separated)")
	database := fs.String("database", os.Getenv(cli.DatabaseEnv), "team mode: keep the store in the PostgreSQL database at `URL` (postgres://…; host= may be a socket folder), shared with other instances (env "+cli.DatabaseEnv+"); default: the bbolt file in the data dir")
	heartbeat := durationFlag(fs, "heartbeat", "SWITCHBOARD_HEARTBEAT",
		"team mode: how often this instance records that it runs, as a `DURATION` (env SWITCHBOARD_HEARTBEAT; default "+daemon.DefaultHeartbeat.String()+")")
	grace := durationFlag(fs, "instance-grace", "SWITCHBOARD_INSTANCE_GRACE",
		"team mode: how long another instance may go without a heartbeat before its sessions are ended as lost, as a `DURATION` (env SWITCHBOARD_INSTANCE_GRACE; default "+mcpserver.DefaultInstanceGrace.String()+")")
	headless := fs.Bool("headless", false, "run without GUI (automatic when there is no display)")
	tokenFile := fs.Bool("token-file", false, "when the keyring does not answer, keep the client token in an owner-only file in the data dir")
	version := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		cli.Usage(fs.Output())
		fmt.Fprintln(fs.Output(), "\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "switchboard: unknown command %q\n", fs.Arg(0))
		cli.Usage(os.Stderr)
		return 2
	}
	if *version {
		fmt.Println("switchboard", Version)
		return 0
	}
	fromFlag := false
	fs.Visit(func(f *flag.Flag) { fromFlag = fromFlag || f.Name == "database" })
	if msg := databaseFlagError(*database, fromFlag); msg != "" {
		fmt.Fprintln(os.Stderr, "switchboard:", msg)
		return 2
	}
	listen, err := mcpserver.ParseListenAddr(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "switchboard: --mcp-http-addr:", err)
		return 2
	}
	paths, err := daemon.ResolvePaths(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		return 1
	}
	if err := paths.MakeDirs(); err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		return 1
	}
	log, closeLog := openLog(paths)
	defer closeLog()
	databaseFrom := ""
	switch {
	case fromFlag:
		databaseFrom = daemon.DatabaseFromFlag
	case *database != "":
		databaseFrom = daemon.DatabaseFromEnv
	default:
		// The team database a person connected to in Settings.
		saved, err := daemon.SavedDatabase(paths)
		if err != nil {
			log.Warn("team database: the saved one is unreadable; opening the bbolt file", "err", err)
		}
		if saved != "" {
			*database, databaseFrom = saved, daemon.DatabaseFromSettings
		}
	}

	noDisplay := !hasDisplay()
	if noDisplay && !*headless && tray != nil {
		log.Info("no display found: running headless")
	}
	*headless = *headless || noDisplay || tray == nil

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	d, err := daemon.Start(ctx, daemon.Config{
		Paths:         paths,
		Listen:        listen,
		Version:       Version,
		AllowOrigins:  origins,
		EnvToken:      os.Getenv("SWITCHBOARD_MCP_TOKEN"),
		TokenFile:     *tokenFile,
		Log:           log,
		DatabaseURL:   *database,
		DatabaseFrom:  databaseFrom,
		Heartbeat:     *heartbeat,
		InstanceGrace: *grace,
		Bwrap:         os.Getenv("SWITCHBOARD_BWRAP"),
	})
	var running *daemon.AlreadyRunningError
	if errors.As(err, &running) {
		// Launched again from a menu, the person wants the window: the
		// running one shows it, and this one has done its job.
		if showRunning(paths) {
			fmt.Println("Switchboard is already running; its window is in front.")
			return 0
		}
		fmt.Fprintln(os.Stderr, "switchboard:", running.Error())
		return 1
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		return 1
	}
	log.Info("started", "endpoint", d.Endpoint(), "token_source", d.TokenSource(), "keyring", d.KeyringState(), "startup", time.Since(start).Round(time.Millisecond))
	for _, line := range d.StartupLines(*headless) {
		fmt.Println(line)
	}

	if !*headless {
		detachOwnConsole()
		if err := tray(ctx, d, log); err != nil {
			// No tray host (no session bus): keep serving, as headless.
			log.Warn("no tray: running headless", "err", err)
			fmt.Println("No system tray available (" + err.Error() + "); running headless. Print the client token with: switchboard token client")
			*headless = true
		}
	}
	if *headless {
		<-ctx.Done()
	}
	stop()
	// Long enough for agents to take an interrupt and a terminate (3 s
	// each) before they are killed.
	closeCtx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	if err := d.Close(closeCtx); err != nil {
		log.Error("close", "err", err)
		return 1
	}
	if d.RestartRequested() {
		// Settings moved the store to or from a team database: the
		// program starts again, as the person would, and opens it.
		log.Info("restarting to open the store Settings named")
		if err := relaunch(); err != nil {
			log.Error("restart", "err", err)
			fmt.Fprintln(os.Stderr, "switchboard: could not start again:", err)
			return 1
		}
	}
	return 0
}

// showRunning asks the Switchboard already running on paths to show its
// window, and reports whether it did (false when it runs headless, or does
// not answer within a second).
func showRunning(paths daemon.Paths) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	shown, err := control.NewClient(paths.ControlSocket()).Show(ctx)
	return err == nil && shown
}

// durationFlag defines a duration flag whose default is the variable env
// when set; 0 (unset) is the daemon's default. A flag that is not a
// positive duration is refused as flags are; such a variable is reported
// and passed over, as a saved setting the rules refuse is.
func durationFlag(fs *flag.FlagSet, name, env, usage string) *time.Duration {
	d := new(time.Duration)
	fs.Func(name, usage, func(v string) error {
		n, err := time.ParseDuration(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not a positive duration such as 5s", v)
		}
		*d = n
		return nil
	})
	if v := os.Getenv(env); v != "" {
		if err := fs.Set(name, v); err != nil {
			fmt.Fprintf(os.Stderr, "switchboard: %s: %v; using the default\n", env, err)
		}
	}
	return d
}

// hasDisplay reports whether a GUI can be shown.
func hasDisplay() bool {
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd":
		return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
	}
	return true
}

// openLog logs to stderr and to logs/switchboard.log (owner-only) in the
// data dir. Nothing logged anywhere carries a token.
func openLog(paths daemon.Paths) (*slog.Logger, func()) {
	var w io.Writer = os.Stderr
	f, err := os.OpenFile(filepath.Join(paths.Data, "logs", "switchboard.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err == nil {
		// The file first: MultiWriter stops at the first failed write, and
		// stderr fails once a Windows tray has let its console go.
		w = io.MultiWriter(f, os.Stderr)
	}
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return log, func() {
		if f != nil {
			f.Close()
		}
	}
}
