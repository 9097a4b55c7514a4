package mcphttp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"

	"github.com/switchboard-dev/switchboard/store"
)

// The legacy HTTP+SSE transport (protocol 2024-11-05): a GET opens a stream
// whose first event names a per-session URL; the client POSTs JSON-RPC
// there, the POST is answered 202 at once, and the answer arrives later as a
// "message" event on the stream. Each POST still goes through the same
// stateless SDK server as POST /mcp, as the POST's own token.

const (
	// maxSSEStreamsPerKey bounds the streams one token keeps open.
	maxSSEStreamsPerKey = 16
	// sseQueueLen bounds the requests of one session that are running or
	// whose answers wait for the stream.
	sseQueueLen = 64
	// sseKeepAlive is how often an idle stream gets a comment, so proxies
	// and clients do not take it for dead.
	sseKeepAlive = 20 * time.Second
	// sseWriteTimeout bounds one write to the stream. The server's
	// WriteTimeout is for whole responses; a stream's deadline is moved on
	// before every write instead.
	sseWriteTimeout = 30 * time.Second
)

// Codes of this transport's own refusals, in error.data.code.
const (
	// codeSessionForbidden: a POST to a session another token opened.
	codeSessionForbidden store.Code = "session_forbidden"
	// codeTooManyStreams: the token already holds maxSSEStreamsPerKey
	// legacy streams, or maxFeedsPerKey replay feeds.
	codeTooManyStreams store.Code = "too_many_streams"
	// codeSessionBusy: the session already has sseQueueLen requests pending.
	codeSessionBusy store.Code = "session_busy"
)

// sseSessions are the open legacy HTTP+SSE streams.
type sseSessions struct {
	// keepAlive is the keep-alive period; tests shorten it before serving.
	keepAlive time.Duration

	mu sync.Mutex
	// byID are the open sessions by session id. Guarded by mu.
	byID map[string]*sseSession
	// perKey counts open sessions per token key id. Guarded by mu.
	perKey map[string]int
	// feedsPerKey counts open replay feeds (/events) per token key id,
	// apart from perKey: a viewer's feeds and an agent's legacy streams
	// must not take each other's places. Guarded by mu.
	feedsPerKey map[string]int
	// stopping holds, for each http.Server streams were opened on, a
	// channel closed when that server shuts down: Shutdown waits for
	// connections to go idle, which a stream never does by itself.
	// Guarded by mu.
	stopping map[*http.Server]chan struct{}
}

func newSSESessions() *sseSessions {
	return &sseSessions{
		keepAlive:   sseKeepAlive,
		byID:        map[string]*sseSession{},
		perKey:      map[string]int{},
		feedsPerKey: map[string]int{},
		stopping:    map[*http.Server]chan struct{}{},
	}
}

// sseSession is one open stream, bound to the token that opened it.
type sseSession struct {
	id    string
	keyID string
	// ctx ends when the stream does; the session's calls run under it.
	ctx    context.Context
	cancel context.CancelFunc
	// slots holds a token for every request running or queued; out has
	// room for all of them, so a finished call never blocks on it.
	slots chan struct{}
	out   chan []byte
}

// open registers a session for keyID on the stream r. It also returns the
// channel closed when r's server shuts down (nil when r has no server).
func (ss *sseSessions) open(r *http.Request, keyID string) (*sseSession, <-chan struct{}, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.perKey[keyID] >= maxSSEStreamsPerKey {
		return nil, nil, false
	}
	var b [16]byte
	rand.Read(b[:])
	ctx, cancel := context.WithCancel(r.Context())
	s := &sseSession{
		id: hex.EncodeToString(b[:]), keyID: keyID, ctx: ctx, cancel: cancel,
		slots: make(chan struct{}, sseQueueLen), out: make(chan []byte, sseQueueLen),
	}
	ss.byID[s.id] = s
	ss.perKey[keyID]++
	return s, ss.stoppingLocked(r), true
}

