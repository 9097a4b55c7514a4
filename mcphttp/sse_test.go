package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// sseEnv serves a handler on /mcp and /mcp/ (as the daemon mounts it) over
// real loopback HTTP, with the tokens of httpEnv.
type sseEnv struct {
	*httpEnv
	h    *HTTPHandler
	base string
	tr   *http.Transport
	// streamEnded receives once for every GET the handler has returned
	// from, so a test can wait for a stream's end instead of sleeping.
	streamEnded chan struct{}
}

// newSSEEnv starts the server. configure, when not nil, runs on the
// registry and the handler before the server starts.
func newSSEEnv(t *testing.T, configure func(*sseEnv)) *sseEnv {
	t.Helper()
	e := &sseEnv{httpEnv: newHTTPEnv(t), streamEnded: make(chan struct{}, 100)}
	if configure != nil {
		configure(e)
	}
	if e.h == nil {
		e.h = NewHTTPHandler(e.reg, HTTPOptions{Version: testVersion, Log: e.log})
	}
	srv := httptest.NewServer(e.mux())
	t.Cleanup(srv.Close)
	e.base = srv.URL
	e.tr = &http.Transport{}
	t.Cleanup(e.tr.CloseIdleConnections)
	return e
}

func (e *sseEnv) mux() http.Handler {
	mux := http.NewServeMux()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.h.ServeHTTP(w, r)
		if r.Method == http.MethodGet {
			e.streamEnded <- struct{}{}
		}
	})
	mux.Handle("/mcp", h)
	mux.Handle("/mcp/", h)
	return mux
}

// bearerTransport sends a bearer token on every request. Unlike httpEnv's
// recorder it does not read whole bodies, which a stream never ends.
type bearerTransport struct {
	next http.RoundTripper
	raw  string
}

func (b bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.raw)
	return b.next.RoundTrip(req)
}

func (e *sseEnv) bearerClient(raw string) *http.Client {
	return &http.Client{Transport: bearerTransport{next: e.tr, raw: raw}}
}

// sseEvent is one server-sent event; comment holds a comment line's text.
type sseEvent struct {
	name, data, comment string
}

// sseStream is an open stream read event by event.
type sseStream struct {
	t       *testing.T
	resp    *http.Response
	rd      *bufio.Reader
	close   context.CancelFunc
	session string
	// messages is the absolute URL of the endpoint event.
	messages string
}

var endpointRE = regexp.MustCompile(`^/mcp/messages\?session_id=([0-9a-f]{32})$`)

// open opens a stream on path with token raw, checks the answer and reads
// the endpoint event.
func (e *sseEnv) open(t *testing.T, raw, path string) *sseStream {
	t.Helper()
	resp, cancel := e.get(t, raw, path, nil)
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: HTTP %d: %s", path, resp.StatusCode, body)
	}
	for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("GET %s: %s %q, want %q", path, k, got, want)
		}
	}
	s := &sseStream{t: t, resp: resp, rd: bufio.NewReader(resp.Body), close: cancel}
	ev := s.next()
	m := endpointRE.FindStringSubmatch(ev.data)
	if ev.name != "endpoint" || m == nil {
		t.Fatalf("first event %+v, want endpoint with /mcp/messages?session_id=<32 hex>", ev)
	}
	s.session = m[1]
	s.messages = e.base + ev.data
	return s
}

// get sends a GET with token raw (none when empty) and extra headers. The
// request ends with the test, or when the returned function is called.
func (e *sseEnv) get(t *testing.T, raw, path string, header map[string]string) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	c := &http.Client{Transport: e.tr}
	if raw != "" {
		c = e.bearerClient(raw)
	}
	resp, err := c.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET %s: %v", path, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, func() { cancel(); resp.Body.Close() }
}

// next reads one event or comment.
func (s *sseStream) next() sseEvent {
	s.t.Helper()
	var ev sseEvent
	for {
		line, err := s.rd.ReadString('\n')
		if err != nil {
			s.t.Fatalf("reading the stream: %v (partial %+v)", err, ev)
		}
		line = strings.TrimSuffix(line, "\n")
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch {
		case line == "":
			return ev
		case field == "":
			ev.comment = value
		case field == "event":
			ev.name = value
		case field == "data":
			if ev.data != "" {
				s.t.Fatalf("an event with more than one data line: %q, %q", ev.data, value)
			}
			ev.data = value
		default:
			s.t.Fatalf("unexpected line %q", line)
		}
	}
}

