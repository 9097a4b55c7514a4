package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/coretest"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Authorization header modes of FuzzHTTPFront: how the fuzzed auth string
// and the tokens make up the header.
const (
	authNone        = iota // no header
	authValid              // "Bearer <client token>"
	authRaw                // the fuzzed string as the whole header
	authBearer             // "Bearer <fuzzed>"
	authWrongSecret        // "Bearer sbt_<client key id>_<fuzzed>"
	authScheme             // "<fuzzed><client token>": other schemes, spacing
	authSuffix             // "Bearer <client token><fuzzed>"
	authOther              // "Bearer <another valid token>", status:read only
	authModes
)

// sessionPlaceholder in a fuzzed path's query stands for the id of a live
// SSE session, opened with the client token for that one input: a session
// id is 128 random bits the fuzzer could never guess.
const sessionPlaceholder = "@"

// fuzzInput is one FuzzHTTPFront input, named for the seeds' sake; the
// fuzz function takes the fields in this order.
type fuzzInput struct {
	method, path, host, origin string
	authMode                   byte
	auth                       string
	mcpMethod, mcpName         string
	protocolVersion            string
	body                       []byte
}

// fuzzServer is what every FuzzHTTPFront input runs against: one registry
// and store, and two valid tokens.
type fuzzServer struct {
	h    *HTTPHandler
	db   *store.DB
	logs *fuzzLog
	// client holds every agent capability; other only status:read.
	client, other       store.Token
	clientRaw, otherRaw string
	// secrets are the secret halves of both tokens: neither may ever be
	// in an answer or the log.
	secrets []string
}

