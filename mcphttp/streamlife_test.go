package mcphttp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// The long-lived streams (the replay feed and the legacy HTTP+SSE stream)
// live no longer than their token, or the session the token was minted for.

// streamEndLimit is how soon after its token dies a stream must end.
const streamEndLimit = time.Second

// streamOpener opens a long-lived stream as token raw (ses is the session a
// feed reads) and returns its body, once the server has started streaming,
// and the function that drops it.
type streamOpener func(t *testing.T, e *eventsEnv, raw, ses string) (*bufio.Reader, func())

func streamKinds() map[string]streamOpener {
	return map[string]streamOpener{
		"events": func(t *testing.T, e *eventsEnv, raw, ses string) (*bufio.Reader, func()) {
			f := e.open(t, raw, ses, "")
			return f.rd, f.close
		},
		"sse": func(t *testing.T, e *eventsEnv, raw, _ string) (*bufio.Reader, func()) {
			resp, cancel := e.get(t, raw, PathSSE, nil)
			if resp.StatusCode != http.StatusOK {
				body, _ := io.ReadAll(resp.Body)
				t.Fatalf("GET %s: HTTP %d: %s", PathSSE, resp.StatusCode, body)
			}
			rd := bufio.NewReader(resp.Body)
			// The endpoint event, up to its blank line.
			for {
				line, err := rd.ReadString('\n')
				if err != nil {
					t.Fatalf("reading the endpoint event: %v", err)
				}
				if line == "\n" {
					return rd, cancel
				}
			}
		},
	}
}

// wantStreamEnd fails the test unless the server ends the stream within d:
// the client reads to a clean end of the body, not an error of its own.
func wantStreamEnd(t *testing.T, rd *bufio.Reader, drop func(), d time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		// Whatever is still on the way (a feed's last events, a
		// keep-alive) is read and dropped: only the end matters.
		_, err := io.Copy(io.Discard, rd)
		done <- err
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the stream broke instead of ending: %v", err)
		}
	case <-timer.C:
		drop()
		<-done
		t.Fatalf("the stream still runs %s after its token died", d)
	}
}

// wantNoStreams fails unless the handler holds no stream and no place of
// one: a stream that ended must give its place back.
func wantNoStreams(t *testing.T, e *eventsEnv) {
	t.Helper()
	e.h.sse.mu.Lock()
	defer e.h.sse.mu.Unlock()
	if len(e.h.sse.byID) != 0 || len(e.h.sse.perKey) != 0 || len(e.h.sse.feedsPerKey) != 0 {
		t.Errorf("left behind: sessions %v, per key %v, feeds per key %v", e.h.sse.byID, e.h.sse.perKey, e.h.sse.feedsPerKey)
	}
}

// wantGETRefused fails unless a GET of path as raw is refused with status
// and code.
func wantGETRefused(t *testing.T, e *eventsEnv, raw, path string, status int, code store.Code) {
	t.Helper()
	resp, cancel := e.get(t, raw, path, nil)
	defer cancel()
	if resp.StatusCode != status {
		// Not read: an accepted stream would not end.
		t.Fatalf("GET %s: HTTP %d, want %d %s", path, resp.StatusCode, status, code)
	}
	body, _ := io.ReadAll(resp.Body)
	var reply rpcReply
	if json.Unmarshal(body, &reply) != nil || reply.Error == nil || reply.Error.Data.Code != code {
		t.Fatalf("GET %s: HTTP %d %s, want %s", path, resp.StatusCode, body, code)
	}
}

// sessionToken mints a session token for a new live session of e's
// repository. When named, the session records the token as its own, so
// ending the session revokes it; otherwise ending the session leaves the
// token live, and only the session's end can end its streams.
func (e *eventsEnv) sessionToken(t *testing.T, named bool) (string, string) {
	t.Helper()
	ses := "ses_streamlife" + fmt.Sprint(named)
	var raw string
	e.update(t, func(tx *store.Tx) error {
		tok, r, err := tx.CreateToken(store.TokenSpec{Label: "session", Kind: store.KindSession, Grants: allGrants(), SessionID: ses})
		if err != nil {
			return err
		}
		raw = r
		spec := store.SessionSpec{ID: ses, Kind: store.SessionExternal, RepositoryID: e.repo.ID}
		if named {
			spec.TokenKeyID = tok.KeyID
		}
		_, err = tx.CreateSession(spec)
		return err
	})
	return raw, ses
}