// message reads events up to the next message (skipping keep-alives).
func (s *sseStream) message() rpcReply {
	s.t.Helper()
	for {
		ev := s.next()
		if ev.comment == "keep-alive" && ev.name == "" && ev.data == "" {
			continue
		}
		if ev.name != "message" {
			s.t.Fatalf("event %+v, want a message", ev)
		}
		var reply rpcReply
		if err := json.Unmarshal([]byte(ev.data), &reply); err != nil || reply.JSONRPC != "2.0" {
			s.t.Fatalf("message is not JSON-RPC: %v: %s", err, ev.data)
		}
		return reply
	}
}

// messages reads n messages and returns them by id.
func (s *sseStream) messagesN(n int) map[string]rpcReply {
	s.t.Helper()
	out := map[string]rpcReply{}
	for range n {
		m := s.message()
		out[string(m.ID)] = m
	}
	return out
}

// post sends body to url with token raw (none when empty) and returns the
// status and body of the answer.
func (e *sseEnv) post(t *testing.T, url, raw, body string) (int, rpcReply) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	c := &http.Client{Transport: e.tr}
	if raw != "" {
		c = e.bearerClient(raw)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var reply rpcReply
	switch {
	case resp.StatusCode == http.StatusAccepted:
		if len(b) != 0 {
			t.Errorf("202 with a body: %s", b)
		}
	case json.Unmarshal(b, &reply) != nil || reply.Error == nil:
		t.Errorf("HTTP %d without a JSON-RPC error: %s", resp.StatusCode, b)
	default:
		if resp.StatusCode == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") != `Bearer realm="switchboard"` {
			t.Errorf("401 without the bearer challenge")
		}
	}
	return resp.StatusCode, reply
}

// wantPosted posts body and fails unless it is accepted.
func (e *sseEnv) wantPosted(t *testing.T, s *sseStream, raw, body string) {
	t.Helper()
	if status, reply := e.post(t, s.messages, raw, body); status != http.StatusAccepted {
		t.Fatalf("POST %s: HTTP %d %+v", body, status, reply.Error)
	}
}

// wantRefused posts body and checks the refusal.
func (e *sseEnv) wantRefused(t *testing.T, url, raw, body string, status int, code store.Code) {
	t.Helper()
	got, reply := e.post(t, url, raw, body)
	if got != status || reply.Error == nil || reply.Error.Data.Code != code || reply.Error.Message == "" {
		t.Errorf("POST %s: HTTP %d %+v, want %d %s", body, got, reply.Error, status, code)
	}
}

// statusResult decodes a tools/call answer of the status tool and returns
// its audit record.
func (e *sseEnv) statusAudit(t *testing.T, reply rpcReply) store.AuditRecord {
	t.Helper()
	var res struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if reply.Error != nil || json.Unmarshal(reply.Result, &res) != nil || res.IsError || res.StructuredContent["ok"] != true {
		t.Fatalf("status over SSE: %s %+v", reply.Result, reply.Error)
	}
	id, _ := res.StructuredContent["audit_id"].(string)
	return e.auditRecord(t, id)
}