func newFuzzServer(f *testing.F) *fuzzServer {
	s := &fuzzServer{logs: &fuzzLog{}}
	log := slog.New(slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	fx := &fixture{clock: coretest.NewClock(), env: &coretest.Env{}, log: log}
	fx.db = openTestDB(f, fx.clock)
	fx.reg = mcpserver.New(fx.db, mcpserver.Options{Version: testVersion, Env: fx.env, Log: log})
	s.db = fx.db
	s.client, s.clientRaw = fx.createClientToken(f)
	s.other, s.otherRaw = fx.createToken(f, store.TokenSpec{Label: "status only",
		Grants: []store.Grant{{Capability: store.CapStatusRead, Repositories: []string{store.AllRepositories}}}})
	for _, raw := range []string{s.clientRaw, s.otherRaw} {
		_, secret, err := store.ParseToken(raw)
		if err != nil {
			f.Fatal(err)
		}
		s.secrets = append(s.secrets, secret)
	}
	s.h = NewHTTPHandler(fx.reg, HTTPOptions{AllowOrigins: []string{allowedOrigin}, Version: testVersion, Log: log})
	return s
}

// FuzzHTTPFront sends arbitrary requests through the MCP HTTP handler, over
// a real registry and store, and checks what must hold for every one of
// them: no panic, and an answer within 10 s; an HTTP status from the set the
// handler can give; a non-2xx application/json answer is a JSON-RPC error
// whose error.data.code agrees with the status (the SDK's own protocol
// errors excepted, see checkAnswer); neither token's secret ever appears in
// an answer, a header, an SSE event or a log line; and a request that does
// not carry a valid token never reaches a tool, so the audit log gains no
// record. A message posted to a live SSE session is answered on its stream
// when accepted, and only the session's own token reaches a tool through
// it.
func FuzzHTTPFront(f *testing.F) {
	s := newFuzzServer(f)
	for _, in := range fuzzSeeds() {
		f.Add(in.method, in.path, in.host, in.origin, in.authMode, in.auth, in.mcpMethod, in.mcpName, in.protocolVersion, in.body)
	}
	f.Fuzz(func(t *testing.T, method, path, host, origin string, authMode byte, auth, mcpMethod, mcpName, protocolVersion string, body []byte) {
		in := fuzzInput{method, path, host, origin, authMode % authModes, auth, mcpMethod, mcpName, protocolVersion, body}
		s.run(t, in)
	})
}

func (s *fuzzServer) authorization(in fuzzInput) string {
	switch in.authMode {
	case authValid:
		return "Bearer " + s.clientRaw
	case authRaw:
		return in.auth
	case authBearer:
		return "Bearer " + in.auth
	case authWrongSecret:
		return "Bearer sbt_" + s.client.KeyID + "_" + in.auth
	case authScheme:
		return in.auth + s.clientRaw
	case authSuffix:
		return "Bearer " + s.clientRaw + in.auth
	case authOther:
		return "Bearer " + s.otherRaw
	}
	return ""
}

// run sends one input and checks the answer.
func (s *fuzzServer) run(t *testing.T, in fuzzInput) {
	// A stream would run until the request's context ends: the recorder
	// ends it once the first event is out. The deadline is a backstop, and
	// reaching it a failure.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()

	target := in.path
	var stream *openStream
	if urlPath, query, _ := strings.Cut(target, "?"); urlPath == PathMessages && strings.Contains(query, sessionPlaceholder) {
		stream = s.openStream(t, ctx)
		defer stream.close()
		target = urlPath + "?" + strings.ReplaceAll(query, sessionPlaceholder, stream.session)
	}
	urlPath, query, _ := strings.Cut(target, "?")
	authz := s.authorization(in)
	req := (&http.Request{
		Method:        in.method,
		URL:           &url.URL{Path: urlPath, RawQuery: query},
		RequestURI:    target,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Host:          in.host,
		Header:        http.Header{},
		Body:          io.NopCloser(bytes.NewReader(in.body)),
		ContentLength: int64(len(in.body)),
		RemoteAddr:    "127.0.0.1:49152",
	}).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range map[string]string{
		"Authorization":        authz,
		"Origin":               in.origin,
		"Mcp-Method":           in.mcpMethod,
		"Mcp-Name":             in.mcpName,
		"MCP-Protocol-Version": in.protocolVersion,
	} {
		if v != "" {
			req.Header.Set(k, v)
		}
	}

	before := lastAuditSeq(t, s.db)
	s.logs.take()
	rec := &streamRecorder{ResponseRecorder: httptest.NewRecorder(), end: cancel}
	s.h.ServeHTTP(rec, req)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("the handler ran for 10 s: %s", describeInput(in))
	}
	resp := rec.Result()
	got := rec.Body.Bytes()
	describe := func() string {
		return fmt.Sprintf("%s\nanswer: HTTP %d %s: %s", describeInput(in), resp.StatusCode, resp.Header.Get("Content-Type"), excerpt(got, 600))
	}

	// An accepted message for a live session is answered on its stream,
	// unless it was a notification.
	var events string
	if stream != nil {
		if resp.StatusCode == http.StatusAccepted && hasRequestID(in.body) {
			if !stream.waitFor(sseMessageEvent, 5*time.Second) {
				t.Fatalf("an accepted message got no answer on the stream\n%s\nstream: %s", describe(), excerpt([]byte(stream.events()), 600))
			}
		}
		stream.close()
		events = stream.events()
		if !sseStreamEvents.MatchString(events) {
			t.Fatalf("unexpected events on the stream\n%s\nstream: %s", describe(), excerpt([]byte(events), 600))
		}
	}

	leak := string(got) + "\n" + events + "\n" + s.logs.take()
	for k, vs := range resp.Header {
		leak += "\n" + k + ": " + strings.Join(vs, ", ")
	}
	for _, secret := range s.secrets {
		if strings.Contains(leak, secret) {
			t.Fatalf("a token's secret is in the answer, its headers, the stream or the log\n%s", describe())
		}
	}

	// Only a valid token reaches a tool, and through an SSE session only
	// the token that opened it.
	reaches := carriesToken(authz, s.clientRaw) || (stream == nil && carriesToken(authz, s.otherRaw))
	if after := lastAuditSeq(t, s.db); !reaches && after != before {
		t.Fatalf("a request without a valid token was audited (%d → %d)\n%s", before, after, describe())
	}

	checkAnswer(t, req, resp, got, describe)
}

