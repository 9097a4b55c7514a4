package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// bridgeEnv is one data dir, its keyring, and the environment the bridge
// sees.
type bridgeEnv struct {
	t     *testing.T
	paths daemon.Paths
	kr    *keyring.Memory
	env   map[string]string
	logs  *lockedBuffer
}

func newBridgeEnv(t *testing.T) *bridgeEnv {
	t.Helper()
	// Unix socket paths must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "sb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return &bridgeEnv{
		t:     t,
		paths: daemon.Paths{Data: filepath.Join(dir, "data"), Runtime: filepath.Join(dir, "run")},
		kr:    keyring.NewMemory(),
		env:   map[string]string{},
		logs:  &lockedBuffer{},
	}
}

// lockedBuffer is the bridge's stderr.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startDaemon starts Switchboard on e's folders and returns it with its
// client token.
func (e *bridgeEnv) startDaemon() (*daemon.Daemon, string) {
	e.t.Helper()
	d, err := daemon.Start(context.Background(), daemon.Config{Paths: e.paths, Keyring: e.kr, Version: "v-bridge"})
	if err != nil {
		e.t.Fatalf("daemon.Start: %v", err)
	}
	e.t.Cleanup(func() { d.Close(context.Background()) })
	raw, err := d.ClientToken()
	if err != nil || raw == "" {
		e.t.Fatalf("client token: %q, %v", raw, err)
	}
	return d, raw
}

func (e *bridgeEnv) config(tokenFile string) bridgeConfig {
	return bridgeConfig{
		Paths:     e.paths,
		Getenv:    func(k string) string { return e.env[k] },
		TokenFile: tokenFile,
		Keyring:   e.kr,
		Log:       slog.New(slog.NewTextHandler(e.logs, nil)),
	}
}

// pipes is a running bridge seen from its client: stdin to write, stdout
// to read, and run's result.
type pipes struct {
	t     *testing.T
	stdin *io.PipeWriter
	out   *io.PipeReader
	lines *bufio.Reader
	done  chan error
}

// run starts the bridge on pipes. Its stdout closes when run returns, so
// a test reads all it wrote and then EOF.
func (e *bridgeEnv) run(tokenFile string) *pipes {
	e.t.Helper()
	b, err := newBridge(e.config(tokenFile))
	if err != nil {
		e.t.Fatalf("newBridge: %v", err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipes{t: e.t, stdin: inW, out: outR, lines: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		err := b.run(ctx, inR, outW)
		outW.Close()
		p.done <- err
	}()
	e.t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
	})
	return p
}

func (p *pipes) send(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.stdin, l+"\n"); err != nil {
			p.t.Fatalf("writing stdin: %v", err)
		}
	}
}

// reply is one line of stdout.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code string `json:"code"`
		} `json:"data"`
	} `json:"error"`
	raw string
}

// read reads one line of stdout, which must be one JSON-RPC message.
func (p *pipes) read() reply {
	p.t.Helper()
	line, err := p.lines.ReadString('\n')
	if err != nil {
		p.t.Fatalf("reading stdout: %v (partial %q)", err, line)
	}
	var r reply
	if err := json.Unmarshal([]byte(line), &r); err != nil || strings.Count(line, "\n") != 1 {
		p.t.Fatalf("stdout line is not one JSON-RPC message: %v: %q", err, line)
	}
	r.raw = line
	return r
}

// finish closes stdin, checks that run returns nil, and returns whatever
// stdout still held.
func (p *pipes) finish() string {
	p.t.Helper()
	p.stdin.Close()
	rest, _ := io.ReadAll(p.lines)
	if err := <-p.done; err != nil {
		p.t.Errorf("run: %v", err)
	}
	return string(rest)
}

// connect runs a go-sdk client over the bridge's pipes.
func (p *pipes) connect(version string) *mcp.ClientSession {
	p.t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "bridge-test", Version: "0"}, nil)
	cs, err := client.Connect(p.t.Context(), &mcp.IOTransport{Reader: p.out, Writer: p.stdin}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		p.t.Fatalf("connect: %v", err)
	}
	return cs
}

