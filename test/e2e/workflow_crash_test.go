package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// TestKillUnderWorkflowLoad SIGKILLs the headless daemon at random moments
// while agents drain packets over real HTTP (await → ack → publish →
// complete, one-second leases), 20 times. After each kill it opens the
// database directly and checks that bbolt's check passes, the audit chain
// verifies, every call a client saw answered with an audit id has that
// record (with its method and outcome), every acknowledged complete left its
// packet done, every acknowledged create left its packet, and each session's
// trace is gap-free and holds the acknowledged calls. After each restart,
// every lease the kill left behind must be taken back by the daemon's expiry
// timer within 5 s. Each run also starts a supervised agent (a shell that
// does nothing): after the restart its session token, read from the token
// file while it ran, must be refused as token_revoked, and the database
// must show its session lost and its token revoked.
//
// SWITCHBOARD_CRASH_KILLS sets the number of kills (make test: 20). The
// last line logged sums the run up: kills survived, acknowledged calls
// checked, audit records verified.
//
// Packets are queued straight in the store while the daemon is stopped, so
// that the agents are busy (and the kill lands in their commits) whatever
// the CLI can do; when the CLI has `switchboard work create`, two CLI
// clients also create packets while the agents run, and each create the
// CLI acknowledged is checked too.
func TestKillUnderWorkflowLoad(t *testing.T) {
	const (
		agents  = 4
		backlog = 120 // queued packets at each start
	)
	kills := crashKills(t, 20)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, seed>>32))
	t.Logf("seed %d", seed)
	begin := time.Now()

	d := newDirs(t)
	// The supervised agent of each run is the shell profile: /bin/sh,
	// which reads nothing and dies of the hangup when the daemon's end
	// closes its terminal.
	env := d.env(false, "SHELL=/bin/sh")
	// There is no keyring here: --token-file keeps the client token stable
	// across restarts, as the keyring would, so the agents' sessions (which
	// only their own token may act for) outlive each kill and their traces
	// run on across it.
	daemonArgs := []string{"--headless", "--token-file"}
	dbPath := filepath.Join(d.data, "state.db")
	repoDir := filepath.Join(d.home, "repo")
	if err := os.MkdirAll(repoDir, 0o700); err != nil {
		t.Fatal(err)
	}

	// The repository is registered through the CLI, against a first run
	// that then stops cleanly.
	p := start(t, env, daemonArgs...)
	waitEndpoint(t, p, d, 15*time.Second)
	helpOut, helpErr, helpCode := cli(t, env, "work", "--help")
	useCLI := helpCode == 0 && strings.Contains(helpOut+helpErr, "create")
	repoID := ""
	for _, l := range lines(mustCLI(t, env, "repo", "add", repoDir)) {
		if strings.HasPrefix(l, "repo_") {
			repoID = l
		}
	}
	if repoID == "" {
		t.Fatal("repo add printed no repository id")
	}
	p.stop()
	if useCLI {
		t.Log("packets: a backlog in the store while the daemon is stopped, and switchboard work create while the agents run")
	} else {
		t.Log("packets: a backlog in the store while the daemon is stopped (this binary has no `work create`)")
	}

	w := &wlWorld{
		sessions:  make([]string, agents),
		traceSeen: map[string]uint64{},
		leased:    map[string]string{},
	}
	var stats wlStats
	for round := 0; round < kills; round++ {
		wlTopUp(t, dbPath, repoID, backlog)
		os.Remove(filepath.Join(d.run, "mcp-http-endpoint")) // the dead run's
		p := start(t, env, daemonArgs...)
		ep := waitEndpoint(t, p, d, 15*time.Second)
		ready := time.Now()
		tok := strings.TrimSpace(mustCLI(t, env, "token", "client"))
		if w.token != "" && tok != w.token {
			t.Fatalf("kill %d: the client token changed across the restart despite --token-file", round)
		}
		w.token = tok
		c := newWlClient(ep, tok)
		rec := &wlRecorder{}

		// Leases the last kill left behind go back to the queue once the
		// expiry timer has run, before any agent could take them again.
		expired := wlAwaitExpiry(t, c, rec, w.leased, ready.Add(expiryBound))
		stats.expired += expired
		// The supervised sessions the kill left were swept at the start:
		// their tokens no longer open the endpoint.
		stats.staleTokens += w.checkStaleTokens(t, ep, round+1)
		w.startSupervised(t, env, d, ep, repoID, round+1)

		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for i := range agents {
			wg.Go(func() { wlAgent(ctx, c, repoID, &w.sessions[i], rec) })
		}
		if useCLI {
			for range 2 {
				wg.Go(func() { wlProducer(ctx, env, repoID, rec) })
			}
		}
		after := time.Duration(50+rng.IntN(600)) * time.Millisecond
		// A sleep on purpose: the kill lands at a random moment of the
		// load (the seed is logged), wherever the calls then are.
		time.Sleep(after)
		p.cmd.Process.Signal(syscall.SIGKILL)
		if _, ok := p.wait(5 * time.Second); !ok {
			t.Fatalf("kill %d: the daemon did not die", round+1)
		}
		cancel()
		wg.Wait()
		c.close()

		for _, pr := range rec.problems {
			t.Errorf("kill %d: %s", round+1, pr)
		}
		w.checkAfterKill(t, round+1, dbPath, rec, expired > 0, &stats)
		w.checkSweptSessions(t, dbPath, round+1)
		t.Logf("kill %d after %s of load: %d calls answered, %d cut off by the kill, %d leases left behind",
			round+1, after, len(rec.calls), rec.unanswered, len(w.leased))
		if t.Failed() {
			t.FailNow()
		}
	}

	// One more start: the last kill's leases must expire too, and the
	// daemon must then stop cleanly.
	os.Remove(filepath.Join(d.run, "mcp-http-endpoint"))
	p = start(t, env, daemonArgs...)
	ep := waitEndpoint(t, p, d, 15*time.Second)
	ready := time.Now()
	c := newWlClient(ep, strings.TrimSpace(mustCLI(t, env, "token", "client")))
	stats.expired += wlAwaitExpiry(t, c, &wlRecorder{}, w.leased, ready.Add(expiryBound))
	c.close()
	stats.staleTokens += w.checkStaleTokens(t, ep, kills+1)
	p.stop()
	w.checkSweptSessions(t, dbPath, kills+1)

	t.Logf("%d kills survived in %s: %d calls answered with an audit id and their audit records checked (%d ok, %d denied: %d lease_lost), "+
		"%d acknowledged completes and %d acknowledged creates checked against their packets, %d trace events checked gap-free over %d sessions, "+
		"%d audit records verified in the chain (last check), %d leases left by a kill requeued by the expiry timer, "+
		"%d session tokens of killed runs refused as revoked (their sessions lost in the database)",
		kills, time.Since(begin).Round(100*time.Millisecond), stats.calls, stats.ok, stats.calls-stats.ok, stats.leaseLost,
		len(w.completes), len(w.creates), stats.traceEvents, len(w.traceSeen), stats.chain, stats.expired, stats.staleTokens)
	if len(w.completes) < kills {
		t.Fatalf("only %d completes acknowledged in %d rounds: the load did not run", len(w.completes), kills)
	}
	if stats.staleTokens != kills {
		t.Fatalf("%d stale session tokens checked, want one per kill (%d)", stats.staleTokens, kills)
	}
	t.Logf("kills survived %d, acknowledged calls checked %d, audit records verified %d",
		kills, stats.calls+len(w.creates), stats.chain)
}

