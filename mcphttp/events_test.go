package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/internal/coretest"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// eventsEnv serves a handler on /mcp and /events (as the daemon mounts it)
// over real loopback HTTP, with a registered repository and the client
// token.
type eventsEnv struct {
	*fixture
	repo      store.Repository
	h         *HTTPHandler
	base      string
	tr        *http.Transport
	client    store.Token
	clientRaw string
	// ended receives once for every feed the handler has returned from, so
	// a test can wait for a feed's end instead of sleeping.
	ended chan struct{}
}

func newEventsEnv(t *testing.T, configure func(*HTTPHandler)) *eventsEnv {
	t.Helper()
	e := &eventsEnv{fixture: newFixture(t), ended: make(chan struct{}, 1000)}
	e.repo = e.registerRepo(t, t.TempDir())
	e.client, e.clientRaw = e.createClientToken(t)
	e.h = NewHTTPHandler(e.reg, HTTPOptions{Version: testVersion, Log: e.log})
	if configure != nil {
		configure(e.h)
	}
	srv := httptest.NewServer(e.mux())
	t.Cleanup(srv.Close)
	e.base = srv.URL
	e.tr = &http.Transport{}
	t.Cleanup(e.tr.CloseIdleConnections)
	return e
}

func (e *eventsEnv) mux() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", e.h)
	// The legacy streams, for the tests that hold both kinds of stream to
	// the same rules.
	mux.Handle("/mcp/", e.h)
	mux.Handle("/events", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.h.ServeHTTP(w, r)
		e.ended <- struct{}{}
	}))
	return mux
}

func (e *eventsEnv) agent(t *testing.T, raw string) *agent {
	return &agent{t, e.base + PathMCP, raw}
}

// startSession registers an external session for the client token: three
// trace events (session_open, report, tool_call).
func (e *eventsEnv) startSession(t *testing.T) string {
	t.Helper()
	return e.agent(t, e.clientRaw).ok("session_report", map[string]any{"kind": "ready", "repository_id": e.repo.ID})["session_id"].(string)
}

// heartbeat sends one session.report heartbeat over HTTP as token raw: two
// trace events (report, tool_call). Unlike agent.ok it reports failure as
// an error, for goroutines.
func (e *eventsEnv) heartbeat(raw, ses string, n int) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": "session_report", "arguments": map[string]any{"kind": "heartbeat", "session_id": ses, "text": fmt.Sprintf("step %d", n)},
	}})
	req, _ := http.NewRequest(http.MethodPost, e.base+PathMCP, strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+raw)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := (&http.Client{Transport: e.tr}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `"ok":true`) {
		return fmt.Errorf("heartbeat: HTTP %d: %s", resp.StatusCode, b)
	}
	return nil
}

// heartbeats sends n heartbeats from 8 agents at once (group commit takes
// them in batches).
func (e *eventsEnv) heartbeats(t *testing.T, ses string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				if err := e.heartbeat(e.clientRaw, ses, i); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// stored returns the session's whole trace as the feed must send it: each
// event's JSON, in order.
func (e *eventsEnv) stored(t *testing.T, ses string) []string {
	t.Helper()
	var out []string
	e.view(t, func(tx *store.Tx) error {
		var after uint64
		for {
			evs, err := tx.TraceEvents(ses, after, 1000)
			if err != nil || len(evs) == 0 {
				return err
			}
			for _, ev := range evs {
				b, err := json.Marshal(&ev)
				if err != nil {
					return err
				}
				out = append(out, string(b))
			}
			after = evs[len(evs)-1].Seq
		}
	})
	return out
}

func (e *eventsEnv) lastSeq(t *testing.T, ses string) uint64 {
	t.Helper()
	var n uint64
	e.view(t, func(tx *store.Tx) error { n = tx.LastTraceSeq(ses); return nil })
	return n
}

// feed is an open replay feed read event by event.
type feed struct {
	t     *testing.T
	resp  *http.Response
	rd    *bufio.Reader
	close func()
}

// feedEvent is one server-sent event; comment holds a comment line's text.
type feedEvent struct {
	id, name, data, comment string
}

// get sends GET path with token raw (none when empty) and extra headers.
// The request ends with the test, or when the returned function is called.
func (e *eventsEnv) get(t *testing.T, raw, path string, header map[string]string) (*http.Response, func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if raw != "" {
		req.Header.Set("Authorization", "Bearer "+raw)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: e.tr}).Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET %s: %v", path, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, func() { cancel(); resp.Body.Close() }
}

