// Package pgtest starts a real PostgreSQL server for a test: a cluster made
// with initdb in a temporary folder, listening on a Unix socket in a folder
// of its own and on no TCP port, stopped (and its files removed) when the
// test ends. The server is Debian's (the postgresql package; make test
// installs it). PostgreSQL refuses to run as root, so under root the
// server runs as the unprivileged user nobody, in folders given to it.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// T is what the server needs of a test: testing.TB, or Shared's stand-in
// for a whole test binary.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// User is the cluster's superuser, which the socket trusts: only the
// socket's folder (owner-only) guards it, which is enough for a test.
const User = "switchboard"

// startTimeout bounds initdb, and each start and stop of the server.
const startTimeout = 2 * time.Minute

// Server is one running PostgreSQL cluster.
type Server struct {
	// SocketDir is the folder of the server's Unix socket.
	SocketDir string
	data, log string
	bin       string
	cred      *credential // nil: run as ourselves
	tb        T
	schemas   atomic.Int64 // the schemas Schema made
}

// Start makes a cluster and starts it; the test's cleanup stops it.
func Start(tb T) *Server {
	tb.Helper()
	bin, err := binDir()
	if err != nil {
		tb.Fatalf("pgtest: %v (make deps-test installs Debian's postgresql package)", err)
	}
	s := &Server{bin: bin, tb: tb}
	// Not t.TempDir: its parents are root's and owner-only, and the
	// server may run as another user. A short path, too: a Unix socket's
	// path must fit in 108 bytes.
	root, err := os.MkdirTemp("", "sbpg")
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(func() { os.RemoveAll(root) })
	s.data, s.SocketDir, s.log = filepath.Join(root, "data"), filepath.Join(root, "s"), filepath.Join(root, "server.log")
	for _, d := range []string{s.data, s.SocketDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			tb.Fatalf("pgtest: %v", err)
		}
	}
	if os.Geteuid() == 0 {
		if s.cred, err = nobody(); err != nil {
			tb.Fatalf("pgtest: %v", err)
		}
		for _, p := range []string{root, s.data, s.SocketDir} {
			if err := s.cred.chown(p); err != nil {
				tb.Fatalf("pgtest: %v", err)
			}
		}
	}
	// --no-sync: the cluster is thrown away with the test; the server
	// itself runs with fsync on, as in use.
	s.run(tb, "initdb", "-D", s.data, "-U", User, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	s.Start()
	tb.Cleanup(func() { s.stop(false) })
	return s
}

// URL is the connection string of database name (postgres: the one initdb
// made) over the socket.
func (s *Server) URL(name string) string {
	return fmt.Sprintf("postgres://%s@/%s?host=%s&sslmode=disable", User, url.PathEscape(name), url.QueryEscape(s.SocketDir))
}

// CreateDatabase makes a new empty database and returns its URL: tests
// that share a server each take one.
func (s *Server) CreateDatabase(tb T, name string) string {
	tb.Helper()
	s.run(tb, "createdb", "-h", s.SocketDir, "-U", User, name)
	return s.URL(name)
}

// Start starts the stopped server again, on the same socket, and waits
// until it accepts connections.
func (s *Server) Start() {
	s.tb.Helper()
	s.run(s.tb, "pg_ctl", "start", "-w", "-t", strconv.Itoa(int(startTimeout.Seconds())), "-D", s.data, "-l", s.log,
		"-o", "-k "+s.SocketDir+" -c listen_addresses='' -c unix_socket_permissions=0700")
}

// Stop stops the server, cutting its connections (fast shutdown): the
// database unreachable, as when its machine goes away.
func (s *Server) Stop() {
	s.tb.Helper()
	s.stop(true)
}

func (s *Server) stop(must bool) {
	if _, err := os.Stat(filepath.Join(s.data, "postmaster.pid")); errors.Is(err, os.ErrNotExist) {
		return // not running
	}
	cmd := s.command(context.Background(), "pg_ctl", "stop", "-w", "-m", "fast", "-D", s.data)
	if out, err := cmd.CombinedOutput(); err != nil && must {
		s.tb.Fatalf("pgtest: pg_ctl stop: %v\n%s", err, out)
	}
}

// Log returns what the server has written to its log so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

func (s *Server) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, name), args...)
	// The server's own environment: no PG* variable of ours leaks in.
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	s.cred.apply(cmd)
	cmd.Dir = filepath.Dir(s.data)
	return cmd
}

func (s *Server) run(tb T, name string, args ...string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	var out bytes.Buffer
	cmd := s.command(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tb.Fatalf("pgtest: %s: %v\n%s\n%s", name, err, out.String(), s.Log())
	}
}

// binDir finds Debian's PostgreSQL programs: the newest version under
// /usr/lib/postgresql, or pg_ctl on PATH.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if p, err = filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(p), nil
		}
	}
	return "", errors.New("no PostgreSQL server found (pg_ctl in /usr/lib/postgresql/*/bin or on PATH)")
}

// version is the major version in a /usr/lib/postgresql/N/bin path.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// Shared starts a server for a whole test binary, from TestMain, where
// there is no test to stop it: stop does, and removes its files.
func Shared() (s *Server, stop func(), err error) {
	m := &mainT{}
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		f, ok := r.(mainFatal)
		if !ok {
			panic(r)
		}
		m.cleanup()
		s, stop, err = nil, nil, errors.New(string(f))
	}()
	s = Start(m)
	return s, m.cleanup, nil
}

// mainT is Shared's T: a failure panics (Shared recovers it), cleanups run
// when the binary's tests are done.
type mainT struct{ cleanups []func() }

type mainFatal string

func (m *mainT) Helper()                           {}
func (m *mainT) Fatalf(format string, args ...any) { panic(mainFatal(fmt.Sprintf(format, args...))) }
func (m *mainT) Cleanup(f func())                  { m.cleanups = append(m.cleanups, f) }

func (m *mainT) cleanup() {
	for i := len(m.cleanups) - 1; i >= 0; i-- {
		m.cleanups[i]()
	}
	m.cleanups = nil
}

// SuiteEnv is the variable that asks a package's tests of the store to run
// on PostgreSQL: make test runs the store's and the registry's packages
// once on bbolt and once with it set to "postgres".
const SuiteEnv = "SWITCHBOARD_STORE_SUITE"

// Main runs a package's tests from its TestMain: on a server started for
// them all, which *srv is set to, when SuiteEnv asks for PostgreSQL, and as
// they are otherwise (*srv stays nil). It returns the exit code.
func Main(m *testing.M, srv **Server) int {
	if os.Getenv(SuiteEnv) != "postgres" {
		return m.Run()
	}
	s, stop, err := Shared()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	*srv = s
	defer stop()
	return m.Run()
}

// Schema makes a new, empty schema in the server's postgres database and
// returns the URL of a connection that works in it: a fresh database for
// one test, in milliseconds.
func (s *Server) Schema(tb T) string {
	tb.Helper()
	name := fmt.Sprintf("t%d", s.schemas.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	c, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		tb.Fatalf("pgtest: connect: %v", err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return s.URL("postgres") + "&search_path=" + name
}