// auditRecord finds the audit record id in d's database.
func auditRecord(t *testing.T, d *daemon.Daemon, id string) store.AuditRecord {
	t.Helper()
	var recs []store.AuditRecord
	if err := d.Registry().DB().View(context.Background(), func(tx *store.Tx) error {
		var err error
		recs, err = tx.QueryAudit(store.AuditFilter{Limit: 1000})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no audit record %q", id)
	return store.AuditRecord{}
}

// structuredOf returns a tool result's structuredContent and its audit
// record.
func structuredOf(t *testing.T, d *daemon.Daemon, res *mcp.CallToolResult) (map[string]any, store.AuditRecord) {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	var sc map[string]any
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatalf("structuredContent %s", b)
	}
	id, _ := sc["audit_id"].(string)
	return sc, auditRecord(t, d, id)
}

// A go-sdk client on stdio, through the bridge, to a running Switchboard:
// the same tools and denials as over HTTP, audited as mcp-stdio.
func TestBridgeGoSDKClient(t *testing.T) {
	e := newBridgeEnv(t)
	d, raw := e.startDaemon()
	for _, version := range []string{"", "2025-11-25", "2025-06-18", "2024-11-05"} {
		t.Run("version "+version, func(t *testing.T) {
			e.t = t
			p := e.run("")
			cs := p.connect(version)
			init := cs.InitializeResult()
			// Left to itself the client discovers 2026-07-28, which over
			// HTTP needs headers only the bridge can set from the message.
			want := version
			if want == "" {
				want = "2026-07-28"
			}
			if init.ProtocolVersion != want || init.Instructions != mcpserver.Instructions || init.ServerInfo.Version != "v-bridge" {
				t.Errorf("initialize: version %q, server %+v", init.ProtocolVersion, init.ServerInfo)
			}

			list, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range list.Tools {
				names = append(names, tl.Name)
			}
			if !slices.Contains(names, "status") || slices.Contains(names, "token_create") {
				t.Errorf("tools/list: %v", names)
			}

			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "status"})
			if err != nil {
				t.Fatal(err)
			}
			sc, rec := structuredOf(t, d, res)
			if res.IsError || sc["ok"] != true || rec.Transport != string(mcpserver.TransportMCPStdio) || rec.Outcome != "ok" {
				t.Errorf("status: %v; audit %+v", sc, rec)
			}

			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "token_create", Arguments: map[string]any{"label": "x"}})
			if err != nil {
				t.Fatal(err)
			}
			sc, rec = structuredOf(t, d, res)
			if !res.IsError || sc["error"] != string(store.CodeToolHidden) || rec.Transport != string(mcpserver.TransportMCPStdio) || rec.Outcome != string(store.CodeToolHidden) {
				t.Errorf("token_create: %v; audit %+v", sc, rec)
			}

			// Many requests at once, answered each to its own id.
			var wg sync.WaitGroup
			errs := make(chan error, 3*bridgeMaxInFlight)
			for i := range 3 * bridgeMaxInFlight {
				wg.Go(func() {
					if i%3 == 0 {
						errs <- cs.Ping(t.Context(), nil)
						return
					}
					res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "status"})
					if err == nil && res.IsError {
						err = fmt.Errorf("status failed: %v", res.StructuredContent)
					}
					errs <- err
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}

			if err := cs.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			if err := <-p.done; err != nil {
				t.Errorf("run after the client closed stdin: %v", err)
			}
		})
	}
	if strings.Contains(e.logs.String(), raw) {
		t.Error("the bridge logged the token")
	}
}

// stub is an endpoint that records what the bridge sent and answers by
// method: "slow" when released, or when its request is cancelled.
type stub struct {
	srv      *httptest.Server
	release  chan struct{}
	slowSeen chan struct{}
	// slowGone receives when a slow request's context ends before release.
	slowGone chan struct{}

	mu      sync.Mutex
	headers []http.Header // guarded by mu
}

