package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/app/cli"
	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

var (
	tokenRE = regexp.MustCompile(`^sbt_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$`)
	repoRE  = regexp.MustCompile(`^repo_[0-9a-f]{20}$`)
)

// harness runs the CLI against one data dir with an in-memory keyring.
type harness struct {
	t     *testing.T
	paths daemon.Paths
	kr    *keyring.Memory
	env   map[string]string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	// Unix socket paths must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "sb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h := &harness{
		t:     t,
		paths: daemon.Paths{Data: filepath.Join(dir, "data"), Runtime: filepath.Join(dir, "run")},
		kr:    keyring.NewMemory(),
	}
	h.env = map[string]string{
		"SWITCHBOARD_DATA_DIR":    h.paths.Data,
		"SWITCHBOARD_RUNTIME_DIR": h.paths.Runtime,
		// Anything the CLI reads besides these would be a surprise.
		"HOME": filepath.Join(dir, "home-not-used"),
	}
	return h
}

// result is one CLI run.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return "exit " + string(rune('0'+r.code)) + "\nstdout:\n" + r.stdout + "\nstderr:\n" + r.stderr
}

func (h *harness) run(args ...string) result {
	h.t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), cli.Env{
		Stdout:  &out,
		Stderr:  &errb,
		Getenv:  func(k string) string { return h.env[k] },
		Keyring: h.kr,
		Version: "v-cli",
	}, args)
	return result{code, out.String(), errb.String()}
}

// ok runs the CLI and fails the test unless it exits 0.
func (h *harness) ok(args ...string) result {
	h.t.Helper()
	r := h.run(args...)
	if r.code != 0 {
		h.t.Fatalf("switchboard %s: %v", strings.Join(args, " "), r)
	}
	return r
}

// fails runs the CLI and fails the test unless it exits with code.
func (h *harness) fails(code int, args ...string) result {
	h.t.Helper()
	r := h.run(args...)
	if r.code != code {
		h.t.Fatalf("switchboard %s: exit %d, want %d\n%v", strings.Join(args, " "), r.code, code, r)
	}
	return r
}

func (h *harness) jsonOut(v any, args ...string) {
	h.t.Helper()
	r := h.ok(args...)
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		h.t.Fatalf("switchboard %s: stdout is not JSON: %v\n%s", strings.Join(args, " "), err, r.stdout)
	}
}

func (h *harness) start() *daemon.Daemon {
	h.t.Helper()
	d, err := daemon.Start(context.Background(), daemon.Config{Paths: h.paths, Keyring: h.kr, Version: "v-daemon"})
	if err != nil {
		h.t.Fatalf("daemon.Start: %v", err)
	}
	return d
}

func (h *harness) kept() string {
	h.t.Helper()
	// The keyring entry's name is the daemon's business; read it through
	// the offline env, which reads it the same way.
	raw, err := daemon.OfflineEnv{Paths: h.paths, Keyring: h.kr}.ClientToken()
	if err != nil {
		h.t.Fatalf("kept client token: %v", err)
	}
	return raw
}

func line(s string) string { return strings.TrimSuffix(s, "\n") }

type tokenList struct {
	Tokens      []store.Token `json:"tokens"`
	ClientKeyID string        `json:"client_keyid"`
}

func findToken(l tokenList, keyID string) (store.Token, bool) {
	for _, t := range l.Tokens {
		if t.KeyID == keyID {
			return t, true
		}
	}
	return store.Token{}, false
}

func keyIDOf(t *testing.T, raw string) string {
	t.Helper()
	id, _, err := store.ParseToken(raw)
	if err != nil {
		t.Fatalf("token does not parse: %v", err)
	}
	return id
}

