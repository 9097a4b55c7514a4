package mcphttp

// The shared database going away (team mode): calls fail with
// store_unavailable, answered HTTP 503 with a JSON-RPC error, long polls
// end at once instead of waiting out their wait, and the same registry
// works again once the server is back, with nothing restarted.

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/coretest"
	"github.com/switchboard-dev/switchboard/internal/pgtest"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// rawCall posts one tools/call and returns the HTTP status and the
// JSON-RPC answer, whatever they are.
func rawCall(t *testing.T, url, token, tool string, args map[string]any) (int, rpcReply, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var reply rpcReply
	if err := json.Unmarshal(b, &reply); err != nil {
		t.Fatalf("%s: HTTP %d, body is not JSON: %s", tool, resp.StatusCode, b)
	}
	return resp.StatusCode, reply, b
}

// wantUnavailable checks an answer is the transport's store_unavailable:
// HTTP 503 and a JSON-RPC error (not a tool result) whose data.code says so.
func wantUnavailable(t *testing.T, what string, status int, reply rpcReply, body []byte) {
	t.Helper()
	if status != http.StatusServiceUnavailable || reply.Error == nil || reply.Error.Data.Code != store.CodeStoreUnavailable {
		t.Errorf("%s: HTTP %d %s; want 503 with a JSON-RPC error of data.code store_unavailable", what, status, body)
	}
}

// faultEnv is a registry on a PostgreSQL server of the test's own, which
// the test stops and starts, served on both of the front's paths.
type faultEnv struct {
	*fixture
	pg        *pgtest.Server
	fast, sdk string // the MCP URLs: the fast path, and the SDK's path for every call
	token     string
	repo      store.Repository
	// hookToken is a supervised session's own token: a hook takes no
	// other, and refuses the client token on its own before it reads
	// the store.
	hookToken string
	// parked hears every key a long poll waits on (signals.onWait).
	parked chan string
}