// Each kind of stream ends within a second of its token's revocation or
// expiry, or of the end of the token's session; the client's next GET is
// then refused.
func TestStreamsEndWithTheirToken(t *testing.T) {
	type death struct {
		// prepare returns the token, the session a feed reads, and what
		// kills the token.
		prepare func(t *testing.T, e *eventsEnv) (raw, ses string, kill func())
		// status and refused are the HTTP status and code of a GET after
		// the end.
		status  int
		refused store.Code
	}
	deaths := map[string]death{
		"revoked": {
			prepare: func(t *testing.T, e *eventsEnv) (string, string, func()) {
				tok, raw := e.createToken(t, store.TokenSpec{Label: "viewer", Grants: allGrants()})
				return raw, e.startSession(t), func() {
					wantCode(t, e.invoke(mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, "token.revoke", `{"keyid":"`+tok.KeyID+`"}`), "ok")
				}
			},
			status:  http.StatusUnauthorized,
			refused: store.CodeTokenRevoked,
		},
		"expired": {
			// No call commits: only the expiry timer can end the stream.
			// The store's clock is the test's, so the token expires when
			// the test moves it on, and the timer, armed for the 300 ms
			// the token had left, finds it expired.
			prepare: func(t *testing.T, e *eventsEnv) (string, string, func()) {
				exp := e.clock.Now().Add(300 * time.Millisecond)
				_, raw := e.createToken(t, store.TokenSpec{Label: "short", Grants: allGrants(), ExpiresAt: &exp})
				return raw, e.startSession(t), func() { e.clock.Add(time.Second) }
			},
			status:  http.StatusUnauthorized,
			refused: store.CodeTokenExpired,
		},
		"session ended": {
			// The feed reads the token's own session, as an agent would.
			prepare: func(t *testing.T, e *eventsEnv) (string, string, func()) {
				raw, ses := e.sessionToken(t, true)
				return raw, ses, func() {
					wantCode(t, e.invoke(mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, "session.end", `{"session_id":"`+ses+`"}`), "ok")
				}
			},
			status:  http.StatusUnauthorized,
			refused: store.CodeTokenRevoked,
		},
		"session ended, token not revoked": {
			// Authentication still accepts the token; the stream is
			// refused rather than opened and cut off at once.
			prepare: func(t *testing.T, e *eventsEnv) (string, string, func()) {
				raw, ses := e.sessionToken(t, false)
				return raw, ses, func() {
					wantCode(t, e.invoke(mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, "session.end", `{"session_id":"`+ses+`"}`), "ok")
				}
			},
			status:  http.StatusBadRequest,
			refused: store.CodeInvalidState,
		},
	}
	for kind, open := range streamKinds() {
		for name, d := range deaths {
			t.Run(kind+"/"+name, func(t *testing.T) {
				e := newEventsEnv(t, nil)
				raw, ses, kill := d.prepare(t, e)
				rd, drop := open(t, e, raw, ses)
				kill()
				start := time.Now()
				wantStreamEnd(t, rd, drop, streamEndLimit)
				t.Logf("ended %s after the token died", time.Since(start).Round(time.Millisecond))
				wantNoStreams(t, e)
				wantGETRefused(t, e, raw, PathSSE, d.status, d.refused)
				wantGETRefused(t, e, raw, PathEvents+"?session_id="+ses, d.status, d.refused)
				wantNoStreams(t, e)
			})
		}
	}
}

// wantStreamLive posts a status call on the legacy stream read by rd and
// fails unless its answer comes down the stream.
func wantStreamLive(t *testing.T, e *eventsEnv, rd *bufio.Reader, raw string) {
	t.Helper()
	s := &sseStream{t: t, rd: rd}
	e.h.sse.mu.Lock()
	for id := range e.h.sse.byID {
		s.session = id
	}
	e.h.sse.mu.Unlock()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, e.base+PathMessages+"?session_id="+s.session, strings.NewReader(statusCall))
	req.Header.Set("Authorization", "Bearer "+raw)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: e.tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST on the stream: HTTP %d", resp.StatusCode)
	}
	if m := s.message(); m.Error != nil {
		t.Fatalf("answer on the stream: %+v", m.Error)
	}
}

// One token holds at most maxFeedsPerKey feeds, as it does legacy streams;
// a feed that ends, or that is refused, gives its place back, and other
// tokens are not affected.
func TestEventsFeedCap(t *testing.T) {
	e := newEventsEnv(t, nil)
	ses := e.startSession(t)
	path := PathEvents + "?session_id=" + ses

	// Feeds refused by trace.read hold no place afterwards.
	for range maxFeedsPerKey + 1 {
		wantGETRefused(t, e, e.clientRaw, PathEvents+"?session_id=ses_nosuch", http.StatusNotFound, store.CodeNotFound)
	}
	e.waitEnded(t, maxFeedsPerKey+1)

	var feeds []*feed
	for range maxFeedsPerKey {
		feeds = append(feeds, e.open(t, e.clientRaw, ses, ""))
	}
	audits := len(e.feedAudits(t))
	wantGETRefused(t, e, e.clientRaw, path, http.StatusTooManyRequests, codeTooManyStreams)
	e.waitEnded(t, 1)
	if n := len(e.feedAudits(t)); n != audits {
		t.Errorf("the refused feed made %d trace.read calls, want none", n-audits)
	}
	// Legacy streams and other tokens' feeds are counted apart.
	_, auditRaw := e.createToken(t, store.TokenSpec{Label: "auditor", Grants: allGrants()})
	e.open(t, auditRaw, ses, "").event()
	sse, _ := streamKinds()["sse"](t, e, e.clientRaw, ses)
	wantStreamLive(t, e, sse, e.clientRaw)

	feeds[0].close()
	e.waitEnded(t, 1)
	f := e.open(t, e.clientRaw, ses, "")
	if ev := f.event(); ev.id != "1" {
		t.Errorf("the feed opened in the freed place starts at %s, want 1", ev.id)
	}
	wantGETRefused(t, e, e.clientRaw, path, http.StatusTooManyRequests, codeTooManyStreams)
}