// exercise runs every command against the harness's data dir, with a
// Switchboard running (d) or not (d nil), and returns the client token
// after rotating it.
func exercise(t *testing.T, h *harness, d *daemon.Daemon) string {
	running := d != nil

	// Commands that succeed say nothing on stderr.
	for _, args := range [][]string{{"status"}, {"token", "list"}, {"repo", "list"}, {"audit"}} {
		if r := h.ok(args...); r.stderr != "" {
			t.Errorf("%v: stderr %q", args, r.stderr)
		}
	}

	// status
	r := h.ok("status")
	if running {
		if !strings.Contains(r.stdout, ": running") || !strings.Contains(r.stdout, d.Endpoint()) || !strings.Contains(r.stdout, "v-daemon") {
			t.Errorf("status, running:\n%s", r.stdout)
		}
	} else if !strings.Contains(r.stdout, "not running") || !strings.Contains(r.stdout, "v-cli") {
		t.Errorf("status, not running:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, h.paths.Data) {
		t.Errorf("status does not show the data dir:\n%s", r.stdout)
	}
	var st mcpserver.StatusResult
	h.jsonOut(&st, "status", "--json")
	if st.Running != running || st.Principal != "operator" {
		t.Errorf("status --json = %+v; want running %v, operator", st, running)
	}
	if running && st.Endpoint != d.Endpoint() {
		t.Errorf("status --json endpoint %q, want %q", st.Endpoint, d.Endpoint())
	}
	if !running && st.Endpoint != "" {
		t.Errorf("status --json endpoint %q without a daemon", st.Endpoint)
	}

	// endpoint
	if running {
		if r := h.ok("endpoint"); r.stdout != d.Endpoint()+"\n" {
			t.Errorf("endpoint printed %q, want %q", r.stdout, d.Endpoint())
		}
	} else {
		r := h.fails(1, "endpoint")
		if r.stdout != "" || !strings.Contains(r.stderr, "not running") {
			t.Errorf("endpoint without a daemon:\n%v", r)
		}
	}

	// repo add / list
	repoDir := t.TempDir()
	r = h.ok("repo", "add", repoDir)
	repoID := line(r.stdout)
	if !repoRE.MatchString(repoID) {
		t.Fatalf("repo add printed %q, want a repo_ id on its own line", r.stdout)
	}
	r = h.ok("repo", "add", repoDir+string(filepath.Separator))
	if line(r.stdout) != repoID {
		t.Errorf("repo add of the same folder printed %q, want %s", r.stdout, repoID)
	}
	if !strings.Contains(r.stderr, "already registered") {
		t.Errorf("repo add of the same folder: stderr %q", r.stderr)
	}
	named := t.TempDir()
	r = h.ok("repo", "add", named, "--name", "Named One")
	namedID := line(r.stdout)
	if !repoRE.MatchString(namedID) || namedID == repoID {
		t.Errorf("repo add --name printed %q", r.stdout)
	}
	file := filepath.Join(t.TempDir(), "file.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := h.fails(1, "repo", "add", file); !strings.Contains(r.stderr, "not a folder") || r.stdout != "" {
		t.Errorf("repo add of a file:\n%v", r)
	}
	h.fails(1, "repo", "add", filepath.Join(t.TempDir(), "missing"))
	h.fails(2, "repo", "add")
	h.fails(2, "repo", "add", repoDir, named)
	r = h.ok("repo", "list")
	for _, want := range []string{"ID", repoID, namedID, "Named One", repoDir, filepath.Base(repoDir)} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("repo list lacks %q:\n%s", want, r.stdout)
		}
	}
	var repos struct {
		Repositories []store.Repository `json:"repositories"`
	}
	h.jsonOut(&repos, "repo", "list", "--json")
	if len(repos.Repositories) != 2 {
		t.Errorf("repo list --json: %+v", repos)
	}

	// repo set changes what it names and keeps the rest.
	h.ok("repo", "set", repoID, "--base", "develop")
	r = h.ok("repo", "set", repoID, "--isolation", "none")
	if !strings.Contains(r.stdout, "isolation none, base develop") {
		t.Errorf("repo set printed %q", r.stdout)
	}
	r = h.ok("repo", "set", repoID, "--isolation", "default", "--base", "default")
	if !strings.Contains(r.stdout, "isolation default, base the branch checked out in") {
		t.Errorf("repo set back to the defaults printed %q", r.stdout)
	}
	r = h.ok("repo", "set", repoID, "--setup", "npm ci && make gen")
	if !strings.Contains(r.stdout, "setup: npm ci && make gen") {
		t.Errorf("repo set --setup printed %q", r.stdout)
	}
	r = h.ok("repo", "set", repoID, "--setup", "default")
	if !strings.Contains(r.stdout, "setup: the worktree's executable .switchboard/setup") {
		t.Errorf("repo set --setup default printed %q", r.stdout)
	}
	h.fails(1, "repo", "set", repoID, "--setup", "make\nrm -rf ~")
	h.fails(1, "repo", "set", repoID, "--isolation", "docker")
	r = h.ok("repo", "set", repoID, "--landing", "pull-request", "--remote", "upstream")
	if !strings.Contains(r.stdout, "landing pull-request, remote upstream") {
		t.Errorf("repo set --landing --remote printed %q", r.stdout)
	}
	r = h.ok("repo", "set", repoID, "--landing", "default", "--remote", "default")
	if !strings.Contains(r.stdout, "landing default (merge), remote default (origin)") {
		t.Errorf("repo set back to merge printed %q", r.stdout)
	}
	if r := h.fails(1, "repo", "set", repoID, "--landing", "octopus"); !strings.Contains(r.stderr, "invalid_argument") {
		t.Errorf("repo set --landing octopus: %q", r.stderr)
	}
	h.fails(1, "repo", "set", "repo_nope", "--base", "main")
	h.fails(2, "repo", "set")

	// diff names a packet or a session.
	h.fails(2, "diff", "repo_x")
	h.fails(2, "diff")
	if r := h.fails(1, "diff", "pkt_nope"); !strings.Contains(r.stderr, "not_found") {
		t.Errorf("diff of no packet: %q", r.stderr)
	}
	h.fails(2, "land")
	if r := h.fails(1, "land", "pkt_nope"); !strings.Contains(r.stderr, "not_found") {
		t.Errorf("land of no packet: %q", r.stderr)
	}
	if r := h.ok("workspace", "list"); !strings.Contains(r.stdout, "SESSION") {
		t.Errorf("workspace list: %q", r.stdout)
	}
	h.fails(1, "workspace", "discard", "ses_nope")
	h.fails(2, "workspace", "discard")

	// token create
	r = h.ok("token", "create", "--label", "x", "--grant", "status:read@"+repoID, "--expires", "1h")
	secret := line(r.stdout)
	if !tokenRE.MatchString(secret) {
		t.Fatalf("token create printed %q, want one token line", r.stdout)
	}
	keyID := keyIDOf(t, secret)
	if !strings.Contains(r.stderr, keyID) {
		t.Errorf("token create stderr %q does not name the key id", r.stderr)
	}
	var toks tokenList
	h.jsonOut(&toks, "token", "list", "--json")
	created, ok := findToken(toks, keyID)
	if !ok {
		t.Fatalf("token list --json lacks %s", keyID)
	}
	if created.Label != "x" || created.Kind != store.KindOperator || len(created.Grants) != 1 ||
		created.Grants[0].Capability != store.CapStatusRead || !slices.Equal(created.Grants[0].Repositories, []string{repoID}) {
		t.Errorf("created token %+v", created)
	}
	if created.ExpiresAt == nil || time.Until(*created.ExpiresAt) < 59*time.Minute || time.Until(*created.ExpiresAt) > 61*time.Minute {
		t.Errorf("created token expires %v, want in an hour", created.ExpiresAt)
	}
	clientBefore := h.kept()
	if toks.ClientKeyID != keyIDOf(t, clientBefore) {
		t.Errorf("client_keyid %q, want the client token's %q", toks.ClientKeyID, keyIDOf(t, clientBefore))
	}
	// With no --grant: every agent capability on every repository.
	r = h.ok("token", "create", "--label", "all agent")
	allID := keyIDOf(t, line(r.stdout))
	r = h.ok("token", "create", "--json", "--label", "j", "--grant", "work:read", "--grant", "work:claim@"+repoID+","+namedID)
	var cj mcpserver.TokenCreated
	if err := json.Unmarshal([]byte(r.stdout), &cj); err != nil || !tokenRE.MatchString(cj.Secret) || len(cj.Token.Grants) != 2 {
		t.Errorf("token create --json: %v\n%s", err, r.stdout)
	}
	h.fails(2, "token", "create", "--grant", "root:everything")
	h.fails(2, "token", "create", "--expires", "soon")
	h.fails(1, "token", "create", "--kind", "client")

	// token list never shows a secret.
	r = h.ok("token", "list")
	for _, want := range []string{"KEYID", keyID, allID, "x", "status:read@" + repoID, "agent (all repos)", "expires"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("token list lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, raw := range []string{secret, clientBefore, cj.Secret} {
		_, sec, _ := store.ParseToken(raw)
		if strings.Contains(r.stdout, sec) || strings.Contains(r.stderr, sec) {
			t.Errorf("token list shows a secret:\n%s", r.stdout)
		}
	}
	r = h.ok("token", "list", "--all", "--json")
	_, sec, _ := store.ParseToken(clientBefore)
	if strings.Contains(r.stdout, sec) || strings.Contains(r.stdout, `"hash"`) || strings.Contains(r.stdout, `"salt"`) {
		t.Errorf("token list --json shows secret material:\n%s", r.stdout)
	}

	// token revoke
	r = h.ok("token", "revoke", keyID)
	if !strings.Contains(r.stdout, keyID) {
		t.Errorf("token revoke printed %q", r.stdout)
	}
	if r := h.ok("token", "list"); strings.Contains(r.stdout, keyID) {
		t.Errorf("token list still shows the revoked token:\n%s", r.stdout)
	}
	if r := h.ok("token", "list", "--all"); !strings.Contains(r.stdout, keyID) || !strings.Contains(r.stdout, "revoked") {
		t.Errorf("token list --all does not show the revoked token:\n%s", r.stdout)
	}
	h.fails(1, "token", "revoke", "0123456789abcdef")
	if r := h.fails(1, "token", "revoke", keyIDOf(t, clientBefore)); !strings.Contains(r.stderr, "rotate") {
		t.Errorf("revoking the client token: %v", r)
	}
	h.fails(2, "token", "revoke")
	h.fails(2, "token", "revoke", "a", "b")

	// token client
	r = h.ok("token", "client")
	if line(r.stdout) != clientBefore {
		t.Error("token client does not print the client token")
	}
	if running {
		if raw, _ := d.ClientToken(); raw != clientBefore {
			t.Error("the daemon's client token is not the kept one")
		}
	}

	// token rotate: the client token by default.
	r = h.ok("token", "rotate")
	rotated := line(r.stdout)
	if !tokenRE.MatchString(rotated) || rotated == clientBefore {
		t.Fatalf("token rotate printed %q", r.stdout)
	}
	if got := h.kept(); got != rotated {
		t.Error("the keyring does not hold the rotated client token")
	}
	if running {
		if raw, _ := d.ClientToken(); raw != rotated {
			t.Error("the daemon's ClientToken() is not the rotated token")
		}
	}
	if r := h.ok("token", "client"); line(r.stdout) != rotated {
		t.Error("token client after rotate does not print the new token")
	}
	h.jsonOut(&toks, "token", "list", "--all", "--json")
	if toks.ClientKeyID != keyIDOf(t, rotated) {
		t.Errorf("client_keyid after rotate = %q", toks.ClientKeyID)
	}
	if old, _ := findToken(toks, keyIDOf(t, clientBefore)); old.RevokedAt == nil {
		t.Error("the old client token is not revoked")
	}
	// token rotate KEYID: another token, the client token untouched.
	r = h.ok("token", "rotate", allID)
	if !tokenRE.MatchString(line(r.stdout)) {
		t.Errorf("token rotate KEYID printed %q", r.stdout)
	}
	if got := h.kept(); got != rotated {
		t.Error("rotating another token replaced the client token")
	}
	h.fails(1, "token", "rotate", allID) // revoked now
	// Two key ids are a mistake, not a rotation of the client token.
	h.fails(2, "token", "rotate", allID, allID)
	if got := h.kept(); got != rotated {
		t.Error("token rotate with two key ids replaced the client token")
	}

	// audit
	r = h.ok("audit", "--limit", "1000")
	for _, want := range []string{"TRANSPORT", "rpc", "token.rotate", "repository.register"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("audit lacks %q:\n%s", want, r.stdout)
		}
	}
	var audit struct {
		Records []store.AuditRecord `json:"records"`
	}
	h.jsonOut(&audit, "audit", "--json", "--limit", "1000")
	seen := map[string]bool{}
	for _, rec := range audit.Records {
		seen[rec.Method] = true
		// The daemon's own writes while it started are not the CLI's.
		if rec.Transport != string(mcpserver.TransportRPC) && rec.Transport != string(mcpserver.TransportStartup) {
			t.Errorf("audit record %s (%s) has transport %q, want rpc", rec.ID, rec.Method, rec.Transport)
		}
	}
	for _, m := range []string{"status", "repository.register", "repository.list", "token.create", "token.list", "token.revoke", "token.rotate", "token.client"} {
		if !seen[m] {
			t.Errorf("no audit record of %s", m)
		}
	}
	h.jsonOut(&audit, "audit", "--json", "--method", "token.revoke", "--outcome", "invalid_argument")
	if len(audit.Records) != 1 {
		t.Errorf("audit --method token.revoke --outcome invalid_argument: %d records, want 1", len(audit.Records))
	}
	r = h.ok("audit", "--verify")
	if !strings.HasPrefix(r.stdout, "audit chain OK") {
		t.Errorf("audit --verify printed %q", r.stdout)
	}
	var verify struct {
		OK bool `json:"ok"`
	}
	h.jsonOut(&verify, "audit", "--verify", "--json")
	if !verify.OK {
		t.Error("audit --verify --json: ok false")
	}
	h.fails(2, "audit", "--limit", "many")
	return rotated
}