func describeInput(in fuzzInput) string {
	return fmt.Sprintf("request: %s %q Host %q Origin %q, Authorization mode %d (%q), Mcp-Method %q, Mcp-Name %q, MCP-Protocol-Version %q, body %s",
		in.method, in.path, in.host, in.origin, in.authMode, in.auth, in.mcpMethod, in.mcpName, in.protocolVersion, excerpt(in.body, 300))
}

func excerpt(b []byte, n int) string {
	if len(b) > n {
		return fmt.Sprintf("%q…", b[:n])
	}
	return fmt.Sprintf("%q", b)
}

// hasRequestID reports whether body is an object with a non-null id, as
// encoding/json (and so the front layer) reads it.
func hasRequestID(body []byte) bool {
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	return json.Unmarshal(body, &msg) == nil && len(msg.ID) > 0 && string(msg.ID) != "null"
}

// carriesToken reports whether an Authorization header value presents raw
// as a bearer token: the scheme in any case, whitespace around the token.
func carriesToken(authz, raw string) bool {
	scheme, rest, ok := strings.Cut(authz, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(rest) == raw
}

// lastAuditSeq is the sequence of the newest audit record, 0 for none.
func lastAuditSeq(t testing.TB, db *store.DB) uint64 {
	t.Helper()
	var seq uint64
	err := db.View(context.Background(), func(tx *store.Tx) error {
		recs, err := tx.QueryAudit(store.AuditFilter{Limit: 1})
		if len(recs) == 1 {
			seq = recs[0].Seq
		}
		return err
	})
	if err != nil {
		t.Fatalf("read the audit log: %v", err)
	}
	return seq
}

// fuzzLog collects what the handler logs, so each input can be checked for
// leaked token material and then forgotten (a long fuzz run must not keep
// every line).
type fuzzLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *fuzzLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// take returns what was logged since the last take.
func (l *fuzzLog) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.buf.String()
	l.buf.Reset()
	return s
}

// streamRecorder is an httptest.ResponseRecorder that ends the request
// once an event stream has flushed its first event.
type streamRecorder struct {
	*httptest.ResponseRecorder
	end context.CancelFunc
}

func (r *streamRecorder) Flush() {
	r.ResponseRecorder.Flush()
	if strings.HasPrefix(r.Header().Get("Content-Type"), "text/event-stream") {
		r.end()
	}
}

// openStream is a legacy SSE stream served in the background for one
// input.
type openStream struct {
	session string
	stop    context.CancelFunc
	done    chan struct{}
	w       *streamWriter
}

func (s *fuzzServer) openStream(t *testing.T, ctx context.Context) *openStream {
	t.Helper()
	ctx, stop := context.WithCancel(ctx)
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, PathSSE, nil)
	req.Host = "127.0.0.1:8080"
	req.Header.Set("Authorization", "Bearer "+s.clientRaw)
	st := &openStream{stop: stop, done: make(chan struct{}), w: &streamWriter{header: http.Header{}, flushed: make(chan struct{}, 1)}}
	go func() {
		defer close(st.done)
		s.h.ServeHTTP(st.w, req)
	}()
	if !st.waitFor(sseEndpointEvent, 5*time.Second) {
		st.close()
		t.Fatalf("no endpoint event on a new stream: HTTP %d %q", st.w.status, st.events())
	}
	st.session = sseEndpointEvent.FindStringSubmatch(st.events())[1]
	return st
}

// waitFor reports whether the stream's events come to match re in time.
func (s *openStream) waitFor(re *regexp.Regexp, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for !re.MatchString(s.events()) {
		select {
		case <-s.w.flushed:
		case <-s.done:
			return re.MatchString(s.events())
		case <-deadline.C:
			return false
		}
	}
	return true
}

func (s *openStream) events() string { return s.w.String() }

// close ends the stream and waits for its handler to return.
func (s *openStream) close() {
	s.stop()
	<-s.done
}

// streamWriter is the ResponseWriter of a background stream: it keeps what
// was written and signals every flush.
type streamWriter struct {
	header  http.Header
	flushed chan struct{}

	mu     sync.Mutex
	status int          // guarded by mu
	buf    bytes.Buffer // guarded by mu
}

