package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// `switchboard mcp --stdio` is an MCP server on stdin and stdout for agents
// that only start commands. It keeps no state of its own: every line is
// POSTed to the running Switchboard's endpoint, so the tools, the
// permissions and the audit are exactly those of MCP over HTTP.

const (
	// bridgeMaxInFlight bounds the requests forwarded at once; reading
	// stdin waits beyond it. A long poll holds one, never the whole bridge.
	bridgeMaxInFlight = 16
	// bridgeMaxAnswer bounds one answer read from the endpoint.
	bridgeMaxAnswer = 64 << 20
	// codeNotRunning is the JSON-RPC error code of a request the bridge
	// could not deliver (the range -32000..-32099 is the implementation's).
	codeNotRunning = -32000
	// envToken is the variable holding the token to send.
	envToken = "SWITCHBOARD_MCP_TOKEN"
)

func runMCP(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("mcp", "mcp --stdio [--token-file PATH]")
	stdio := fs.Bool("stdio", false, "bridge newline-delimited JSON-RPC on stdin and stdout to the running Switchboard")
	tokenFile := fs.String("token-file", "", "send the token held in `PATH`, a file only you may read (default: $"+envToken+", else the client token in the keyring)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if !*stdio || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if err := c.resolvePaths(); err != nil {
		return err
	}
	kr := c.env.Keyring
	if kr == nil {
		kr = keyring.NewSystem(daemon.KeyringTimeout)
	}
	b, err := newBridge(bridgeConfig{
		Paths:     c.paths,
		Getenv:    c.env.Getenv,
		TokenFile: *tokenFile,
		Keyring:   kr,
		Log:       slog.New(slog.NewTextHandler(c.env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	if err != nil {
		return err
	}
	// cli.Env has no stdin: the bridge is its only reader.
	return b.run(ctx, os.Stdin, c.env.Stdout)
}

// bridgeConfig configures newBridge.
type bridgeConfig struct {
	Paths  daemon.Paths
	Getenv func(string) string
	// TokenFile, when set, holds the token (unless $SWITCHBOARD_MCP_TOKEN is
	// set, which comes first).
	TokenFile string
	// Keyring keeps the client token, the token used when neither of the
	// above is given.
	Keyring keyring.Keyring
	// Log receives the bridge's messages; stdout is the protocol's alone.
	Log *slog.Logger
}

// bridge forwards JSON-RPC lines to the endpoint of the running instance.
type bridge struct {
	paths  daemon.Paths
	client *http.Client
	log    *slog.Logger
	// fixedToken is the token from the environment or a file; empty means
	// the kept client token, read from the keyring when needed.
	fixedToken string
	kept       daemon.OfflineEnv

	mu sync.Mutex
	// keptToken caches the kept client token. Guarded by mu.
	keptToken string
	// version is the protocol version initialize negotiated, sent as
	// MCP-Protocol-Version like an HTTP client does. Guarded by mu.
	version string
	// calls cancels forwarded requests by JSON-RPC id, for
	// notifications/cancelled. Guarded by mu.
	calls map[string]context.CancelCauseFunc

	outMu sync.Mutex
	// out is stdout: one whole line per write. Guarded by outMu.
	out io.Writer
}

// errCancelled ends a request the client cancelled; its answer is dropped.
var errCancelled = errors.New("cancelled by the client")

// newBridge checks the token settings. A token given but unusable is an
// error now; the keyring is read at the first request, so the bridge may be
// started before Switchboard is.
func newBridge(cfg bridgeConfig) (*bridge, error) {
	b := &bridge{
		paths: cfg.Paths,
		log:   cfg.Log,
		kept:  daemon.OfflineEnv{Paths: cfg.Paths, Keyring: cfg.Keyring},
		calls: map[string]context.CancelCauseFunc{},
		client: &http.Client{
			Transport: &http.Transport{
				// Loopback only, and never through a proxy: the request
				// carries the token.
				Proxy:               nil,
				DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
				MaxIdleConnsPerHost: bridgeMaxInFlight,
				IdleConnTimeout:     time.Minute,
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	env := strings.TrimSpace(cfg.Getenv(envToken))
	source := "the client token kept in the keyring"
	switch {
	case env != "":
		if _, _, err := store.ParseToken(env); err != nil {
			return nil, fmt.Errorf("$%s is not a Switchboard token (%v)", envToken, err)
		}
		if cfg.TokenFile != "" {
			b.log.Warn("$" + envToken + " is set; --token-file is ignored")
		}
		b.fixedToken, source = env, "$"+envToken
	case cfg.TokenFile != "":
		raw, err := readTokenFile(cfg.TokenFile)
		if err != nil {
			return nil, err
		}
		b.fixedToken, source = raw, cfg.TokenFile
	}
	b.log.Info("bridging stdio to the running Switchboard", "endpoint_file", cfg.Paths.Endpoint(), "token", source)
	return b, nil
}

// readTokenFile reads a token from a file that only its owner may read: a
// token others can read is a token others can use.
func readTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("token file %s is not a regular file", path)
	}
	// Windows has no mode bits to check; its ACLs are the user profile's.
	if perm := fi.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return "", fmt.Errorf("token file %s has mode %04o: others may read it; refusing it (chmod 600 %s)", path, perm, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	raw := strings.TrimSpace(string(b))
	if _, _, err := store.ParseToken(raw); err != nil {
		return "", fmt.Errorf("token file %s does not hold a Switchboard token (%v)", path, err)
	}
	return raw, nil
}

// token returns the token to send.
func (b *bridge) token() (string, error) {
	if b.fixedToken != "" {
		return b.fixedToken, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.keptToken != "" {
		return b.keptToken, nil
	}
	raw, err := b.kept.ClientToken()
	if err != nil {
		return "", fmt.Errorf("no token to send: set $%s or --token-file, or start Switchboard so that it keeps a client token (%v)", envToken, err)
	}
	b.keptToken = raw
	return raw, nil
}

// refreshToken forgets a kept client token the endpoint refused (rotated
// since it was read) and reports whether the keyring now holds another.
func (b *bridge) refreshToken(refused string) (string, bool) {
	if b.fixedToken != "" {
		return "", false
	}
	b.mu.Lock()
	if b.keptToken == refused {
		b.keptToken = ""
	}
	b.mu.Unlock()
	raw, err := b.token()
	return raw, err == nil && raw != refused
}

// endpoint reads the URL the running instance wrote. Only a loopback http
// URL is accepted: the token goes there.
func (b *bridge) endpoint() (string, error) {
	ep := daemon.ReadEndpoint(b.paths)
	if ep == "" {
		return "", fmt.Errorf("no endpoint file in %s", b.paths.Runtime)
	}
	u, err := url.Parse(ep)
	if err != nil || u.Scheme != "http" || u.User != nil {
		return "", fmt.Errorf("the endpoint file holds %q, not an http URL", ep)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
		return "", fmt.Errorf("the endpoint file names %q, which is not this machine's loopback: not sending the token there", u.Host)
	}
	return ep, nil
}