func newFaultEnv(t *testing.T) *faultEnv {
	t.Helper()
	if !stores.OnPostgres() {
		t.Skip("the store goes away only on PostgreSQL")
	}
	pg := pgtest.Start(t) // its own: stopping the suite's would fail every other test
	f := &fixture{clock: coretest.NewClock(), env: &coretest.Env{}, logs: &coretest.SyncBuffer{}}
	db, err := store.OpenPostgres(pg.URL("postgres"), store.Options{Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f.db = db
	f.log = slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := &faultEnv{fixture: f, pg: pg, parked: make(chan string, 16)}
	f.reg = mcpserver.New(f.db, mcpserver.Options{Version: testVersion, Env: f.env, Log: f.log, OnWait: func(key string) {
		select {
		case e.parked <- key:
		default:
		}
	}})
	f.reg.HearOtherInstances()
	fast := httptest.NewServer(NewHTTPHandler(f.reg, HTTPOptions{Version: testVersion, Log: f.log}))
	t.Cleanup(fast.Close)
	h := NewHTTPHandler(f.reg, HTTPOptions{Version: testVersion, Log: f.log})
	h.noFastPath = true
	sdk := httptest.NewServer(h)
	t.Cleanup(sdk.Close)
	e.fast, e.sdk = fast.URL+"/mcp", sdk.URL+"/mcp"
	_, e.token = f.createClientToken(t)
	e.repo = f.registerRepo(t, t.TempDir())
	_, e.hookToken = f.supervisedSession(t, e.repo.ID)
	return e
}

// A long poll parked on its signal when the server stops ends within
// seconds with store_unavailable (HTTP 503), on either path, for both long
// polls; a call made while the server is away is refused the same way;
// once the server is back the same registry serves the same session again.
func TestStoreUnavailableEndsLongPolls(t *testing.T) {
	e := newFaultEnv(t)
	// Bound well below the polls' 30 s wait: what is checked is that the
	// poll did not wait for a signal or its deadline.
	const prompt = 5 * time.Second
	a := &agent{t, e.fast, e.token}
	ses := a.ok("session_report", map[string]any{"kind": "ready", "repository_id": e.repo.ID})["session_id"].(string)
	cases := []struct {
		name, url, tool string
		args            func() (map[string]any, string) // the arguments, and the key the poll waits on
	}{
		{"work.await_packet, fast path", e.fast, "work_await_packet", func() (map[string]any, string) {
			return map[string]any{"repository_id": e.repo.ID, "session_id": ses, "wait_seconds": 30}, mcpserver.QueueKey(e.repo.ID)
		}},
		{"work.await_packet, SDK path", e.sdk, "work_await_packet", func() (map[string]any, string) {
			return map[string]any{"repository_id": e.repo.ID, "session_id": ses, "wait_seconds": 30}, mcpserver.QueueKey(e.repo.ID)
		}},
		{"session.await_answer, fast path", e.fast, "session_await_answer", func() (map[string]any, string) {
			q := a.ok("session_report", map[string]any{"kind": "question", "session_id": ses, "text": "which branch?"})["question_id"].(string)
			return map[string]any{"question_id": q, "wait_seconds": 30}, mcpserver.QuestionKey(q)
		}},
		{"session.await_answer, SDK path", e.sdk, "session_await_answer", func() (map[string]any, string) {
			q := a.ok("session_report", map[string]any{"kind": "question", "session_id": ses, "text": "which branch?"})["question_id"].(string)
			return map[string]any{"question_id": q, "wait_seconds": 30}, mcpserver.QuestionKey(q)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args, key := c.args()
			type answer struct {
				status int
				reply  rpcReply
				body   []byte
				at     time.Time
			}
			got := make(chan answer, 1)
			go func() {
				st, reply, body := rawCall(t, c.url, e.token, c.tool, args)
				got <- answer{st, reply, body, time.Now()}
			}()
			// The poll parks on key: the signals' hook says when.
			for parked := false; !parked; {
				select {
				case k := <-e.parked:
					parked = k == key
				case <-time.After(5 * time.Second):
					t.Fatal("the long poll never waited")
				}
			}
			stopped := time.Now() // as the stop begins: the poll may end before pg_ctl returns
			e.pg.Stop()
			select {
			case ans := <-got:
				wantUnavailable(t, "the parked poll", ans.status, ans.reply, ans.body)
				t.Logf("ended %v after the stop began", ans.at.Sub(stopped).Round(time.Millisecond))
			case <-time.After(prompt):
				t.Fatalf("the long poll still waits %v after the server stopped", prompt)
			}
			// Refused: the token may pass its first check from what the
			// instance last knew (store.DB.Peek), but not the call's
			// transaction.
			st, reply, body := rawCall(t, c.url, e.token, c.tool, args)
			wantUnavailable(t, "a call while the server is away", st, reply, body)
			e.otherPaths(t, ses)
			if took := time.Since(stopped); took > 2*prompt {
				t.Errorf("calls against a stopped server took %v", took)
			}
			e.pg.Start()
			// The pool's connections died with the server; the first
			// calls may still meet one before the pool has replaced it,
			// and nothing signals that it has: tried on a short tick.
			deadline := time.Now().Add(10 * time.Second)
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for ; ; <-tick.C {
				st, reply, body := rawCall(t, c.url, e.token, "session_report", map[string]any{"kind": "heartbeat", "session_id": ses})
				if st == http.StatusOK && reply.Error == nil {
					if strings.Contains(string(body), `"ok":false`) {
						t.Fatalf("after the restart: %s", body)
					}
					break
				}
				wantUnavailable(t, "a call as the server comes back", st, reply, body)
				if time.Now().After(deadline) || t.Failed() {
					t.Fatalf("the registry does not work again after the server restarted: %s", body)
				}
			}
		})
	}
	if got := e.logs.String(); strings.Contains(got, "password") {
		t.Errorf("the log mentions a password:\n%s", got)
	}
}

// otherPaths checks the front's other ways in while the server is away:
// the event feed and Claude Code's hooks answer 503 with
// store_unavailable too, not 500.
func (e *faultEnv) otherPaths(t *testing.T, ses string) {
	t.Helper()
	base := strings.TrimSuffix(e.fast, PathMCP)
	for _, c := range []struct{ method, path, token string }{
		{http.MethodGet, PathEvents + "?session_id=" + ses, e.token},
		{http.MethodPost, supervisor.ClaudeHookPath + "Stop", e.hookToken},
	} {
		req, err := http.NewRequestWithContext(t.Context(), c.method, base+c.path, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), string(store.CodeStoreUnavailable)) {
			t.Errorf("%s %s while the server is away: HTTP %d %s; want 503 store_unavailable", c.method, c.path, resp.StatusCode, b)
		}
	}
}