func (w *streamWriter) Header() http.Header { return w.header }

func (w *streamWriter) WriteHeader(status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status == 0 {
		w.status = status
	}
}

func (w *streamWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *streamWriter) Flush() {
	select {
	case w.flushed <- struct{}{}:
	default:
	}
}

func (w *streamWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

var (
	// sseEndpointEvent is the first event of a legacy stream.
	sseEndpointEvent = regexp.MustCompile(`\Aevent: endpoint\ndata: ` + PathMessages + `\?session_id=([0-9a-f]{32})\n\n`)
	// sseMessageEvent is an answer on a stream.
	sseMessageEvent = regexp.MustCompile(`(?m)^event: message\ndata: \{.*\}\n\n`)
	// sseStreamEvents is a whole stream: the endpoint, then answers (one
	// line of JSON-RPC each) and keep-alives.
	sseStreamEvents = regexp.MustCompile(`\Aevent: endpoint\ndata: \S+\n\n(?:event: message\ndata: \{"[^\n]*\}\n\n|: keep-alive\n\n)*\z`)
)

// checkAnswer checks the status, headers and body of one answer against
// what front.go, sse.go and the SDK behind them can say.
func checkAnswer(t *testing.T, req *http.Request, resp *http.Response, body []byte, describe func() string) {
	t.Helper()
	status, path := resp.StatusCode, req.URL.Path
	ours := path == PathMCP || path == PathSSE || path == PathMessages
	switch status {
	case http.StatusOK, http.StatusAccepted, http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden,
		http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusRequestEntityTooLarge:
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		// The SSE transport's limits: streams per token, requests queued
		// per session.
		if !ours {
			t.Fatalf("HTTP %d outside the MCP paths\n%s", status, describe())
		}
	default:
		t.Fatalf("unexpected HTTP status %d\n%s", status, describe())
	}
	challenge := resp.Header.Get("WWW-Authenticate")
	if (status == http.StatusUnauthorized) != (challenge != "") {
		t.Fatalf("WWW-Authenticate %q on HTTP %d\n%s", challenge, status, describe())
	}
	if status == http.StatusUnauthorized && challenge != `Bearer realm="switchboard"` {
		t.Fatalf("WWW-Authenticate %q\n%s", challenge, describe())
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))

	switch {
	case status == http.StatusAccepted:
		// A notification, or a message for an SSE stream: accepted, the
		// answer (if any) goes elsewhere.
		if len(body) != 0 {
			t.Fatalf("HTTP 202 with a body\n%s", describe())
		}
		return
	case status == http.StatusOK && mediaType == "text/event-stream":
		// A legacy stream, opened by a GET: its first event names the
		// session's message URL.
		if req.Method != http.MethodGet || (path != PathMCP && path != PathSSE) || !sseEndpointEvent.Match(body) {
			t.Fatalf("unexpected event stream\n%s", describe())
		}
		return
	case status == http.StatusOK:
		var reply struct {
			JSONRPC string          `json:"jsonrpc"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if mediaType != "application/json" || json.Unmarshal(body, &reply) != nil || reply.JSONRPC != "2.0" || (reply.Result == nil) == (reply.Error == nil) {
			t.Fatalf("HTTP 200 is not one JSON-RPC response\n%s", describe())
		}
		return
	case status == http.StatusMethodNotAllowed:
		// front.go's own 405: a method other than POST on one of its
		// paths (a GET opens a stream only for a legacy client).
		if !ours || resp.Header.Get("Allow") != "POST" || string(body) != "Method Not Allowed\n" {
			t.Fatalf("HTTP 405 other than front.go's plain one\n%s", describe())
		}
		return
	case status == http.StatusNotFound && mediaType == "text/plain":
		// http.NotFound, for a path not served. An unknown JSON-RPC method
		// or SSE session is a JSON 404 instead.
		if ours || string(body) != "404 page not found\n" {
			t.Fatalf("plain HTTP 404 other than http.NotFound for an unknown path\n%s", describe())
		}
		return
	case mediaType == "text/plain":
		// The SDK's own refusals (an unsupported MCP-Protocol-Version, a
		// body it cannot decode, a missing id) are plain-text 400s.
		if status != http.StatusBadRequest {
			t.Fatalf("plain-text HTTP %d\n%s", status, describe())
		}
		return
	case mediaType != "application/json":
		t.Fatalf("HTTP %d with Content-Type %q\n%s", status, resp.Header.Get("Content-Type"), describe())
	}

	// A JSON error answer: one JSON-RPC error object, with an id (null
	// when the request's could not be read).
	var members map[string]json.RawMessage
	var reply struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
			Data    struct {
				Code store.Code `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := errors.Join(json.Unmarshal(body, &members), json.Unmarshal(body, &reply)); err != nil {
		t.Fatalf("HTTP %d application/json is not a JSON object: %v\n%s", status, err, describe())
	}
	if _, hasID := members["id"]; reply.JSONRPC != "2.0" || !hasID || reply.Result != nil || reply.Error == nil ||
		reply.Error.Code == nil || reply.Error.Message == nil {
		t.Fatalf("HTTP %d is not a JSON-RPC error object\n%s", status, describe())
	}
	code, rpcCode := reply.Error.Data.Code, *reply.Error.Code
	if code == "" {
		// The SDK answers its own SEP-2575 protocol errors (SPEC §4: header
		// mismatch -32020, unsupported version -32022; also missing client
		// capabilities -32021 and a missing _meta field -32602) with a
		// JSON-RPC error of its own, as HTTP 400 and without our data.code.
		// Nothing else may lack one.
		sdkProtocolErrors := []int64{-32020, -32021, -32022, -32602}
		if status != http.StatusBadRequest || !slices.Contains(sdkProtocolErrors, rpcCode) {
			t.Fatalf("HTTP %d JSON-RPC error %d without error.data.code\n%s", status, rpcCode, describe())
		}
		return
	}
	// writeError and writeStatusError: the JSON-RPC code follows from
	// data.code, and 401 goes with the token denials alone. writeError's
	// status follows from data.code too; the SSE transport (the message
	// URL, and the streams' limit) picks statuses of its own.
	// An unsupported older protocol version is -32022 with our code, as
	// the SDK answers the newer ones (writeVersionError).
	// The 2026-07-28 header rules, checked in front (checkMirroredHeaders),
	// answer with that revision's codes: -32020 for a header that disagrees
	// with the body, -32602 for a missing _meta version.
	versionRefused := rpcCode == -32022 && code == mcpserver.CodeInvalidRequest && status == http.StatusBadRequest
	headerRefused := (rpcCode == -32020 || rpcCode == -32602) && code == mcpserver.CodeInvalidRequest && status == http.StatusBadRequest
	if want := jsonrpcCode(code); rpcCode != want && !versionRefused && !headerRefused {
		t.Fatalf("data.code %s with error.code %d, want %d\n%s", code, rpcCode, want, describe())
	}
	if (status == http.StatusUnauthorized) != code.IsTokenDenial() {
		t.Fatalf("data.code %s with HTTP %d\n%s", code, status, describe())
	}
	sseOwn := path == PathMessages || status == http.StatusTooManyRequests
	if want := httpStatus(code); status != want && !sseOwn {
		t.Fatalf("data.code %s with HTTP %d, want %d\n%s", code, status, want, describe())
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("error answer with Cache-Control %q\n%s", cc, describe())
	}
}

// fuzzSeeds are FuzzHTTPFront's starting points: valid calls of every kind
// the handler serves, and the malformed, oversized, mismatched and
// unauthenticated requests it must refuse.
func fuzzSeeds() []fuzzInput {
	const (
		host    = "127.0.0.1:8080"
		version = "2025-06-18"
		// meta2026 is what a 2026-07-28 request carries in params._meta.
		meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"fuzz","version":"0"}}`
	)
	call := func(name, args string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`)
	}
	rpc := func(method string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`)
	}
	// post is a valid POST /mcp with the client token; each seed changes
	// what it is about.
	post := func(body []byte, change ...func(*fuzzInput)) fuzzInput {
		in := fuzzInput{method: http.MethodPost, path: PathMCP, host: host, authMode: authValid, protocolVersion: version, body: body}
		for _, c := range change {
			c(&in)
		}
		return in
	}
	withAuth := func(mode byte, auth string) func(*fuzzInput) {
		return func(in *fuzzInput) { in.authMode, in.auth = mode, auth }
	}
	v2026 := func(mcpMethod, mcpName string) func(*fuzzInput) {
		return func(in *fuzzInput) { in.protocolVersion, in.mcpMethod, in.mcpName = "2026-07-28", mcpMethod, mcpName }
	}
	toSession := func(in *fuzzInput) { in.path = PathMessages + "?session_id=" + sessionPlaceholder }
	deep := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	padded := func(n int) []byte {
		// A valid ping padded with spaces to exactly n bytes.
		p := rpc("ping")
		return append(p, bytes.Repeat([]byte(" "), n-len(p))...)
	}
	status := call("status", `{}`)
	status2026 := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","arguments":{},` + meta2026 + `}}`)
	initialize := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}`)

	return []fuzzInput{
		// What a client does.
		post(initialize),
		post(rpc("ping")),
		post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"repository_id":"repo_x"}}`)),
		post(rpc("resources/list")),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"switchboard://policies/current"}}`)),
		post(status),
		post(status, withAuth(authOther, "")),
		post(call("status", `{"repository_id":"repo_x"}`)),
		post(call("audit.query", `{"limit":1}`)),
		post(call("audit_query", `{"limit":1}`), withAuth(authOther, "")),
		post(call("nope", `{}`)),
		post(call("status", `[]`)),
		post(call("status", `{"unknown":1}`)),
		post(call("token_create", `{"label":"x","grants":[{"capability":"admin","repositories":["*"]}]}`)),
		post(call("token.create", `{}`)),
		post(call("token_client", `{}`)),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)),
		post([]byte(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"status"}}`)),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","repository_id":7}}`)),
		post(status, func(in *fuzzInput) { in.path = PathSSE }),
		post(status, func(in *fuzzInput) { in.protocolVersion = "" }),
		post(status, func(in *fuzzInput) { in.protocolVersion = "2024-11-05" }),
		post(status, func(in *fuzzInput) { in.protocolVersion = "1999-01-01" }),
		post(status, func(in *fuzzInput) { in.protocolVersion = "9999" }),

		// Malformed JSON, and JSON that is no request.
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"`)),
		post([]byte(`{`)),
		post(nil),
		post([]byte(`null`)),
		post([]byte(`"ping"`)),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"} {}`)),
		post([]byte(`{"jsonrpc":"2.0","id":1}`)),
		post([]byte(`{"jsonrpc":"1.0","id":1,"method":"ping"}`)),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":null}`)),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}`)),
		// Batches.
		post([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`)),
		post([]byte(`[]`)),
		// Deep nesting: at encoding/json's limit of 10000, past it, and
		// inside params past the SDK's limit of 1000.
		post(deep(10000)),
		post(deep(10001)),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + string(deep(1500)) + `}}`)),
		// Invalid UTF-8.
		post([]byte("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}")),
		post([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\xff\"}")),
		post([]byte("\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`)),
		// Ids.
		post([]byte(`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`)),
		post([]byte(`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`)),
		post([]byte(`{"jsonrpc":"2.0","id":-0.5,"method":"ping"}`)),
		post([]byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`)),
		post([]byte(`{"jsonrpc":"2.0","id":true,"method":"ping"}`)),
		post([]byte(`{"jsonrpc":"2.0","id":"` + strings.Repeat("9", 100000) + `","method":"ping"}`)),
		// Unknown methods, and keys the SDK reads differently from
		// encoding/json (which matches names in any case, and takes the
		// last of two).
		post(rpc("prompts/list")),
		post(rpc("server/discover")),
		post(rpc("")),
		post(rpc("Ping")),
		post([]byte(`{"jsonrpc":"2.0","id":1,"Method":"ping"}`)),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","method":"ping"}`)),
		// 2026-07-28: Mcp-Method and Mcp-Name against the body.
		post(status2026, v2026("tools/call", "status")),
		post(status2026, v2026("tools/list", "status")),
		post(status2026, v2026("tools/call", "audit_query")),
		post(status2026, v2026("", "")),
		post(status, v2026("tools/call", "status")),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta2026+`}}`), v2026("server/discover", "")),
		post(status, func(in *fuzzInput) { in.mcpMethod, in.mcpName = "ping", "x" }),
		// Oversize: just past the limit, and at it.
		post(padded(mcpserver.MaxBodyBytes + 1)),
		post(padded(mcpserver.MaxBodyBytes)),

		// Tokens.
		post(status, withAuth(authNone, "")),
		post(status, withAuth(authRaw, "Basic dXNlcjpwYXNz")),
		post(status, withAuth(authRaw, "Bearer ")),
		post(status, withAuth(authBearer, "garbage")),
		post(status, withAuth(authBearer, "sbt_0123456789abcdef_"+strings.Repeat("A", 43))),
		post(status, withAuth(authWrongSecret, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")),
		post(status, withAuth(authScheme, "bearer ")),
		post(status, withAuth(authScheme, "Bearer  ")),
		post(status, withAuth(authScheme, "Basic ")),
		post(status, withAuth(authSuffix, "x")),
		post(status, withAuth(authSuffix, " ")),
		post(status, func(in *fuzzInput) { in.authMode, in.path = authNone, PathMCP+"?access_token=x" }),

		// Host and Origin.
		post(status, func(in *fuzzInput) { in.host = "evil.example" }),
		post(status, func(in *fuzzInput) { in.host = "127.0.0.1.evil.example" }),
		post(status, func(in *fuzzInput) { in.host = "[::1]:8080" }),
		post(status, func(in *fuzzInput) { in.host = "localhost" }),
		post(status, func(in *fuzzInput) { in.host = "" }),
		post(status, func(in *fuzzInput) { in.host, in.authMode = "evil.example", authNone }),
		post(status, func(in *fuzzInput) { in.origin = "http://evil.example" }),
		post(status, func(in *fuzzInput) { in.origin = "null" }),
		post(status, func(in *fuzzInput) { in.origin = allowedOrigin }),
		post(status, func(in *fuzzInput) { in.origin = "http://localhost:3000" }),
		post(status, func(in *fuzzInput) { in.origin = "http://127.0.0.1:1/path" }),

		// Methods and paths.
		post(nil, func(in *fuzzInput) { in.method, in.protocolVersion = http.MethodGet, "" }),
		post(nil, func(in *fuzzInput) { in.method = http.MethodGet }),
		post(nil, func(in *fuzzInput) { in.method, in.path = http.MethodGet, PathSSE }),
		post(nil, func(in *fuzzInput) { in.method, in.path, in.authMode = http.MethodGet, PathSSE, authNone }),
		post(nil, func(in *fuzzInput) { in.method = http.MethodDelete }),
		post(nil, func(in *fuzzInput) { in.method = http.MethodOptions }),
		post(status, func(in *fuzzInput) { in.method = "BREW" }),
		post(status, func(in *fuzzInput) { in.path = "/" }),
		post(status, func(in *fuzzInput) { in.path = "/mcp/" }),
		post(status, func(in *fuzzInput) { in.path = "/MCP" }),

		// The legacy SSE transport's message URL: no session, an unknown
		// one, and a live one (see sessionPlaceholder) posted to by its
		// own token, by another, and by none.
		post(status, func(in *fuzzInput) { in.path = PathMessages }),
		post(status, func(in *fuzzInput) { in.path = PathMessages + "?session_id=0123456789abcdef0123456789abcdef" }),
		post(initialize, toSession),
		post(status, toSession),
		post(call("token_create", `{}`), toSession),
		post(rpc("server/discover"), toSession),
		post(rpc("foo/bar"), toSession),
		post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), toSession),
		post([]byte(`{"jsonrpc":"2.0","id":1,"Method":"ping"}`), toSession),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`), toSession),
		post([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"`), toSession),
		post(status, toSession, withAuth(authOther, "")),
		post(status, toSession, withAuth(authNone, "")),
	}
}
