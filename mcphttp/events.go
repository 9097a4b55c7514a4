package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"

	"github.com/switchboard-dev/switchboard/store"
)

// The replay feed (SPEC §5): GET /events?session_id=ses_… streams a
// session's trace events as server-sent events, from a resume point on, then
// follows the new ones live. Each event is
//
//	id: <seq>
//	event: <type>
//	data: <the TraceEvent as one line of JSON>
//
// A client that reconnects with Last-Event-ID (or ?after_seq=) set to the
// last id it saw gets exactly the events after it, in order: sequence
// numbers are gap-free, so "strictly after" loses nothing and repeats
// nothing.
//
// The connection is authorized and audited once, by the trace.read call
// that returns its first page; the pages after it are plain reads, as the
// pages of one long answer.

// PathEvents is the replay feed's path.
const PathEvents = "/events"

const (
	// maxFeedsPerKey bounds the feeds one token keeps open, as
	// maxSSEStreamsPerKey bounds its legacy streams: each open feed holds a
	// goroutine, a connection and a watcher of its token.
	maxFeedsPerKey = 16
	// tracePoll is how often a waiting feed looks again without a signal.
	// Not every append is signalled (a lease that expires under the
	// daemon's timer belongs to no call of the session), so a feed also
	// polls; signals make it prompt, the poll makes it complete.
	tracePoll = time.Second
)

// serveEvents serves the replay feed of one session.
func (h *HTTPHandler) serveEvents(w http.ResponseWriter, r *http.Request) {
	p, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	after, d := resumePoint(r)
	if d != nil {
		writeError(w, nil, d)
		return
	}
	// The place is taken before trace.read, so that a token at its cap
	// costs no audited call per refused GET.
	if !h.sse.openFeed(p.KeyID) {
		writeStatusError(w, http.StatusTooManyRequests, nil, codeTooManyStreams,
			fmt.Sprintf("this token already holds %d open event feeds; close one first", maxFeedsPerKey))
		return
	}
	defer h.sse.closeFeed(p.KeyID)
	// trace.read authorizes the token once, for the whole connection; the
	// feed must still end once the token is revoked or expires, or its
	// session ends.
	alive, stop, ok := h.watchStream(w, r, p)
	if !ok {
		return
	}
	defer stop()
	sessionID := r.URL.Query().Get("session_id")
	args, _ := json.Marshal(mcpserver.TraceReadArgs{SessionID: sessionID, AfterSeq: after})
	// Agents and the GUI's viewers reach the feed with the same bearer
	// tokens as /mcp, so the call is MCP's: hidden methods fail closed.
	res := h.reg.Invoke(r.Context(), p, mcpserver.TransportMCP, "trace.read", args)
	if res.Err != nil {
		writeFeedError(w, &res)
		return
	}
	first, _ := res.Value.(mcpserver.TraceReadResult)
	stopping := h.sse.shutdownOf(r)

	rc := http.NewResponseController(w)
	// As on the legacy stream: after the headers the server reads only to
	// notice the client leaving, which may take hours.
	rc.SetReadDeadline(time.Time{})
	sw := sseWriter{w: w, rc: rc}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := sw.write(nil); err != nil {
		h.log.Debug("events feed not writable", "err", err)
		return
	}
	keepAlive := time.NewTicker(h.sse.keepAlive)
	defer keepAlive.Stop()
	poll := time.NewTimer(tracePoll)
	defer poll.Stop()

	page := first.Events
	for {
		if alive.Err() != nil {
			// Checked on every page too: a feed catching up on a long
			// trace does not wait, and would not notice otherwise.
			h.feedEnded(r, alive, sessionID)
			return
		}
		if len(page) > 0 {
			if err := sw.events(page); err != nil {
				h.log.Debug("events feed ended", "session", sessionID, "err", err)
				return
			}
			after = page[len(page)-1].Seq
		}
		// The channel is taken before the read: an append committed after
		// the read closes it, so no wake-up falls between the two.
		wake := h.reg.TraceChanged(sessionID)
		var err error
		if page, err = h.reg.TracePage(r.Context(), sessionID, after); err != nil {
			h.log.Error("events feed read failed", "session", sessionID, "err", err)
			return
		}
		if len(page) > 0 {
			continue
		}
		poll.Reset(tracePoll)
	wait:
		for {
			select {
			case <-wake:
				break wait
			case <-poll.C:
				break wait
			case <-keepAlive.C:
				if err := sw.write([]byte(": keep-alive\n\n")); err != nil {
					h.log.Debug("events feed ended", "session", sessionID, "err", err)
					return
				}
			case <-alive.Done():
				h.feedEnded(r, alive, sessionID)
				return
			case <-stopping:
				return
			}
		}
	}
}