const (
	initialize2024 = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"legacy","version":"0"}}}`
	initialized    = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	toolsList      = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	statusCall     = `{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"status","arguments":{}}}`
)

// A 2024-11-05 client, by hand: both stream paths, the endpoint event, and
// answers as message events matched by id.
func TestSSEHandshake(t *testing.T) {
	e := newSSEEnv(t, nil)
	for _, path := range []string{"/mcp/sse", "/mcp"} {
		t.Run(path, func(t *testing.T) {
			s := e.open(t, e.clientRaw, path)
			for _, body := range []string{initialize2024, initialized, toolsList, statusCall} {
				e.wantPosted(t, s, e.clientRaw, body)
			}
			got := s.messagesN(3)

			var init mcp.InitializeResult
			if err := json.Unmarshal(got["1"].Result, &init); err != nil {
				t.Fatalf("initialize: %v %+v", err, got["1"])
			}
			// The stateless SDK server answers the version asked for, and a
			// 2024-11-05 client accepts nothing else.
			if init.ProtocolVersion != "2024-11-05" || init.Instructions != mcpserver.Instructions || init.ServerInfo.Name != "switchboard" || init.Capabilities.Tools == nil {
				t.Errorf("initialize: %s", got["1"].Result)
			}

			var list mcp.ListToolsResult
			if err := json.Unmarshal(got["2"].Result, &list); err != nil {
				t.Fatalf("tools/list: %v %+v", err, got["2"])
			}
			names := toolNames(list.Tools)
			if !slices.Contains(names, "status") || slices.Contains(names, "token_create") {
				t.Errorf("tools/list over SSE: %v", names)
			}

			rec := e.statusAudit(t, got[`"s"`])
			if rec.Transport != string(mcpserver.TransportMCPSSE) || rec.KeyID != e.client.KeyID || rec.Method != "status" || rec.Outcome != "ok" {
				t.Errorf("audit record of status over SSE: %+v", rec)
			}
		})
	}
}

// The go-sdk's own legacy client, as any 2024-11-05 client would use it.
func TestSSEGoSDKClient(t *testing.T) {
	e := newSSEEnv(t, nil)
	for _, version := range []string{"", "2024-11-05"} {
		t.Run("version "+version, func(t *testing.T) {
			client := mcp.NewClient(&mcp.Implementation{Name: "legacy-test", Version: "0"}, nil)
			cs, err := client.Connect(t.Context(), &mcp.SSEClientTransport{Endpoint: e.base + "/mcp/sse", HTTPClient: e.bearerClient(e.clientRaw)},
				&mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			init := cs.InitializeResult()
			// Without a version asked for, the client offers 2026-07-28 by
			// server/discover first; refused on this transport, it falls
			// back to initialize with the newest version before it.
			want := version
			if want == "" {
				want = "2025-11-25"
			}
			if init.ProtocolVersion != want || init.Instructions != mcpserver.Instructions {
				t.Errorf("initialize: version %q, instructions %q", init.ProtocolVersion, init.Instructions)
			}
			list, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if names := toolNames(list.Tools); !slices.Contains(names, "status") {
				t.Errorf("tools/list: %v", names)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "status"})
			if err != nil {
				t.Fatal(err)
			}
			sc := structured(t, res)
			id, _ := sc["audit_id"].(string)
			if rec := e.auditRecord(t, id); res.IsError || rec.Transport != string(mcpserver.TransportMCPSSE) || rec.Outcome != "ok" {
				t.Errorf("status: %v, audit %+v", sc, rec)
			}
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "token_create", Arguments: map[string]any{"label": "x"}})
			if err != nil {
				t.Fatal(err)
			}
			if sc := structured(t, res); !res.IsError || sc["error"] != string(store.CodeToolHidden) {
				t.Errorf("token_create over SSE: %v", sc)
			}
			if err := cs.Ping(t.Context(), nil); err != nil {
				t.Errorf("ping: %v", err)
			}
		})
	}
}

// A session is bound to the token that opened it: another token's POST is
// refused before anything runs, and the caller is never the stream's.
func TestSSESessionBoundToToken(t *testing.T) {
	e := newSSEEnv(t, nil)
	s := e.open(t, e.clientRaw, "/mcp/sse")
	before := len(e.audit(t))

	e.wantRefused(t, s.messages, e.auditRaw, statusCall, http.StatusForbidden, codeSessionForbidden)
	e.wantRefused(t, s.messages, "", statusCall, http.StatusUnauthorized, store.CodeTokenMissing)
	e.wantRefused(t, s.messages, e.revokedRaw, statusCall, http.StatusUnauthorized, store.CodeTokenRevoked)
	e.wantRefused(t, s.messages, e.wrongSecretRaw, statusCall, http.StatusUnauthorized, store.CodeTokenInvalid)
	e.wantRefused(t, e.base+"/mcp/messages?session_id=0123456789abcdef0123456789abcdef", e.clientRaw, statusCall, http.StatusNotFound, mcpserver.CodeInvalidRequest)
	e.wantRefused(t, e.base+"/mcp/messages", e.clientRaw, statusCall, http.StatusNotFound, mcpserver.CodeInvalidRequest)
	// Checked on the POST itself, as on POST /mcp.
	e.wantRefused(t, s.messages, e.clientRaw, `{"jsonrpc":"2.0",`, http.StatusBadRequest, mcpserver.CodeParseError)
	e.wantRefused(t, s.messages, e.clientRaw, `{"jsonrpc":"2.0","id":4,"method":"foo/bar"`+strings.Repeat(" ", mcpserver.MaxBodyBytes)+"}", http.StatusRequestEntityTooLarge, mcpserver.CodePayloadTooLarge)
	// An unknown method has an id to answer: on the stream, as a legacy
	// client expects answers. server/discover is unknown on this transport.
	e.wantPosted(t, s, e.clientRaw, `{"jsonrpc":"2.0","id":4,"method":"foo/bar"}`)
	e.wantPosted(t, s, e.clientRaw, `{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{}}`)
	for id, m := range s.messagesN(2) {
		if m.Error == nil || m.Error.Code != -32601 || m.Error.Data.Code != store.CodeMethodUnknown {
			t.Errorf("answer to %s: %+v", id, m)
		}
	}

	if after := e.audit(t); len(after) != before {
		t.Errorf("refused POSTs were audited: %+v", after[before:])
	}

	// The auditor token's own stream is its own; the client's still works.
	other := e.open(t, e.auditRaw, "/mcp/sse")
	if other.session == s.session {
		t.Fatal("two streams share a session id")
	}
	e.wantRefused(t, other.messages, e.clientRaw, statusCall, http.StatusForbidden, codeSessionForbidden)
	e.wantPosted(t, s, e.clientRaw, statusCall)
	if rec := e.statusAudit(t, s.message()); rec.KeyID != e.client.KeyID || rec.Transport != string(mcpserver.TransportMCPSSE) {
		t.Errorf("audit record %+v", rec)
	}
}

func TestSSEStreamRefusals(t *testing.T) {
	e := newSSEEnv(t, nil)
	for _, c := range []struct {
		name, path string
		token      string
		header     map[string]string
		status     int
	}{
		{"modern GET /mcp", "/mcp", e.clientRaw, map[string]string{"MCP-Protocol-Version": "2025-06-18"}, http.StatusMethodNotAllowed},
		{"GET /mcp with a session id", "/mcp", e.clientRaw, map[string]string{"Mcp-Session-Id": "abc"}, http.StatusMethodNotAllowed},
		{"GET /mcp/messages", "/mcp/messages", e.clientRaw, nil, http.StatusMethodNotAllowed},
		{"no token", "/mcp/sse", "", nil, http.StatusUnauthorized},
		{"no token on /mcp", "/mcp", "", nil, http.StatusUnauthorized},
		{"revoked token", "/mcp/sse", e.revokedRaw, nil, http.StatusUnauthorized},
		{"token in query", "/mcp/sse?access_token=" + e.clientRaw, "", nil, http.StatusUnauthorized},
		{"evil origin", "/mcp/sse", e.clientRaw, map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, cancel := e.get(t, c.token, c.path, c.header)
			defer cancel()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status {
				t.Fatalf("HTTP %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			if c.status == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") != `Bearer realm="switchboard"` {
				t.Errorf("401 without the bearer challenge")
			}
		})
	}
}

// One token holds at most maxSSEStreamsPerKey streams; a closed one frees
// its place, and other tokens are not affected.
func TestSSEStreamCap(t *testing.T) {
	e := newSSEEnv(t, nil)
	var streams []*sseStream
	for range maxSSEStreamsPerKey {
		streams = append(streams, e.open(t, e.clientRaw, "/mcp/sse"))
	}
	resp, cancel := e.get(t, e.clientRaw, "/mcp/sse", nil)
	var reply rpcReply
	body, _ := io.ReadAll(resp.Body)
	cancel()
	if resp.StatusCode != http.StatusTooManyRequests || json.Unmarshal(body, &reply) != nil || reply.Error == nil || reply.Error.Data.Code != codeTooManyStreams {
		t.Fatalf("stream %d: HTTP %d %s", maxSSEStreamsPerKey+1, resp.StatusCode, body)
	}
	<-e.streamEnded
	e.open(t, e.auditRaw, "/mcp/sse")

	streams[0].close()
	<-e.streamEnded
	s := e.open(t, e.clientRaw, "/mcp/sse")
	e.wantPosted(t, s, e.clientRaw, statusCall)
	e.statusAudit(t, s.message())
}

// A client that goes away takes its session with it.
func TestSSESessionEndsWithStream(t *testing.T) {
	e := newSSEEnv(t, nil)
	s := e.open(t, e.clientRaw, "/mcp")
	if e.h.sse.get(s.session) == nil {
		t.Fatal("the open stream has no session")
	}
	s.close()
	<-e.streamEnded
	if e.h.sse.get(s.session) != nil {
		t.Error("the session outlived its stream")
	}
	e.wantRefused(t, s.messages, e.clientRaw, statusCall, http.StatusNotFound, mcpserver.CodeInvalidRequest)
	e.h.sse.mu.Lock()
	defer e.h.sse.mu.Unlock()
	if len(e.h.sse.byID) != 0 || len(e.h.sse.perKey) != 0 {
		t.Errorf("sessions left: %v, per key %v", e.h.sse.byID, e.h.sse.perKey)
	}
}

// serveWithTimeouts serves e's handler on an http.Server with the given
// timeouts, as the daemon does (with longer ones), and returns it with its
// base URL.
func (e *sseEnv) serveWithTimeouts(t *testing.T, d time.Duration) (*http.Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: e.mux(), ReadHeaderTimeout: d, ReadTimeout: d, WriteTimeout: d}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return srv, "http://" + ln.Addr().String()
}

// The server's read and write timeouts bound requests, not streams: a
// stream kept alive lives on well past both and still carries answers.
func TestSSEOutlivesServerTimeouts(t *testing.T) {
	e := newSSEEnv(t, func(e *sseEnv) {
		e.h = NewHTTPHandler(e.reg, HTTPOptions{Version: testVersion, Log: e.log})
		e.h.sse.keepAlive = 10 * time.Millisecond
	})
	const timeout = 100 * time.Millisecond
	_, e.base = e.serveWithTimeouts(t, timeout)

	start := time.Now()
	s := e.open(t, e.clientRaw, "/mcp/sse")
	keepAlives := 0
	for time.Since(start) < 10*timeout {
		if ev := s.next(); ev.comment != "keep-alive" || ev.name != "" || ev.data != "" {
			t.Fatalf("event %+v, want a keep-alive comment", ev)
		}
		keepAlives++
	}
	t.Logf("%d keep-alives in %s", keepAlives, time.Since(start).Round(time.Millisecond))
	e.wantPosted(t, s, e.clientRaw, statusCall)
	e.statusAudit(t, s.message())
}

// Shutdown ends the streams rather than waiting for them forever.
func TestSSEServerShutdown(t *testing.T) {
	e := newSSEEnv(t, nil)
	srv, base := e.serveWithTimeouts(t, 10*time.Second)
	e.base = base
	s := e.open(t, e.clientRaw, "/mcp/sse")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a stream open: %v", err)
	}
	// Shutdown runs its hooks each time it is called.
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("second Shutdown: %v", err)
	}
	if _, err := s.rd.ReadString('\n'); err == nil {
		t.Error("the stream goes on after Shutdown")
	}
	if e.h.sse.get(s.session) != nil {
		t.Error("the session outlived the server")
	}
}

// A session holds at most sseQueueLen pending requests; the POST beyond
// that is refused rather than left to wait.
func TestSSEBusy(t *testing.T) {
	release := make(chan struct{})
	e := newSSEEnv(t, func(e *sseEnv) {
		// A method that runs until the test releases it.
		e.reg.Register(mcpserver.Method{Name: "test.block", Access: mcpserver.On(mcpserver.Global, store.CapStatusRead), Description: "blocks",
			Handler: func(c *mcpserver.Call) (any, error) {
				<-release
				return "released", nil
			}})
	})
	s := e.open(t, e.clientRaw, "/mcp/sse")
	call := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_block","arguments":{}}}`, id)
	}
	for id := range sseQueueLen {
		e.wantPosted(t, s, e.clientRaw, call(id))
	}
	e.wantRefused(t, s.messages, e.clientRaw, call(sseQueueLen), http.StatusServiceUnavailable, codeSessionBusy)
	e.wantRefused(t, s.messages, e.clientRaw, `{"jsonrpc":"2.0","id":"x","method":"foo/bar"}`, http.StatusServiceUnavailable, codeSessionBusy)
	close(release)
	got := s.messagesN(sseQueueLen)
	for id := range sseQueueLen {
		if m, ok := got[fmt.Sprint(id)]; !ok || m.Error != nil {
			t.Errorf("answer to %d: %+v", id, m)
		}
	}
	// Answered, the slots are free again.
	e.wantPosted(t, s, e.clientRaw, call(sseQueueLen))
	if m := s.message(); string(m.ID) != fmt.Sprint(sseQueueLen) || m.Error != nil {
		t.Errorf("answer after the queue drained: %+v", m)
	}
}