func newStub(t *testing.T, e *bridgeEnv) *stub {
	t.Helper()
	s := &stub{release: make(chan struct{}), slowSeen: make(chan struct{}, 10), slowGone: make(chan struct{}, 10)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &m) != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"body is not valid JSON","data":{"code":"parse_error"}}}`)
			return
		}
		answer := func(result string) {
			w.Header().Set("Content-Type", "application/json")
			// Pretty-printed on purpose: the bridge writes one line.
			fmt.Fprintf(w, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": %s,\n  \"result\": %s\n}\n", m.ID, result)
		}
		switch {
		case len(m.ID) == 0:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "slow":
			s.slowSeen <- struct{}{}
			select {
			case <-s.release:
				answer(`{"slow":true}`)
			case <-r.Context().Done():
				s.slowGone <- struct{}{}
			}
		case m.Method == "initialize":
			answer(`{"protocolVersion":"2025-06-18"}`)
		case m.Method == "headers":
			b, _ := json.Marshal(r.Header)
			answer(string(b))
		case m.Method == "denied":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"no","data":{"code":"token_missing"}}}`, m.ID)
		case m.Method == "broken":
			http.Error(w, "proxy error", http.StatusBadGateway)
		case m.Method == "events":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", m.ID)
		default:
			answer(`{}`)
		}
	}))
	t.Cleanup(s.srv.Close)
	e.writeEndpoint(s.srv.URL + "/mcp")
	return s
}

func (e *bridgeEnv) writeEndpoint(url string) {
	e.t.Helper()
	if err := os.MkdirAll(e.paths.Runtime, 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(e.paths.Endpoint(), []byte(url+"\n"), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func (s *stub) seen() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.headers)
}

var testToken = "sbt_0123456789abcdef_" + strings.Repeat("A", 43)

func rpc(id, method string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method)
}

// A slow request does not hold up the others, and stdin's end waits for
// it.
func TestBridgeConcurrent(t *testing.T) {
	e := newBridgeEnv(t)
	e.env[envToken] = testToken
	s := newStub(t, e)
	p := e.run("")
	p.send(rpc("1", "slow"))
	<-s.slowSeen
	p.send(rpc("2", "ping"))
	if r := p.read(); string(r.ID) != "2" {
		t.Fatalf("first answer %s, want the ping's", r.raw)
	}
	p.stdin.Close()
	select {
	case err := <-p.done:
		t.Fatalf("run returned (%v) with a request in flight", err)
	default:
	}
	close(s.release)
	if r := p.read(); string(r.ID) != "1" || string(r.Result) != `{"slow":true}` {
		t.Fatalf("answer %s, want the slow one's", r.raw)
	}
	if rest := p.finish(); rest != "" {
		t.Errorf("more output: %q", rest)
	}

	for _, h := range s.seen() {
		for k, want := range map[string]string{
			"Authorization":           "Bearer " + testToken,
			"Content-Type":            "application/json",
			"Accept":                  "application/json, text/event-stream",
			"X-Switchboard-Transport": "stdio",
		} {
			if got := h.Get(k); got != want {
				t.Errorf("header %s = %q, want %q", k, got, want)
			}
		}
	}
}