// feedEnded logs a feed that the watcher of its token ended; a client that
// left is not worth a line.
func (h *HTTPHandler) feedEnded(r *http.Request, alive context.Context, sessionID string) {
	if r.Context().Err() == nil {
		h.log.Info("events feed ended: its token or session is no longer live", "session", sessionID, "err", context.Cause(alive))
	}
}

// resumePoint is the seq a feed starts after: the Last-Event-ID header of a
// reconnecting EventSource, else ?after_seq=, else 0.
func resumePoint(r *http.Request) (uint64, *store.Denial) {
	v, from := r.Header.Get("Last-Event-ID"), "Last-Event-ID"
	if v == "" {
		v, from = r.URL.Query().Get("after_seq"), "after_seq"
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, store.Deny(mcpserver.CodeInvalidRequest, "%s must be a trace sequence number", from)
	}
	return n, nil
}

// writeFeedError answers a refused trace.read like writeError, with the
// statuses a plain GET gets: 403 for a capability the token lacks, 404 for
// a session that does not exist. The audit id names the refusal's record.
func writeFeedError(w http.ResponseWriter, res *mcpserver.Result) {
	code := res.Code()
	reason := res.Err.Error()
	var d *store.Denial
	if errors.As(res.Err, &d) {
		reason = d.Reason
	}
	status := httpStatus(code)
	switch code {
	case store.CodeCapabilityMissing, store.CodeCapabilityScopeMismatch, store.CodeCapabilityExpired, store.CodeToolHidden:
		status = http.StatusForbidden
	case store.CodeNotFound:
		status = http.StatusNotFound
	}
	if code.IsTokenDenial() {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
	}
	writeRPCError(w, status, nil, jsonrpcCode(code), reason, map[string]any{"code": code, "audit_id": res.AuditID})
}

// sseWriter writes to one event stream, moving the write deadline on before
// every write as the legacy stream does: the server's WriteTimeout is for
// whole responses, and a stream never ends by itself.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// write sends b (nothing: just the headers) and flushes it.
func (s sseWriter) write(b []byte) error {
	if err := s.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if len(b) > 0 {
		if _, err := s.w.Write(b); err != nil {
			return err
		}
	}
	return s.rc.Flush()
}

// events sends a page of trace events in one write.
func (s sseWriter) events(evs []store.TraceEvent) error {
	var buf bytes.Buffer
	for i := range evs {
		// json.Marshal escapes every line break, so the data is one line;
		// the type is one of the known, single-word ones.
		data, err := json.Marshal(&evs[i])
		if err != nil {
			return fmt.Errorf("encode trace event %d: %w", evs[i].Seq, err)
		}
		fmt.Fprintf(&buf, "id: %d\nevent: %s\ndata: %s\n\n", evs[i].Seq, evs[i].Type, data)
	}
	return s.write(buf.Bytes())
}

// openFeed takes one of keyID's maxFeedsPerKey feed places, reporting false
// when all are taken. Every true must be matched by one closeFeed.
func (ss *sseSessions) openFeed(keyID string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.feedsPerKey[keyID] >= maxFeedsPerKey {
		return false
	}
	ss.feedsPerKey[keyID]++
	return true
}

// closeFeed gives back a place taken by openFeed.
func (ss *sseSessions) closeFeed(keyID string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.feedsPerKey[keyID]--; ss.feedsPerKey[keyID] <= 0 {
		delete(ss.feedsPerKey, keyID)
	}
}

// shutdownOf returns the channel closed when r's server shuts down (nil
// when r has none), shared with the legacy streams.
func (ss *sseSessions) shutdownOf(r *http.Request) <-chan struct{} {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.stoppingLocked(r)
}