// stoppingLocked returns the shutdown channel of r's server, hooking it on
// first use. RegisterOnShutdown runs its functions in goroutines of their
// own, so calling it under ss.mu cannot deadlock with the hook.
func (ss *sseSessions) stoppingLocked(r *http.Request) <-chan struct{} {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return nil
	}
	ch, ok := ss.stopping[srv]
	if !ok {
		ch = make(chan struct{})
		ss.stopping[srv] = ch
		srv.RegisterOnShutdown(func() {
			ss.mu.Lock()
			defer ss.mu.Unlock()
			// Every Shutdown call runs the hooks again. The channel stays
			// closed: a stream opened late on this server ends at once.
			select {
			case <-ch:
			default:
				close(ch)
			}
		})
	}
	return ch
}

// close removes s and ends its context.
func (ss *sseSessions) close(s *sseSession) {
	s.cancel()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.byID, s.id)
	if ss.perKey[s.keyID]--; ss.perKey[s.keyID] <= 0 {
		delete(ss.perKey, s.keyID)
	}
}

// get returns the open session with this id, or nil.
func (ss *sseSessions) get(id string) *sseSession {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.byID[id]
}

// queue takes a slot for one more answer, reporting false when the
// session has sseQueueLen pending already.
func (s *sseSession) queue() bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// rpcIDKey is a JSON-RPC id in a form fit for a map key, or "" for none.
func rpcIDKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil || b.String() == "null" {
		return ""
	}
	return b.String()
}

// serveSSEStream opens a legacy (2024-11-05) HTTP+SSE stream.
func (h *HTTPHandler) serveSSEStream(w http.ResponseWriter, r *http.Request) {
	p, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	// The stream carries answers to the token's POSTs, each authorized on
	// its own; the stream itself must end too once the token is revoked or
	// expires, or its session ends, and not wait for the client to leave.
	alive, stop, ok := h.watchStream(w, r, p)
	if !ok {
		return
	}
	defer stop()
	s, stopping, ok := h.sse.open(r, p.KeyID)
	if !ok {
		writeStatusError(w, http.StatusTooManyRequests, nil, codeTooManyStreams,
			fmt.Sprintf("this token already holds %d open SSE streams; close one first", maxSSEStreamsPerKey))
		return
	}
	defer h.sse.close(s)

	rc := http.NewResponseController(w)
	// The server's ReadTimeout would otherwise expire under the stream and
	// cancel its context: after the headers, the server keeps reading only
	// to notice the client hanging up, which must be allowed to take hours.
	rc.SetReadDeadline(time.Time{})
	write := func(format string, args ...any) error {
		if err := rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return err
		}
		return rc.Flush()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	// nginx and friends buffer responses unless told not to.
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := write("event: endpoint\ndata: %s?session_id=%s\n\n", PathMessages, s.id); err != nil {
		h.log.Debug("sse stream not writable", "err", err)
		return
	}
	keepAlive := time.NewTicker(h.sse.keepAlive)
	defer keepAlive.Stop()
	for {
		var err error
		select {
		case <-alive.Done():
			if r.Context().Err() == nil {
				// The client is still there: the watcher ended the stream.
				h.log.Info("sse stream ended: its token or session is no longer live", "err", context.Cause(alive))
			}
			return
		case <-stopping:
			return
		case msg := <-s.out:
			<-s.slots
			err = write("event: message\ndata: %s\n\n", msg)
		case <-keepAlive.C:
			err = write(": keep-alive\n\n")
		}
		if err != nil {
			h.log.Debug("sse stream ended", "err", err)
			return
		}
	}
}