// What each kind of line and answer becomes on stdout.
func TestBridgeLines(t *testing.T) {
	e := newBridgeEnv(t)
	e.env[envToken] = testToken
	s := newStub(t, e)
	p := e.run("")

	// Notifications are answered 202, which writes nothing: the ping's
	// answer is the first line.
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", "  ", rpc(`"a"`, "ping"))
	if r := p.read(); string(r.ID) != `"a"` || string(r.Result) != "{}" {
		t.Errorf("ping: %s", r.raw)
	}
	// A line over 4 MiB is not sent; the next one is.
	p.send(`{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"`+strings.Repeat("x", mcpserver.MaxBodyBytes)+`"}}`, rpc("3", "ping"))
	if r := p.read(); string(r.ID) != "null" || r.Error == nil || r.Error.Code != -32700 {
		t.Errorf("line over the limit: %s", r.raw)
	}
	if r := p.read(); string(r.ID) != "3" {
		t.Errorf("after the long line: %s", r.raw)
	}
	// A line of exactly 4 MiB is sent.
	exact := rpc("4", "ping")
	exact = exact[:len(exact)-1] + strings.Repeat(" ", mcpserver.MaxBodyBytes-len(exact)) + "}"
	p.send(exact)
	if r := p.read(); string(r.ID) != "4" || r.Error != nil {
		t.Errorf("line of 4 MiB: %s", r.raw)
	}
	// Error answers are written as they are; what is not JSON-RPC becomes
	// an error for the request's id.
	p.send("not json", rpc("5", "denied"), rpc(`"b"`, "broken"), rpc("6", "events"))
	for range 4 {
		r := p.read()
		switch string(r.ID) {
		case "null":
			if r.Error == nil || r.Error.Data.Code != "parse_error" {
				t.Errorf("not JSON: %s", r.raw)
			}
		case "5":
			if r.Error == nil || r.Error.Data.Code != "token_missing" {
				t.Errorf("401: %s", r.raw)
			}
		case `"b"`:
			if r.Error == nil || r.Error.Code != -32603 || !strings.Contains(r.Error.Message, "502") || !strings.Contains(r.Error.Message, "proxy error") {
				t.Errorf("502: %s", r.raw)
			}
		case "":
			// The event stream's notification comes before its answer.
			if r2 := p.read(); string(r2.ID) != "6" {
				t.Errorf("event stream answer: %s", r2.raw)
			}
		default:
			t.Errorf("unexpected %s", r.raw)
		}
	}

	// The headers of the streamable HTTP transport: the version from
	// initialize, and from 2026-07-28 the method and name.
	p.send(`{"jsonrpc":"2.0","id":"h1","method":"headers"}`)
	if h := headersIn(t, p.read()); h.Get("Mcp-Protocol-Version") != "" || h.Get("Mcp-Method") != "" {
		t.Errorf("headers before initialize: %v", h)
	}
	p.send(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	p.read()
	p.send(`{"jsonrpc":"2.0","id":"h4","method":"headers"}`)
	if h := headersIn(t, p.read()); h.Get("Mcp-Protocol-Version") != "2025-06-18" || h.Get("Mcp-Method") != "" {
		t.Errorf("headers after initialize: %v", h)
	}
	p.send(`{"jsonrpc":"2.0","id":"h2","method":"headers","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"status"}}`)
	h := headersIn(t, p.read())
	if h.Get("Mcp-Protocol-Version") != "2026-07-28" || h.Get("Mcp-Method") != "headers" || h.Get("Mcp-Name") != "" {
		t.Errorf("2026-07-28 headers: %v", h)
	}
	p.send(`{"jsonrpc":"2.0","id":"h3","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"status"}}`)
	p.read()
	if last := s.seen(); last[len(last)-1].Get("Mcp-Name") != "status" || last[len(last)-1].Get("Mcp-Method") != "tools/call" {
		t.Errorf("tools/call headers: %v", last[len(last)-1])
	}

	// A cancelled request is abandoned and never answered.
	p.send(rpc("7", "slow"))
	<-s.slowSeen
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	<-s.slowGone
	if rest := p.finish(); rest != "" {
		t.Errorf("output after the cancelled request: %q", rest)
	}
}

func headersIn(t *testing.T, r reply) http.Header {
	t.Helper()
	var h http.Header
	if err := json.Unmarshal(r.Result, &h); err != nil {
		t.Fatalf("headers: %s", r.raw)
	}
	return h
}

// With no Switchboard, every request gets an error naming that; once one
// runs, the same bridge reaches it.
func TestBridgeNotRunning(t *testing.T) {
	e := newBridgeEnv(t)
	p := e.run("")
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, rpc(`"x"`, "ping"))
	r := p.read()
	if string(r.ID) != `"x"` || r.Error == nil || r.Error.Code != codeNotRunning || !strings.Contains(r.Error.Message, "Switchboard is not running") {
		t.Errorf("no endpoint file: %s", r.raw)
	}

	// An endpoint file left by a crash, naming a port nobody listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.writeEndpoint("http://" + ln.Addr().String() + "/mcp")
	ln.Close()
	p.send(rpc("8", "ping"))
	if r := p.read(); string(r.ID) != "8" || r.Error == nil || r.Error.Code != codeNotRunning {
		t.Errorf("stale endpoint: %s", r.raw)
	}

	// An endpoint file that is not loopback does not get the token.
	e.writeEndpoint("http://192.0.2.1/mcp")
	p.send(rpc("9", "ping"))
	if r := p.read(); string(r.ID) != "9" || r.Error == nil || !strings.Contains(r.Error.Message, "loopback") {
		t.Errorf("remote endpoint: %s", r.raw)
	}

	os.Remove(e.paths.Endpoint())
	_, raw := e.startDaemon()
	p.send(rpc("10", "ping"))
	if r := p.read(); string(r.ID) != "10" || r.Error != nil {
		t.Errorf("ping once Switchboard runs: %s", r.raw)
	}
	p.finish()
	if strings.Contains(e.logs.String(), raw) {
		t.Error("the bridge logged the token")
	}
}