// wlSupervised is a supervised session a run started, and its token.
type wlSupervised struct {
	session, token string
}

// startSupervised starts the shell profile in the repository, reads the
// session token the supervisor wrote for it, and checks that the token
// opens the endpoint while the session runs.
func (w *wlWorld) startSupervised(t *testing.T, env []string, d dirs, ep, repoID string, run int) {
	t.Helper()
	ses := strings.TrimSpace(mustCLI(t, env, "agent", "start", "shell", "--repo", repoID))
	if !strings.HasPrefix(ses, "ses_") {
		t.Fatalf("run %d: agent start printed %q", run, ses)
	}
	raw, err := os.ReadFile(filepath.Join(d.run, "sessions", ses+".token"))
	if err != nil {
		t.Fatalf("run %d: the session token file: %v", run, err)
	}
	tok := strings.TrimSpace(string(raw))
	if code := wlPing(t, ep, tok); code != "" {
		t.Fatalf("run %d: the token of running session %s is refused with %s", run, ses, code)
	}
	w.supervised = append(w.supervised, wlSupervised{session: ses, token: tok})
}

// checkStaleTokens checks, after a restart, that the token of every
// supervised session the killed run had started is refused as revoked,
// and moves those sessions to the swept list. It returns how many it
// checked.
func (w *wlWorld) checkStaleTokens(t *testing.T, ep string, run int) int {
	t.Helper()
	for _, s := range w.supervised {
		if code := wlPing(t, ep, s.token); code != string(store.CodeTokenRevoked) {
			t.Errorf("run %d: the token of session %s, started before the last kill, answers %q, want %s",
				run, s.session, code, store.CodeTokenRevoked)
		}
	}
	n := len(w.supervised)
	w.swept = append(w.swept, w.supervised...)
	w.supervised = nil
	return n
}

