//go:build unix

package supervisor

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// RunHost runs the agent host with args (those after HostArg) and returns
// its exit code. It is the body of the hidden subcommand: the app's main
// and the TestMain of tests that start a host call it.
//
// StartHost has already detached it from the app (a session of its own, no
// terminal, standard output and error to the hosts' log); here it ignores
// the hangup a closing terminal would send and the interrupt of a Ctrl-C,
// and takes SIGTERM (a logout) as the order to stop its agents and exit.
func RunHost(args []string, binary string) int {
	fs := flag.NewFlagSet(HostArg, flag.ContinueOnError)
	dir := fs.String("dir", "", "Switchboard's runtime `folder`")
	linger := fs.Duration("linger", 0, "how long to wait for a launch with no agent left (default 30s)")
	readyFD := fs.Int("ready-fd", -1, "file descriptor to write the socket's path to once listening, then close")
	backlog := fs.Int("backlog", 0, "output `bytes` a client may fall behind before it is detached (default 32 MiB)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dir == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: switchboard agent-host --dir RUNTIME [--linger DURATION] [--ready-fd N]")
		return 2
	}
	hardenHost()
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	// Agents get their folders in their launch: the host holds none open.
	os.Chdir("/")
	log := slog.New(slog.NewTextHandler(os.Stderr, nil)).With("host", os.Getpid())
	var ready io.WriteCloser
	if *readyFD >= 0 {
		ready = os.NewFile(uintptr(*readyFD), "ready")
	}
	cfg := HostConfig{Dir: *dir, Binary: binary, Linger: *linger, Backlog: *backlog, Log: log, Ready: func(sock string) {
		if ready != nil {
			fmt.Fprintf(ready, "%s %s\n", hostReady, sock)
			ready.Close()
		}
	}}
	start := time.Now()
	if err := ServeHost(ctx, cfg); err != nil {
		log.Error("agent host", "err", err)
		if ready != nil {
			fmt.Fprintf(ready, "error %v\n", err)
			ready.Close()
		}
		return 1
	}
	log.Info("agent host done", "ran", time.Since(start).Round(time.Second))
	return 0
}

// hostReady starts the line a host writes on its ready descriptor.
const hostReady = "ready"