// The token comes from $SWITCHBOARD_MCP_TOKEN, else a file only its owner
// may read, else the keyring.
func TestBridgeTokenSources(t *testing.T) {
	e := newBridgeEnv(t)
	dir := t.TempDir()
	file := func(name, content string, mode os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	other := strings.Replace(testToken, "0123", "4567", 1)
	good := file("good", testToken+"\n", 0o600)
	readOnly := file("readonly", testToken, 0o400)
	for _, c := range []struct {
		name, env, file string
		want            string // the token sent, or
		err             string // the start-up error
	}{
		{name: "env", env: testToken, want: testToken},
		{name: "env before file", env: testToken, file: file("other", other, 0o600), want: testToken},
		{name: "file", file: good, want: testToken},
		{name: "file 0400", file: readOnly, want: testToken},
		{name: "file 0644", file: file("open", testToken, 0o644), err: "mode 0644"},
		{name: "file 0640", file: file("group", testToken, 0o640), err: "mode 0640"},
		{name: "file missing", file: filepath.Join(dir, "nope"), err: "no such file"},
		{name: "file malformed", file: file("bad", "hello", 0o600), err: "does not hold a Switchboard token"},
		{name: "file a folder", file: dir, err: "not a regular file"},
		{name: "env malformed", env: "sbt_nothex_x", err: "SWITCHBOARD_MCP_TOKEN is not a Switchboard token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			e.env = map[string]string{envToken: c.env}
			b, err := newBridge(e.config(c.file))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				if strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), "hello") {
					t.Errorf("the error repeats the file's content: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, err := b.token(); got != c.want || err != nil {
				t.Errorf("token %q, %v; want %q", got, err, c.want)
			}
		})
	}

	// Neither: the kept client token, read when first needed.
	e.t = t
	e.env = map[string]string{}
	b, err := newBridge(e.config(""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.token(); err == nil || !strings.Contains(err.Error(), envToken) {
		t.Errorf("token with nothing kept: %v", err)
	}
	_, raw := e.startDaemon()
	if got, err := b.token(); got != raw || err != nil {
		t.Errorf("token once Switchboard keeps one: %v", err)
	}
}

// A client token rotated while the bridge runs is picked up from the
// keyring at the first refusal.
func TestBridgeRotatedToken(t *testing.T) {
	e := newBridgeEnv(t)
	d, _ := e.startDaemon()
	p := e.run("")
	cs := p.connect("")
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "status"}); err != nil {
		t.Fatal(err)
	}
	res := d.Registry().Invoke(t.Context(), mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, "token.rotate", nil)
	if res.Err != nil {
		t.Fatalf("token.rotate: %v", res.Err)
	}
	r, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "status"})
	if err != nil || r.IsError {
		t.Fatalf("status after a rotation: %v %v", err, r)
	}
	cs.Close()
	<-p.done
}

func TestMCPCommandUsage(t *testing.T) {
	e := newBridgeEnv(t)
	dir := t.TempDir()
	open := filepath.Join(dir, "tok")
	os.WriteFile(open, []byte(testToken), 0o644)
	os.Chmod(open, 0o644)
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"mcp"}, 2, "Usage: switchboard mcp --stdio"},
		{[]string{"mcp", "--stdio", "extra"}, 2, "Usage: switchboard mcp --stdio"},
		{[]string{"mcp", "--nope"}, 2, "flag provided but not defined"},
		{[]string{"mcp", "--help"}, 0, "-token-file"},
		{[]string{"mcp", "--stdio", "--token-file", open}, 1, "mode 0644"},
	} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), Env{
			Stdout: &out, Stderr: &errb, Keyring: e.kr, Version: "v",
			Getenv: func(k string) string {
				return map[string]string{"SWITCHBOARD_DATA_DIR": e.paths.Data, "SWITCHBOARD_RUNTIME_DIR": e.paths.Runtime}[k]
			},
		}, c.args)
		if code != c.code || !strings.Contains(errb.String(), c.stderr) || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out.String(), errb.String(), c.code, c.stderr)
		}
		if strings.Contains(errb.String(), testToken) {
			t.Errorf("%v printed the token", c.args)
		}
	}
	var out bytes.Buffer
	Usage(&out)
	if !strings.Contains(out.String(), "mcp ") || !strings.Contains(out.String(), "bridge MCP over stdio") {
		t.Errorf("usage lacks mcp:\n%s", out.String())
	}
}