// checkSweptSessions checks in the database that every swept session is
// lost, with its token revoked. The daemon must be stopped.
func (w *wlWorld) checkSweptSessions(t *testing.T, dbPath string, run int) {
	t.Helper()
	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatalf("run %d: reopen: %v", run, err)
	}
	defer db.Close()
	err = db.View(context.Background(), func(tx *store.Tx) error {
		for _, s := range w.swept {
			ses, err := tx.Session(s.session)
			if err != nil {
				return err
			}
			tok, ok, err := tx.Token(ses.TokenKeyID)
			if err != nil {
				return err
			}
			if ses.State != store.SessionLost || !ok || tok.RevokedAt == nil {
				t.Errorf("run %d: session %s of a killed run is %s, its token %s revoked at %v (found %v)",
					run, s.session, ses.State, ses.TokenKeyID, tok.RevokedAt, ok)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("run %d: %v", run, err)
	}
}

// wlPing sends a ping with token and returns error.data.code, or "" when
// the ping succeeded. A ping reaches no method: nothing is audited. It
// keeps no connection: the daemon it reached is about to be killed.
func wlPing(t *testing.T, ep, token string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ep, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("ping: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Data struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("ping: HTTP %d, not JSON: %.300s", resp.StatusCode, body)
	}
	if r.Error != nil {
		return r.Error.Data.Code
	}
	if resp.StatusCode != http.StatusOK || r.Result == nil {
		t.Fatalf("ping: HTTP %d without an error: %.300s", resp.StatusCode, body)
	}
	return ""
}

// wlWorld is what the test knows across rounds.
type wlWorld struct {
	token string // the client token, the same in every run
	// sessions are the agents' sessions, one per slot, kept across
	// restarts; "" until a ready report is acknowledged.
	sessions []string
	// traceSeen is how far each session's trace was checked.
	traceSeen map[string]uint64
	// leased maps each packet leased when the daemon died to that lease.
	leased map[string]string
	// completes and creates are every packet an acknowledged complete
	// finished and every packet an acknowledged create made.
	completes []string
	creates   []string
	// lastSeq is the audit log's last sequence at the previous check.
	lastSeq uint64
	// supervised are the sessions the current run started; swept those
	// of killed runs, which the next start ended.
	supervised, swept []wlSupervised
}

type wlStats struct {
	calls, ok, leaseLost int
	traceEvents          int
	chain                int
	expired              int
	staleTokens          int
}

// wlCall is a call a client saw answered with an audit id.
type wlCall struct {
	method  string
	auditID string
	outcome string // "ok" or the code
	session string // the session it acted for, if any
	packet  string // a completed or created packet
}

// wlRecorder collects one round's answered calls. problems are answers no
// correct server gives (a denial other than lease_lost, a malformed result).
type wlRecorder struct {
	mu         sync.Mutex
	calls      []wlCall
	problems   []string
	unanswered int // calls the kill cut off
}

func (r *wlRecorder) add(c wlCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
}

func (r *wlRecorder) problem(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

// wlClient calls tools over HTTP from any goroutine. Each daemon run gets a
// fresh one: a keep-alive connection to a killed daemon would fail the
// first call of the next run.
type wlClient struct {
	url, token string
	hc         *http.Client
}

type wlAnswer struct {
	OK      bool            `json:"ok"`
	Method  string          `json:"method"`
	AuditID string          `json:"audit_id"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
	Result  json.RawMessage `json:"result"`
	// session is the session a ready report registered.
	session string
}

func newWlClient(url, token string) *wlClient {
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16, DisableCompression: true}
	return &wlClient{url: url, token: token, hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

func (c *wlClient) close() { c.hc.CloseIdleConnections() }

// call runs a tool. An error means no answer (the daemon died under it):
// the call is not acknowledged. A denial is an answer.
func (c *wlClient) call(ctx context.Context, tool string, args map[string]any) (wlAnswer, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return wlAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := c.hc.Do(req)
	if err != nil {
		return wlAnswer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return wlAnswer{}, err
	}
	var out struct {
		Result struct {
			StructuredContent *wlAnswer `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Result.StructuredContent == nil {
		return wlAnswer{}, fmt.Errorf("%s: HTTP %d: %.300s", tool, resp.StatusCode, b)
	}
	return *out.Result.StructuredContent, nil
}

// do runs a tool and records the answer: ok with its result decoded into v,
// or a denial. answered is false when the daemon gave no answer.
func (c *wlClient) do(ctx context.Context, rec *wlRecorder, tool, session string, args map[string]any, v any) (a wlAnswer, answered bool) {
	a, err := c.call(ctx, tool, args)
	if err != nil {
		rec.mu.Lock()
		rec.unanswered++
		rec.mu.Unlock()
		var sysErr *os.SyscallError
		if ctx.Err() == nil && !errors.As(err, &sysErr) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "connection") {
			rec.problem("%s: %v", tool, err)
		}
		return a, false
	}
	if !strings.HasPrefix(a.AuditID, "aud_") {
		rec.problem("%s answered without an audit id: %+v", tool, a)
		return a, true
	}
	call := wlCall{method: a.Method, auditID: a.AuditID, outcome: "ok", session: session}
	if !a.OK {
		call.outcome = a.Error
	} else {
		if v != nil {
			if err := json.Unmarshal(a.Result, v); err != nil {
				rec.problem("%s: result %s: %v", tool, a.Result, err)
			}
		}
		if session == "" {
			// A ready report without a session registers one: the
			// call is on the new session's trace.
			var r struct {
				SessionID string `json:"session_id"`
			}
			if json.Unmarshal(a.Result, &r) == nil {
				a.session, call.session = r.SessionID, r.SessionID
			}
		}
	}
	if pkt, ok := args["packet_id"].(string); ok {
		call.packet = pkt
	}
	rec.add(call)
	return a, true
}

// wlClaimed is what an agent reads of work_await_packet.
type wlClaimed struct {
	Packet *struct {
		ID                string                   `json:"id"`
		ExpectedArtifacts []store.ExpectedArtifact `json:"expected_artifacts"`
	} `json:"packet"`
	LeaseID string `json:"lease_id"`
}

// wlAgent runs the canonical loop with one-second leases until the daemon
// stops answering. A lost lease (a slow step) is legitimate: the agent
// moves on. Its session survives restarts; a ready report registers one
// when it has none yet.
func wlAgent(ctx context.Context, c *wlClient, repoID string, ses *string, rec *wlRecorder) {
	for ctx.Err() == nil {
		if *ses == "" {
			// The ready report's records belong to the session it makes.
			a, answered := c.do(ctx, rec, "session_report", "", map[string]any{"kind": "ready", "repository_id": repoID}, nil)
			if !answered {
				return
			}
			if !a.OK || !strings.HasPrefix(a.session, "ses_") {
				rec.problem("session_report ready: %+v", a)
				return
			}
			*ses = a.session
			continue
		}
		var got wlClaimed
		a, answered := c.do(ctx, rec, "work_await_packet", *ses, map[string]any{"repository_id": repoID, "session_id": *ses, "lease_seconds": 1, "wait_seconds": 1}, &got)
		if !answered {
			return
		}
		if !a.OK {
			rec.problem("work_await_packet: %s: %s", a.Error, a.Message)
			return
		}
		if got.Packet == nil {
			continue
		}
		pkt, lease := got.Packet.ID, got.LeaseID
		steps := []struct {
			tool string
			args map[string]any
		}{{"work_ack", map[string]any{"packet_id": pkt, "session_id": *ses, "lease_id": lease, "lease_seconds": 1}}}
		for _, e := range got.Packet.ExpectedArtifacts {
			steps = append(steps, struct {
				tool string
				args map[string]any
			}{"artifact_publish", map[string]any{"packet_id": pkt, "session_id": *ses, "lease_id": lease, "name": e.Name, "kind": e.Kind, "content": "done by " + *ses}})
		}
		steps = append(steps, struct {
			tool string
			args map[string]any
		}{"work_complete", map[string]any{"packet_id": pkt, "session_id": *ses, "lease_id": lease, "summary": "done"}})
		for _, s := range steps {
			a, answered := c.do(ctx, rec, s.tool, *ses, s.args, nil)
			if !answered {
				return
			}
			if !a.OK {
				if a.Error != string(store.CodeLeaseLost) {
					rec.problem("%s of %s: %s: %s", s.tool, pkt, a.Error, a.Message)
				}
				break
			}
		}
	}
}

// wlProducer creates packets with the CLI until the daemon stops answering
// (or the round ends), recording each create the CLI acknowledged.
func wlProducer(ctx context.Context, env []string, repoID string, rec *wlRecorder) {
	for ctx.Err() == nil {
		cmd := exec.Command(binPath, "work", "create", "--repo", repoID, "--title", "crash load",
			"--instructions", "publish the report", "--artifact", "report:markdown", "--max-attempts", "100")
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			// The daemon is gone (not acknowledged): nothing more to
			// create until the round ends.
			<-ctx.Done()
			return
		}
		id := ""
		for _, l := range lines(out.String()) {
			if strings.HasPrefix(l, "pkt_") {
				id = l
			}
		}
		if id == "" {
			rec.problem("work create succeeded but printed no packet id: %q", out.String())
			return
		}
		rec.add(wlCall{method: "work.create", outcome: "created", packet: id})
	}
}

// wlTopUp queues packets straight in the store, with the daemon stopped,
// until backlog are queued.
func wlTopUp(t *testing.T, dbPath, repoID string, backlog int) {
	t.Helper()
	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(context.Background(), func(tx *store.Tx) error {
		for n := tx.PacketCounts()[store.PacketQueued]; n < backlog; n++ {
			if _, err := tx.CreatePacket(store.PacketSpec{
				RepositoryID: repoID, Title: "crash load", Instructions: "publish the report",
				ExpectedArtifacts: []store.ExpectedArtifact{{Name: "report", Kind: "markdown"}}, MaxAttempts: 100,
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// expiryBound is how long after a restart the leases that expired while
// the daemon was down may still be held: its expiry timer takes them back
// at once, and its once-a-minute look would only after a minute, so 30 s
// tells the two apart with room for a loaded machine.
const expiryBound = 30 * time.Second

// wlAwaitExpiry waits until none of the packets in leased holds the lease
// it held when the daemon died, and checks they went back to the queue. It
// returns how many there were.
func wlAwaitExpiry(t *testing.T, c *wlClient, rec *wlRecorder, leased map[string]string, deadline time.Time) int {
	t.Helper()
	ctx := context.Background()
	for pkt, lease := range leased {
		var p store.Packet
		back := poll(time.After(time.Until(deadline)), func() bool {
			var got struct {
				Packet store.Packet `json:"packet"`
			}
			a, err := c.call(ctx, "work_get", map[string]any{"packet_id": pkt})
			if err != nil || !a.OK {
				t.Fatalf("work_get %s after restart: %v %+v", pkt, err, a)
			}
			if err := json.Unmarshal(a.Result, &got); err != nil {
				t.Fatal(err)
			}
			rec.add(wlCall{method: "work.get", auditID: a.AuditID, outcome: "ok"})
			p = got.Packet
			return p.Lease == nil || p.Lease.ID != lease
		})
		if !back {
			t.Fatalf("packet %s still holds lease %s (expired at %s) %v after the restart: the expiry timer did not take it back",
				pkt, lease, p.Lease.ExpiresAt.Format(time.RFC3339Nano), expiryBound)
		}
		if p.State != store.PacketQueued || p.Lease != nil {
			t.Fatalf("packet %s: lease %s gone, but the packet is %s (lease %+v), not queued", pkt, lease, p.State, p.Lease)
		}
	}
	return len(leased)
}

// checkAfterKill opens the database the killed daemon left and checks it
// against what the clients saw acknowledged.
func (w *wlWorld) checkAfterKill(t *testing.T, kill int, dbPath string, rec *wlRecorder, expectSweep bool, stats *wlStats) {
	t.Helper()
	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatalf("reopen after kill %d: %v", kill, err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatalf("after kill %d: %v", kill, err)
	}
	err = db.View(context.Background(), func(tx *store.Tx) error {
		v, err := tx.VerifyAudit()
		if err != nil {
			t.Errorf("after kill %d: VerifyAudit: %v", kill, err)
			return nil
		}
		stats.chain = v.Records
		// This run's records: newest first, back to where the last check
		// ended. (AfterSeq 0 means "not set", so paging forwards cannot
		// start at the first record; backwards can.)
		recs := map[string]store.AuditRecord{}
		sweeps := 0
	scan:
		for before := uint64(0); ; {
			page, err := tx.QueryAudit(store.AuditFilter{BeforeSeq: before, Limit: 1000})
			if err != nil {
				return err
			}
			if len(page) == 0 {
				break
			}
			for _, r := range page {
				if r.Seq <= w.lastSeq {
					break scan
				}
				recs[r.ID] = r
				before = r.Seq
				if r.Method == "work.expire_leases" && r.Transport == "supervisor" && r.Outcome == "ok" {
					sweeps++
				}
			}
		}
		w.lastSeq = v.LastSeq
		if expectSweep && sweeps == 0 {
			t.Errorf("after kill %d: leases were taken back, but no work.expire_leases by the supervisor is in the audit", kill)
		}

		// Every answered call has its audit record, with its outcome.
		traced := map[string]bool{} // audit ids on the sessions' new trace events
		for _, ses := range w.sessions {
			if ses == "" {
				continue
			}
			last := tx.LastTraceSeq(ses)
			for n := w.traceSeen[ses]; n < last; {
				evs, err := tx.TraceEvents(ses, n, 1000)
				if err != nil {
					return err
				}
				if len(evs) == 0 {
					t.Errorf("after kill %d: trace of %s ends at %d, its sequence at %d", kill, ses, n, last)
					break
				}
				for _, ev := range evs {
					if n++; ev.Seq != n {
						t.Errorf("after kill %d: trace of %s has seq %d where %d belongs", kill, ses, ev.Seq, n)
						return nil
					}
					if ev.AuditID != "" {
						traced[ev.AuditID] = true
					}
					stats.traceEvents++
				}
			}
			w.traceSeen[ses] = last
		}
		for _, c := range rec.calls {
			if c.method == "work.create" && c.auditID == "" { // through the CLI: no audit id shown
				w.creates = append(w.creates, c.packet)
				continue
			}
			stats.calls++
			if c.outcome == "ok" {
				stats.ok++
			}
			if c.outcome == string(store.CodeLeaseLost) {
				stats.leaseLost++
			}
			r, ok := recs[c.auditID]
			switch {
			case !ok:
				t.Errorf("after kill %d: %s answered with audit id %s (%s), but the audit has no such record", kill, c.method, c.auditID, c.outcome)
				continue
			case r.Method != c.method || r.Outcome != c.outcome:
				t.Errorf("after kill %d: audit %s is %s/%s, the client saw %s/%s", kill, c.auditID, r.Method, r.Outcome, c.method, c.outcome)
			}
			if c.session != "" && !traced[c.auditID] {
				t.Errorf("after kill %d: %s (%s) of session %s is not on its trace", kill, c.method, c.auditID, c.session)
			}
			if c.method == "work.complete" && c.outcome == "ok" {
				w.completes = append(w.completes, c.packet)
			}
		}
		// Every acknowledged complete (of every run so far) left its
		// packet done; every acknowledged create left its packet.
		for _, id := range w.completes {
			if p, err := tx.Packet(id); err != nil || p.State != store.PacketDone {
				t.Errorf("after kill %d: packet %s was acknowledged complete but is %s (%v)", kill, id, p.State, err)
			}
		}
		for _, id := range w.creates {
			if _, err := tx.Packet(id); err != nil {
				t.Errorf("after kill %d: packet %s was acknowledged created: %v", kill, id, err)
			}
		}
		// The leases the kill left, for the next run to take back.
		w.leased = map[string]string{}
		for _, st := range []store.PacketState{store.PacketClaimed, store.PacketInProgress} {
			after := ""
			for {
				ps, err := tx.Packets(store.PacketFilter{State: st, Limit: 1000, After: after})
				if err != nil {
					return err
				}
				for _, p := range ps {
					w.leased[p.ID] = p.Lease.ID
				}
				if len(ps) < 1000 {
					break
				}
				after = ps[len(ps)-1].ID
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("after kill %d: %v", kill, err)
	}
}