func TestCLIAgainstRunningDaemon(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	closed := false
	t.Cleanup(func() {
		if !closed {
			d.Close(context.Background())
		}
	})
	rotated := exercise(t, h, d)

	// The rotated token works on the daemon's database, the old one not.
	err := d.Registry().DB().View(context.Background(), func(tx *store.Tx) error {
		_, err := tx.Authenticate(rotated)
		return err
	})
	if err != nil {
		t.Errorf("rotated client token does not authenticate: %v", err)
	}
	// Everything the CLI did over the socket is audited as rpc, in the
	// running daemon's own log, beside the daemon's startup writes.
	err = d.Registry().DB().View(context.Background(), func(tx *store.Tx) error {
		recs, err := tx.QueryAudit(store.AuditFilter{Limit: 1000})
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			t.Error("no audit records")
		}
		for _, r := range recs {
			if r.Transport != string(mcpserver.TransportRPC) && r.Transport != string(mcpserver.TransportStartup) {
				t.Errorf("audit %s %s: transport %q, want rpc", r.ID, r.Method, r.Transport)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	closed = true
	if err := d.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	// The rotated token survives the restart.
	d = h.start()
	defer d.Close(context.Background())
	if raw, _ := d.ClientToken(); raw != rotated {
		t.Error("the rotated client token did not survive a restart")
	}
}

func TestCLIWithoutDaemon(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	ep := d.Endpoint()
	if err := d.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	rotated := exercise(t, h, nil)

	// A daemon started afterwards finds what the CLI did.
	d = h.start()
	defer d.Close(context.Background())
	if raw, _ := d.ClientToken(); raw != rotated {
		t.Error("the client token rotated offline did not survive into the next start")
	}
	if d.Endpoint() != ep {
		t.Errorf("endpoint %q, want the remembered %q", d.Endpoint(), ep)
	}
	var n int
	d.Registry().DB().View(context.Background(), func(tx *store.Tx) error {
		repos, err := tx.Repositories()
		n = len(repos)
		return err
	})
	if n != 2 {
		t.Errorf("%d repositories after the offline repo add, want 2", n)
	}
	// And the CLI reaches it over the socket now.
	if r := h.ok("endpoint"); line(r.stdout) != d.Endpoint() {
		t.Errorf("endpoint printed %q", r.stdout)
	}
	if r := h.ok("audit", "--verify"); !strings.HasPrefix(r.stdout, "audit chain OK") {
		t.Errorf("audit --verify: %q", r.stdout)
	}
}

func TestCLIListenerOff(t *testing.T) {
	h := newHarness(t)
	d, err := daemon.Start(context.Background(), daemon.Config{Paths: h.paths, Keyring: h.kr, Listen: mcpserver.ListenAddr{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(context.Background())
	if r := h.fails(1, "endpoint"); !strings.Contains(r.stderr, "off") || r.stdout != "" {
		t.Errorf("endpoint with the listener off:\n%v", r)
	}
	if r := h.ok("status"); !strings.Contains(r.stdout, ": running") {
		t.Errorf("status:\n%s", r.stdout)
	}
}

func TestCLINoDatabase(t *testing.T) {
	h := newHarness(t)
	for _, args := range [][]string{{"status"}, {"endpoint"}, {"token", "list"}, {"repo", "list"}, {"audit"}} {
		r := h.fails(1, args...)
		if !strings.Contains(r.stderr, "no Switchboard database") {
			t.Errorf("%v without a database: %v", args, r)
		}
	}
	if _, err := os.Stat(h.paths.DB()); !os.IsNotExist(err) {
		t.Error("the CLI created a database")
	}
}

func TestCLINoClientTokenKept(t *testing.T) {
	// The daemon could keep its token nowhere; offline, token client says
	// so instead of printing nothing.
	h := newHarness(t)
	d, err := daemon.Start(context.Background(), daemon.Config{Paths: h.paths, Keyring: keyring.NewMemory(), EnvToken: mustToken(t)})
	if err != nil {
		t.Fatal(err)
	}
	d.Close(context.Background())
	r := h.fails(1, "token", "client")
	if r.stdout != "" || !strings.Contains(r.stderr, "not_found") {
		t.Errorf("token client with nothing kept:\n%v", r)
	}
}

func mustToken(t *testing.T) string {
	raw, _, _ := store.NewTokenSecret()
	return raw
}

func TestCLIUsage(t *testing.T) {
	h := newHarness(t)
	for _, args := range [][]string{nil, {"help"}, {"-h"}, {"--help"}} {
		r := h.ok(args...)
		if !strings.Contains(r.stdout, "Usage:") || !strings.Contains(r.stdout, "status") {
			t.Errorf("%v: usage on stdout:\n%v", args, r)
		}
	}
	r := h.fails(2, "frobnicate")
	if !strings.Contains(r.stderr, `unknown command "frobnicate"`) || !strings.Contains(r.stderr, "Usage:") || r.stdout != "" {
		t.Errorf("unknown command:\n%v", r)
	}
	// Every command and subcommand explains itself and exits 0, without a
	// database.
	for _, args := range [][]string{
		{"status", "--help"},
		{"status", "-h"},
		{"endpoint", "--help"},
		{"token", "--help"},
		{"token", "help"},
		{"token", "create", "--help"},
		{"token", "list", "--help"},
		{"token", "revoke", "--help"},
		{"token", "rotate", "--help"},
		{"token", "client", "--help"},
		{"repo", "--help"},
		{"repo", "add", "--help"},
		{"repo", "list", "--help"},
		{"audit", "--help"},
	} {
		r := h.run(args...)
		if r.code != 0 || !strings.Contains(r.stderr, "Usage") {
			t.Errorf("%v: %v", args, r)
		}
	}
	if _, err := os.Stat(h.paths.DB()); !os.IsNotExist(err) {
		t.Error("--help created a database")
	}
	// Misuse is exit 2.
	for _, args := range [][]string{
		{"status", "--bogus"},
		{"token"},
		{"token", "frob"},
		{"repo"},
		{"repo", "frob"},
		{"audit", "--bogus"},
	} {
		if r := h.run(args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%v", args, r.code, r)
		}
	}
}

func TestIsCommand(t *testing.T) {
	for _, name := range []string{"status", "endpoint", "token", "repo", "audit", "help"} {
		if !cli.IsCommand(name) {
			t.Errorf("IsCommand(%q) = false", name)
		}
	}
	for _, name := range []string{"", "--headless", "-h", "tokens", "mcp-http-addr"} {
		if cli.IsCommand(name) {
			t.Errorf("IsCommand(%q) = true", name)
		}
	}
}

func TestCLITokenCreateRefusesSilentMistakes(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	for _, args := range [][]string{
		// A negative or sub-second lifetime must not become "never expires".
		{"token", "create", "--expires", "-1h"},
		{"token", "create", "--expires", "-1s"},
		// An empty repository id (an unset shell variable) must not become a
		// grant that silently matches nothing.
		{"token", "create", "--grant", "status:read@"},
		{"token", "create", "--grant", "status:read@repo_a,,repo_b"},
	} {
		if r := h.run(args...); r.code != 2 || r.stdout != "" {
			t.Errorf("%v: %v; want exit 2 and no token", args, r)
		}
	}
	var toks tokenList
	h.jsonOut(&toks, "token", "list", "--json")
	if len(toks.Tokens) != 1 {
		t.Errorf("%d live tokens, want only the client token", len(toks.Tokens))
	}

	// A sub-second lifetime is rounded up to a second, not dropped.
	r := h.ok("token", "create", "--expires", "500ms", "--json")
	var cj mcpserver.TokenCreated
	if err := json.Unmarshal([]byte(r.stdout), &cj); err != nil {
		t.Fatal(err)
	}
	if cj.Token.ExpiresAt == nil || time.Until(*cj.Token.ExpiresAt) > 2*time.Second {
		t.Errorf("--expires 500ms: expires at %v, want within a second or two", cj.Token.ExpiresAt)
	}
}

// deadKeyring never answers, like an OS keyring behind its timeout.
type deadKeyring struct{}

func (deadKeyring) Get(context.Context, string, string) (string, error) {
	return "", keyring.ErrUnavailable
}
func (deadKeyring) Set(context.Context, string, string, string) error { return keyring.ErrUnavailable }
func (deadKeyring) Delete(context.Context, string, string) error      { return keyring.ErrUnavailable }

func TestCLIRotateOfflineWarnsWhenKeptNowhere(t *testing.T) {
	// The last run could keep its client token nowhere (it was minted for
	// that run only). Rotating it offline prints a token the next start
	// revokes: the person must be told.
	h := newHarness(t)
	d, err := daemon.Start(context.Background(), daemon.Config{Paths: h.paths, Keyring: deadKeyring{}, Listen: mcpserver.ListenAddr{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	d.Close(context.Background())
	r := h.ok("token", "rotate")
	if !tokenRE.MatchString(line(r.stdout)) {
		t.Errorf("token rotate printed %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "kept nowhere") {
		t.Errorf("token rotate did not warn that the new token is kept nowhere:\n%s", r.stderr)
	}
	_, sec, _ := store.ParseToken(line(r.stdout))
	if strings.Contains(r.stderr, sec) {
		t.Error("the warning contains the secret")
	}
}