// open opens the feed of ses after lastID ("" for the start), sent as
// Last-Event-ID, and checks the answer's headers.
func (e *eventsEnv) open(t *testing.T, raw, ses, lastID string) *feed {
	t.Helper()
	var header map[string]string
	if lastID != "" {
		header = map[string]string{"Last-Event-ID": lastID}
	}
	return e.openPath(t, raw, PathEvents+"?session_id="+ses, header)
}

func (e *eventsEnv) openPath(t *testing.T, raw, path string, header map[string]string) *feed {
	t.Helper()
	resp, cancel := e.get(t, raw, path, header)
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: HTTP %d: %s", path, resp.StatusCode, body)
	}
	for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("GET %s: %s %q, want %q", path, k, got, want)
		}
	}
	return &feed{t: t, resp: resp, rd: bufio.NewReader(resp.Body), close: cancel}
}

// read reads one event or comment, reporting a broken stream as an error
// (it runs in goroutines too).
func (f *feed) read() (feedEvent, error) {
	var ev feedEvent
	for {
		line, err := f.rd.ReadString('\n')
		if err != nil {
			return ev, fmt.Errorf("reading the feed: %w (partial %+v)", err, ev)
		}
		line = strings.TrimSuffix(line, "\n")
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch {
		case line == "":
			return ev, nil
		case field == "":
			ev.comment = value
		case field == "id":
			ev.id = value
		case field == "event":
			ev.name = value
		case field == "data":
			if ev.data != "" {
				return ev, fmt.Errorf("an event with more than one data line: %q, %q", ev.data, value)
			}
			ev.data = value
		default:
			return ev, fmt.Errorf("unexpected line %q", line)
		}
	}
}

// event reads the next trace event, skipping keep-alives, and checks that
// its id and name are the seq and type of its data.
func (f *feed) event() feedEvent {
	f.t.Helper()
	ev, err := f.nextEvent()
	if err != nil {
		f.t.Fatal(err)
	}
	return ev
}

func (f *feed) nextEvent() (feedEvent, error) {
	for {
		ev, err := f.read()
		if err != nil {
			return ev, err
		}
		if ev.comment == "keep-alive" && ev.id == "" && ev.name == "" && ev.data == "" {
			continue
		}
		var te store.TraceEvent
		if err := json.Unmarshal([]byte(ev.data), &te); err != nil {
			return ev, fmt.Errorf("event data is not a trace event: %v: %+v", err, ev)
		}
		if ev.id != strconv.FormatUint(te.Seq, 10) || ev.name != string(te.Type) || ev.comment != "" {
			return ev, fmt.Errorf("event %+v: id and name must be the data's seq and type", ev)
		}
		return ev, nil
	}
}

// eventWithin reads the next trace event, failing the test unless it
// arrives within d.
func (f *feed) eventWithin(d time.Duration) feedEvent {
	f.t.Helper()
	type got struct {
		ev  feedEvent
		err error
	}
	ch := make(chan got, 1)
	go func() {
		ev, err := f.nextEvent()
		ch <- got{ev, err}
	}()
	select {
	case g := <-ch:
		if g.err != nil {
			f.t.Fatal(g.err)
		}
		return g.ev
	case <-time.After(d):
		f.close()
		f.t.Fatalf("no event within %s", d)
		return feedEvent{}
	}
}

// waitEnded waits until n feeds have ended on the server side.
func (e *eventsEnv) waitEnded(t *testing.T, n int) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for i := range n {
		select {
		case <-e.ended:
		case <-timeout:
			t.Fatalf("only %d of %d feeds ended on the server", i, n)
		}
	}
}

// waitParked waits until a feed of ses waits for a signal.
func (e *eventsEnv) waitParked(t *testing.T, ses string) {
	t.Helper()
	waitParked(t, e.reg, mcpserver.TraceKey(ses), "the feed to wait")
}