// serveSSEMessage takes a client message for an open SSE stream.
func (h *HTTPHandler) serveSSEMessage(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("session_id")
	if id == "" {
		writeStatusError(w, http.StatusNotFound, nil, mcpserver.CodeInvalidRequest,
			"session_id is required: POST to the URL of the stream's endpoint event")
		return
	}
	p, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	s := h.sse.get(id)
	if s == nil {
		writeStatusError(w, http.StatusNotFound, nil, mcpserver.CodeInvalidRequest,
			"no open SSE stream has this session_id; open a new stream")
		return
	}
	// The caller is always the POST's own token, and only the token that
	// opened the stream may post to it: reading another client's answers
	// is not something a valid token buys.
	if p.KeyID != s.keyID {
		writeStatusError(w, http.StatusForbidden, nil, codeSessionForbidden,
			"this SSE session belongs to another token")
		return
	}
	var refused bufferedResponse
	body, msg, ok := h.readMessage(&refused, r)
	if ok && *msg.Method == "server/discover" {
		// The stateless 2026-07-28 protocol needs per-request HTTP headers
		// this transport does not carry; refused, clients fall back to
		// initialize.
		writeError(&refused, msg.ID, store.Deny(store.CodeMethodUnknown, "server/discover is not served over HTTP+SSE; use initialize"))
		ok = false
	}
	if !ok {
		// An unknown method is an answer like any other, and a legacy
		// client reads answers on the stream: go-sdk's drops the whole
		// connection when a POST fails. What has no id to answer (bad JSON,
		// too large) fails the POST.
		if refused.status == http.StatusNotFound && rpcIDKey(msg.ID) != "" {
			h.queueSSE(w, s, msg.ID, refused.message(msg.ID))
			return
		}
		refused.copyTo(w)
		return
	}
	if !s.queue() {
		writeStatusError(w, http.StatusServiceUnavailable, msg.ID, codeSessionBusy,
			fmt.Sprintf("this SSE session already has %d requests pending; wait for answers", sseQueueLen))
		return
	}
	go h.runSSECall(s, r.Clone(s.ctx), body, msg.ID, caller{principal: p, transport: mcpserver.TransportMCPSSE, repositoryID: msg.Params.RepositoryID})
	w.WriteHeader(http.StatusAccepted)
}

// queueSSE sends answer to request id down s's stream and accepts the POST.
func (h *HTTPHandler) queueSSE(w http.ResponseWriter, s *sseSession, id json.RawMessage, answer []byte) {
	if !s.queue() {
		writeStatusError(w, http.StatusServiceUnavailable, id, codeSessionBusy,
			fmt.Sprintf("this SSE session already has %d requests pending; wait for answers", sseQueueLen))
		return
	}
	s.out <- answer
	w.WriteHeader(http.StatusAccepted)
}

// runSSECall runs one request through the SDK, as dispatch does for POST
// /mcp, and queues its answer for the stream. It holds one of s's slots,
// which the stream gives back once the answer is written.
//
// The call runs under the stream's context, not the POST's, which ends
// with the 202. (The SDK does not pass either one's cancellation on to
// tool handlers of pre-2026 protocol versions.)
func (h *HTTPHandler) runSSECall(s *sseSession, r *http.Request, body []byte, id json.RawMessage, c caller) {
	var rec bufferedResponse
	h.dispatch(&rec, r, body, c)
	msg := rec.message(id)
	if msg == nil {
		<-s.slots
		return
	}
	s.out <- msg
}

// bufferedResponse is an http.ResponseWriter that keeps the SDK's answer to
// send it on a stream.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header {
	if b.header == nil {
		b.header = http.Header{}
	}
	return b.header
}

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	return b.body.Write(p)
}

// copyTo sends the kept answer to w.
func (b *bufferedResponse) copyTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	w.WriteHeader(b.status)
	w.Write(b.body.Bytes())
}

// message returns the answer as one line of JSON for an SSE data field, or
// nil when there is none (a notification's 202). An answer that is not
// JSON-RPC (the SDK's plain-text HTTP errors) becomes a JSON-RPC error for
// request id.
func (b *bufferedResponse) message(id json.RawMessage) []byte {
	var line bytes.Buffer
	if b.body.Len() > 0 && json.Compact(&line, b.body.Bytes()) == nil && bytes.HasPrefix(line.Bytes(), []byte("{")) {
		return line.Bytes()
	}
	if rpcIDKey(id) == "" {
		return nil
	}
	reason := strings.TrimSpace(b.body.String())
	if reason == "" {
		reason = http.StatusText(b.status)
	}
	out, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   map[string]any{"code": -32603, "message": reason},
	})
	return out
}

// writeStatusError answers like writeError, with a status and code of this
// transport's own.
func writeStatusError(w http.ResponseWriter, status int, id json.RawMessage, code store.Code, reason string) {
	writeRPCError(w, status, id, jsonrpcCode(code), reason, map[string]any{"code": code})
}