// feedAudits returns the trace.read audit records, oldest first.
func (e *eventsEnv) feedAudits(t *testing.T) []store.AuditRecord {
	t.Helper()
	var out []store.AuditRecord
	for _, r := range e.audit(t) {
		if r.Method == "trace.read" {
			out = append(out, r)
		}
	}
	return out
}

// session300 makes a session whose trace holds exactly 300 events, all from
// calls of the client token over HTTP: ready (3), 148 heartbeats (2 each)
// and a refused report (a denial).
func (e *eventsEnv) session300(t *testing.T) string {
	t.Helper()
	ses := e.startSession(t)
	e.heartbeats(t, ses, 148)
	e.agent(t, e.clientRaw).denied("session_report", map[string]any{"kind": "bogus", "session_id": ses}, store.CodeInvalidArgument)
	if n := e.lastSeq(t, ses); n != 300 {
		t.Fatalf("the session has %d trace events, want 300", n)
	}
	return ses
}

// The whole trace, read in one go, is the stored one, byte for byte.
func TestEventsWholeFeed(t *testing.T) {
	e := newEventsEnv(t, nil)
	ses := e.session300(t)
	want := e.stored(t, ses)

	f := e.open(t, e.clientRaw, ses, "")
	types := map[string]int{}
	for i := range want {
		ev := f.event()
		if ev.data != want[i] {
			t.Fatalf("event %d: %s, want %s", i+1, ev.data, want[i])
		}
		types[ev.name]++
	}
	if types["session_open"] != 1 || types["report"] != 149 || types["tool_call"] != 149 || types["denial"] != 1 {
		t.Errorf("event types %v", types)
	}
	f.close()
	e.waitEnded(t, 1)
	if n := e.lastSeq(t, ses); n != 300 {
		t.Errorf("reading the feed changed the trace: %d events", n)
	}
}

// The replay test: a client that leaves at random points and comes
// back with Last-Event-ID (or ?after_seq=) set to the last id it saw gets,
// over all its connections, the stored sequence exactly: no gap, no
// duplicate, nothing out of order.
func TestEventsReplayRandomDisconnects(t *testing.T) {
	e := newEventsEnv(t, nil)
	ses := e.session300(t)
	want := e.stored(t, ses)

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	var got []string
	last := ""
	const disconnects = 50
	for i := range disconnects + 1 {
		var f *feed
		if i%2 == 0 || last == "" {
			f = e.open(t, e.clientRaw, ses, last)
		} else {
			f = e.openPath(t, e.clientRaw, PathEvents+"?session_id="+ses+"&after_seq="+last, nil)
		}
		n := rng.IntN(11) // 0..10: some connections leave before any event
		if i == disconnects {
			n = len(want) - len(got)
		}
		for range min(n, len(want)-len(got)) {
			ev := f.event()
			got = append(got, ev.data)
			last = ev.id
		}
		f.close()
	}
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d: %s, want %s", i+1, got[i], want[i])
		}
	}
	// Every connection ended on the server when its client left, each was
	// audited once, and none added to the trace it read.
	e.waitEnded(t, disconnects+1)
	recs := e.feedAudits(t)
	if len(recs) != disconnects+1 {
		t.Errorf("%d trace.read audit records for %d connections", len(recs), disconnects+1)
	}
	for _, r := range recs {
		if r.Outcome != "ok" || r.KeyID != e.client.KeyID || r.Transport != string(mcpserver.TransportMCP) {
			t.Errorf("audit record %+v", r)
		}
	}
	if n := e.lastSeq(t, ses); n != 300 {
		t.Errorf("reading the feed changed the trace: %d events", n)
	}
}

// A reader at the end of the trace gets what is appended next, woken by
// the commit; an append no call signals (the store's own) arrives by the
// fallback poll.
func TestEventsLiveTail(t *testing.T) {
	e := newEventsEnv(t, nil)
	ses := e.startSession(t)
	f := e.open(t, e.clientRaw, ses, "3")
	e.waitParked(t, ses)

	if err := e.heartbeat(e.clientRaw, ses, 1); err != nil {
		t.Fatal(err)
	}
	for _, wantType := range []string{"report", "tool_call"} {
		if ev := f.eventWithin(2 * time.Second); ev.name != wantType {
			t.Fatalf("live event %+v, want %s", ev, wantType)
		}
	}

	e.update(t, func(tx *store.Tx) error {
		_, err := tx.AppendTrace(ses, store.TraceEvent{Type: store.TraceLeaseExpired, PacketID: "pkt_x"})
		return err
	})
	if ev := f.eventWithin(2 * time.Second); ev.id != "6" || ev.name != "lease_expired" {
		t.Fatalf("unsignalled event %+v, want lease_expired with id 6", ev)
	}
	want := e.stored(t, ses)
	if len(want) != 6 {
		t.Fatalf("%d stored events, want 6", len(want))
	}
}

// One connection is authorized and audited once, by trace.read, however
// many pages it reads (500 a transaction) and however long it tails.
func TestEventsAuditedOncePerConnection(t *testing.T) {
	e := newEventsEnv(t, nil)
	ses := e.startSession(t)
	e.heartbeats(t, ses, 600) // 1203 events: three pages
	want := e.stored(t, ses)
	if len(want) != 1203 {
		t.Fatalf("%d stored events", len(want))
	}
	before := len(e.audit(t))

	f := e.open(t, e.clientRaw, ses, "")
	for i := range want {
		if ev := f.event(); ev.data != want[i] {
			t.Fatalf("event %d: %s, want %s", i+1, ev.data, want[i])
		}
	}
	e.waitParked(t, ses)
	if err := e.heartbeat(e.clientRaw, ses, 1); err != nil {
		t.Fatal(err)
	}
	f.eventWithin(2 * time.Second)
	f.eventWithin(2 * time.Second)
	f.close()
	e.waitEnded(t, 1)

	recs := e.audit(t)[before:]
	if len(recs) != 2 || recs[0].Method != "trace.read" || recs[0].Outcome != "ok" || recs[1].Method != "session.report" {
		t.Fatalf("audit records after the feed opened: %+v", recs)
	}
}

// Refusals answer with a JSON-RPC error body, data.code and the status a
// GET expects; those of trace.read are audited.
func TestEventsRefusals(t *testing.T) {
	e := newEventsEnv(t, nil)
	ses := e.startSession(t)
	other := e.registerRepo(t, t.TempDir())
	_, noAudit := e.createToken(t, store.TokenSpec{Label: "no audit", Grants: []store.Grant{
		{Capability: store.CapWorkRead, Repositories: []string{"*"}}, {Capability: store.CapSessionReport, Repositories: []string{"*"}},
	}})
	_, elsewhere := e.createToken(t, store.TokenSpec{Label: "other repo", Grants: []store.Grant{{Capability: store.CapAuditRead, Repositories: []string{other.ID}}}})
	path := PathEvents + "?session_id=" + ses

	cases := []struct {
		name   string
		raw    string
		path   string
		header map[string]string
		status int
		code   store.Code
	}{
		{"no token", "", path, nil, http.StatusUnauthorized, store.CodeTokenMissing},
		{"token in the query", "", path + "&access_token=" + e.clientRaw, nil, http.StatusUnauthorized, store.CodeTokenMissing},
		{"no audit:read", noAudit, path, nil, http.StatusForbidden, store.CodeCapabilityMissing},
		{"audit:read on another repository", elsewhere, path, nil, http.StatusForbidden, store.CodeCapabilityScopeMismatch},
		{"unknown session", e.clientRaw, PathEvents + "?session_id=ses_nothing", nil, http.StatusNotFound, store.CodeNotFound},
		{"no session", e.clientRaw, PathEvents, nil, http.StatusBadRequest, store.CodeInvalidArgument},
		{"bad Last-Event-ID", e.clientRaw, path, map[string]string{"Last-Event-ID": "x7"}, http.StatusBadRequest, mcpserver.CodeInvalidRequest},
		{"bad after_seq", e.clientRaw, path + "&after_seq=-1", nil, http.StatusBadRequest, mcpserver.CodeInvalidRequest},
		{"after the last event", e.clientRaw, path + "&after_seq=1000", nil, http.StatusBadRequest, store.CodeInvalidArgument},
		{"foreign Host", e.clientRaw, path, map[string]string{"Host": "evil.example"}, http.StatusForbidden, mcpserver.CodeHostForbidden},
		{"foreign Origin", e.clientRaw, path, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden, mcpserver.CodeOriginForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, e.base+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.raw != "" {
				req.Header.Set("Authorization", "Bearer "+c.raw)
			}
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			// The client sends req.Host, never a Host header.
			req.Host = c.header["Host"]
			resp, err := (&http.Client{Transport: e.tr}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status {
				t.Errorf("HTTP %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if ch := resp.Header.Get("WWW-Authenticate"); (c.status == http.StatusUnauthorized) != (ch == `Bearer realm="switchboard"`) {
				t.Errorf("WWW-Authenticate %q on HTTP %d", ch, resp.StatusCode)
			}
			var reply rpcReply
			if err := json.Unmarshal(body, &reply); err != nil || reply.JSONRPC != "2.0" || reply.Error == nil {
				t.Fatalf("not a JSON-RPC error: %v: %s", err, body)
			}
			if reply.Error.Data.Code != c.code || reply.Error.Message == "" {
				t.Errorf("error %+v, want data.code %s", reply.Error, c.code)
			}
			if strings.Contains(string(body), e.clientRaw) {
				t.Error("the answer holds the token")
			}
		})
	}
	e.waitEnded(t, len(cases))

	// Only trace.read's own refusals reach the audit log: authentication,
	// malformed resume points, Host and Origin are the front layer's.
	var outcomes []string
	for _, r := range e.feedAudits(t) {
		outcomes = append(outcomes, r.Outcome)
	}
	if got, want := strings.Join(outcomes, " "), "capability_missing capability_scope_mismatch not_found invalid_argument invalid_argument"; got != want {
		t.Errorf("trace.read audit outcomes %q, want %q", got, want)
	}

	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, e.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+e.clientRaw)
	resp, err := (&http.Client{Transport: e.tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET" {
		t.Errorf("POST %s: HTTP %d, Allow %q", path, resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// Last-Event-ID wins over ?after_seq=, as a reconnecting EventSource keeps
// the URL it was opened with.
func TestEventsLastEventIDWins(t *testing.T) {
	e := newEventsEnv(t, nil)
	ses := e.startSession(t)
	e.heartbeats(t, ses, 2)
	f := e.openPath(t, e.clientRaw, PathEvents+"?session_id="+ses+"&after_seq=1", map[string]string{"Last-Event-ID": "4"})
	if ev := f.event(); ev.id != "5" {
		t.Fatalf("first event %+v, want id 5", ev)
	}
}

// serveDaemonLike serves e's mux on the daemon's http.Server, or one with
// the given timeouts when d is not zero, and returns it.
func (e *eventsEnv) serveDaemonLike(t *testing.T, d time.Duration) *http.Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(e.mux(), e.log)
	if d != 0 {
		srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout = d, d, d
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	e.base = "http://" + ln.Addr().String()
	return srv
}

// A feed kept alive outlives the server's read and write timeouts and still
// carries new events.
func TestEventsOutlivesServerTimeouts(t *testing.T) {
	e := newEventsEnv(t, func(h *HTTPHandler) { h.sse.keepAlive = 10 * time.Millisecond })
	const timeout = 100 * time.Millisecond
	// Only the feed goes through the server with the short timeouts: the
	// calls around it go through the test's plain server, as a call that
	// takes longer than 100 ms under load (the PostgreSQL run of make
	// test, beside team mode's daemons) was cut by the write timeout
	// ("Post …: EOF"), which is not what this test is about.
	plain := e.base
	e.serveDaemonLike(t, timeout)
	timed := e.base
	e.base = plain
	ses := e.startSession(t)

	e.base = timed
	f := e.open(t, e.clientRaw, ses, "3")
	e.base = plain
	start := time.Now()
	keepAlives := 0
	for time.Since(start) < 10*timeout {
		ev, err := f.read()
		if err != nil {
			t.Fatal(err)
		}
		if ev.comment != "keep-alive" || ev.id != "" || ev.name != "" || ev.data != "" {
			t.Fatalf("event %+v, want a keep-alive comment", ev)
		}
		keepAlives++
	}
	t.Logf("%d keep-alives in %s", keepAlives, time.Since(start).Round(time.Millisecond))
	if err := e.heartbeat(e.clientRaw, ses, 1); err != nil {
		t.Fatal(err)
	}
	if ev := f.event(); ev.id != "4" {
		t.Fatalf("event %+v, want id 4", ev)
	}
}

// Shutdown ends the feeds rather than waiting for them forever.
func TestEventsServerShutdown(t *testing.T) {
	e := newEventsEnv(t, nil)
	srv := e.serveDaemonLike(t, 0)
	ses := e.startSession(t)
	f := e.open(t, e.clientRaw, ses, "")
	for range 3 {
		f.event()
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a feed open: %v", err)
	}
	if _, err := f.read(); err == nil {
		t.Error("the feed goes on after Shutdown")
	}
	e.waitEnded(t, 1)
}

// rpcErrorCode returns data.code of a JSON-RPC error from the go-sdk client.
func rpcErrorCode(t *testing.T, err error) store.Code {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("error %v (%T) is not a JSON-RPC error", err, err)
	}
	var data struct {
		Code    store.Code `json:"code"`
		AuditID string     `json:"audit_id"`
	}
	if err := json.Unmarshal(we.Data, &data); err != nil {
		t.Fatalf("error data %s: %v", we.Data, err)
	}
	return data.Code
}

// The packet and session resources, read through a go-sdk client: what
// they hold, that they hold no token material, and that a token without
// the capability (or without it on the repository) reads nothing.
func TestWorkResources(t *testing.T) {
	e := newHTTPEnv(t)
	repo := e.registerRepo(t, t.TempDir())
	other := e.registerRepo(t, t.TempDir())
	a := &agent{t, e.url, e.clientRaw}
	pkt := e.createPacket(t, repo.ID, map[string]any{"expected_artifacts": []map[string]string{{"name": "report", "kind": "markdown"}}})
	ses := a.ok("session_report", map[string]any{"kind": "ready", "repository_id": repo.ID})["session_id"].(string)
	lease := a.ok("work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": ses, "wait_seconds": 1})["lease_id"].(string)
	a.ok("artifact_publish", map[string]any{"packet_id": pkt, "session_id": ses, "lease_id": lease, "name": "report", "kind": "markdown", "content": "# done"})
	for i := range 55 {
		a.ok("session_report", map[string]any{"kind": "heartbeat", "session_id": ses, "text": fmt.Sprintf("step %d", i)})
	}

	cs := e.connect(t, e.clientRaw)
	tmpls, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tm := range tmpls.ResourceTemplates {
		listed[tm.URITemplate] = true
	}
	if !listed["switchboard://packets/{id}"] || !listed["switchboard://sessions/{id}"] {
		t.Errorf("templates listed: %v", listed)
	}

	read := func(cs *mcp.ClientSession, uri string, v any) string {
		t.Helper()
		res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "application/json" {
			t.Fatalf("read %s: contents %+v", uri, res.Contents)
		}
		text := res.Contents[0].Text
		if err := json.Unmarshal([]byte(text), v); err != nil {
			t.Fatalf("read %s: %v: %s", uri, err, text)
		}
		for _, s := range []string{e.clientRaw, coretest.SecretOf(t, e.clientRaw), "sbt_"} {
			if strings.Contains(text, s) {
				t.Errorf("read %s: holds token material", uri)
			}
		}
		return text
	}

	var pr mcpserver.PacketResource
	read(cs, "switchboard://packets/"+pkt, &pr)
	if pr.Packet.ID != pkt || pr.Packet.RepositoryID != repo.ID || pr.Packet.State != store.PacketClaimed {
		t.Errorf("packet %+v", pr.Packet)
	}
	if len(pr.Artifacts) != 1 || pr.Artifacts[0].Name != "report" || pr.Artifacts[0].Content == nil || *pr.Artifacts[0].Content != "# done" {
		t.Errorf("artifacts %+v", pr.Artifacts)
	}

	var sr mcpserver.SessionResource
	read(cs, "switchboard://sessions/"+ses, &sr)
	if sr.Session.ID != ses || sr.Session.TokenKeyID != e.client.KeyID || sr.Session.RepositoryID != repo.ID {
		t.Errorf("session %+v", sr.Session)
	}
	// 56 reports (ready and 55 heartbeats): the newest 50.
	if len(sr.Reports) != 50 || sr.Reports[0].Text != "step 5" || sr.Reports[49].Text != "step 54" {
		t.Errorf("%d reports, from %+v", len(sr.Reports), sr.Reports[0])
	}
	for i := 1; i < len(sr.Reports); i++ {
		if sr.Reports[i].Seq <= sr.Reports[i-1].Seq {
			t.Errorf("report %d has seq %d after %d", i, sr.Reports[i].Seq, sr.Reports[i-1].Seq)
		}
	}
	var lastSeq uint64
	e.view(t, func(tx *store.Tx) error { lastSeq = tx.LastTraceSeq(ses); return nil })
	if sr.TraceLastSeq != lastSeq || uint64(len(sr.TraceEvents)) != lastSeq {
		t.Errorf("%d trace events, last seq %d; the store has %d", len(sr.TraceEvents), sr.TraceLastSeq, lastSeq)
	}
	for i, ev := range sr.TraceEvents {
		if ev.Seq != uint64(i+1) || ev.SessionID != ses {
			t.Fatalf("trace event %d: %+v", i, ev)
		}
	}
	if sr.TraceEvents[0].Type != store.TraceSessionOpen {
		t.Errorf("first trace event %+v", sr.TraceEvents[0])
	}
	// Report events name their report, without its text.
	reportEvents := 0
	for _, ev := range sr.TraceEvents {
		if ev.Type == store.TraceReport {
			reportEvents++
			if ev.Report == nil || ev.Report.ID == "" || ev.Report.Text != "" {
				t.Errorf("report event %+v in the resource", ev.Report)
			}
		}
	}
	if reportEvents != 56 {
		t.Errorf("%d report events in the resource, want 56", reportEvents)
	}
	// Reads are audited, as calls.
	var methods []string
	for _, r := range e.audit(t) {
		if strings.HasPrefix(r.Method, "resource.") && r.Outcome == "ok" {
			methods = append(methods, r.Method)
		}
	}
	if strings.Join(methods, " ") != "resource.packet resource.session" {
		t.Errorf("resource reads audited: %v", methods)
	}

	// Tokens that may not read them.
	_, workOnly := e.createToken(t, store.TokenSpec{Label: "work only", Grants: []store.Grant{{Capability: store.CapWorkRead, Repositories: []string{"*"}}}})
	_, otherRepo := e.createToken(t, store.TokenSpec{Label: "other repo", Grants: []store.Grant{
		{Capability: store.CapWorkRead, Repositories: []string{other.ID}}, {Capability: store.CapAuditRead, Repositories: []string{other.ID}},
	}})
	for _, c := range []struct {
		name string
		raw  string
		uri  string
		code store.Code
	}{
		{"packet without work:read", e.auditRaw, "switchboard://packets/" + pkt, store.CodeCapabilityMissing},
		{"session without audit:read", workOnly, "switchboard://sessions/" + ses, store.CodeCapabilityMissing},
		{"packet of another repository", otherRepo, "switchboard://packets/" + pkt, store.CodeCapabilityScopeMismatch},
		{"session of another repository", otherRepo, "switchboard://sessions/" + ses, store.CodeCapabilityScopeMismatch},
		{"unknown packet", e.clientRaw, "switchboard://packets/pkt_nothing", store.CodeNotFound},
		{"unknown session", e.clientRaw, "switchboard://sessions/ses_nothing", store.CodeNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.connect(t, c.raw).ReadResource(t.Context(), &mcp.ReadResourceParams{URI: c.uri})
			if err == nil {
				t.Fatalf("read %s: %+v", c.uri, res)
			}
			if got := rpcErrorCode(t, err); got != c.code {
				t.Errorf("read %s: %s, want %s", c.uri, got, c.code)
			}
		})
	}
}
