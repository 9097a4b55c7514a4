package mcphttp

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Two instances share one PostgreSQL database, as two machines: an agent
// waits for work on instance B, and a packet created on instance A wakes it
// through the database's NOTIFY, with no polling. The wake-up latency (the
// packet's creation returning on A to the agent's answer on B) is measured
// over rounds; the bound is 50 ms.
func TestWakeUpAcrossInstances(t *testing.T) {
	if !stores.OnPostgres() {
		t.Skip("instances share a database on PostgreSQL only")
	}
	f, _, repo := workflowEnv(t) // instance A
	dbB, err := store.OpenPostgres(stores.URL(f.db), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dbB.Close() })
	// parked hears the long poll on B take its wait, each round.
	parked := make(chan struct{}, 1)
	regB := mcpserver.New(dbB, mcpserver.Options{Version: testVersion, Env: f.env, Log: f.log, OnWait: func(key string) {
		if key == mcpserver.QueueKey(repo.ID) {
			select {
			case parked <- struct{}{}:
			default:
			}
		}
	}})
	regB.HearOtherInstances()
	srvB := httptest.NewServer(NewHTTPHandler(regB, HTTPOptions{Version: testVersion}))
	t.Cleanup(srvB.Close)
	_, raw := f.createClientToken(t)
	a := &agent{t, srvB.URL + "/mcp", raw}
	ses := a.ok("session_report", map[string]any{"kind": "ready", "repository_id": repo.ID})["session_id"].(string)

	const rounds = 20
	var lat []time.Duration
	for range rounds {
		select { // a wait of the round before, if it re-parked
		case <-parked:
		default:
		}
		type answer struct {
			res map[string]any
			at  time.Time
		}
		got := make(chan answer, 1)
		go func() {
			res := a.ok("work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": ses, "wait_seconds": 30})
			got <- answer{res, time.Now()}
		}()
		select {
		case <-parked:
		case <-time.After(5 * time.Second):
			t.Fatal("the long poll on B never waited")
		}
		pkt := f.createPacket(t, repo.ID, nil) // on A
		created := time.Now()
		select {
		case ans := <-got:
			if p, _ := ans.res["packet"].(map[string]any); p == nil || p["id"] != pkt {
				t.Fatalf("woken with %v", ans.res)
			}
			lat = append(lat, ans.at.Sub(created))
		case <-time.After(10 * time.Second):
			t.Fatal("the agent on B was not woken by work created on A")
		}
	}
	slices.Sort(lat)
	p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	t.Logf("wake-up across instances over %d rounds: p50 %v, p99 %v, max %v", rounds, p50, p99, lat[len(lat)-1])
	if p50 > 50*time.Millisecond {
		t.Errorf("p50 wake-up across instances %v, want within 50 ms", p50)
	}
}

// An instance that stops heartbeating (it was killed) is found by another
// after the grace: its live sessions end as lost, their leases go back to
// the queue, it is marked lost, and sweeping again does nothing. B's clock
// runs an hour ahead of A's, which is A having been silent for an hour.
func TestLostInstanceSweep(t *testing.T) {
	if !stores.OnPostgres() {
		t.Skip("instances share a database on PostgreSQL only")
	}
	const idA, idB = "inst_aaaaaaaaaaaaaaaaaaaa", "inst_bbbbbbbbbbbbbbbbbbbb"
	dbA := stores.Open(t, store.Options{Instance: idA})
	dbB, err := store.OpenPostgres(stores.URL(dbA), store.Options{Instance: idB, Now: func() time.Time { return time.Now().Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dbB.Close() })
	regA := mcpserver.New(dbA, mcpserver.Options{Version: testVersion})
	regB := mcpserver.New(dbB, mcpserver.Options{Version: testVersion, InstanceGrace: time.Minute})
	for _, r := range []*mcpserver.Registry{regA, regB} {
		if _, err := r.BeatInstance(context.Background(), store.InstanceBeat{Host: "box", Started: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	var ses store.Session
	var pkt store.Packet
	if err := dbA.Update(context.Background(), func(tx *store.Tx) error {
		repo, _, err := tx.RegisterRepository("app", t.TempDir())
		if err != nil {
			return err
		}
		if _, err := tx.CreatePacket(store.PacketSpec{RepositoryID: repo.ID, Title: "t"}); err != nil {
			return err
		}
		if ses, err = tx.CreateSession(store.SessionSpec{Kind: store.SessionSupervised, RepositoryID: repo.ID}); err != nil {
			return err
		}
		pkt, _, err = tx.ClaimPacket(repo.ID, ses.ID, time.Hour)
		return err
	}); err != nil {
		t.Fatal(err)
	}

	swept, err := regB.SweepLostInstances(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(swept.Lost, []string{idA}) || !slices.Equal(swept.Sessions, []string{ses.ID}) || !slices.Equal(swept.Released, []string{pkt.ID}) {
		t.Fatalf("swept %+v; want A, its session %s and its packet %s", swept, ses.ID, pkt.ID)
	}
	if err := dbA.View(context.Background(), func(tx *store.Tx) error {
		s, err := tx.Session(ses.ID)
		if err != nil {
			return err
		}
		p, err := tx.Packet(pkt.ID)
		if err != nil {
			return err
		}
		if s.State != store.SessionLost || p.State != store.PacketQueued {
			t.Errorf("after the sweep the session is %s, the packet %s", s.State, p.State)
		}
		_, err = tx.VerifyAudit()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	again, err := regB.SweepLostInstances(t.Context())
	if err != nil || len(again.Lost) != 0 {
		t.Fatalf("a second sweep: %+v %v", again, err)
	}
	st, err := mcpserver.Invoke(t.Context(), regB, mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, mcpserver.MethodTeamStatus, mcpserver.NoArgs{})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, in := range st.Instances {
		states[in.ID] = in.State
	}
	if !st.Team || st.Instance != idB || states[idA] != "lost" || states[idB] != "running" || st.Queue[store.PacketQueued] != 1 {
		t.Errorf("team status: %+v", st)
	}
	if strings.Contains(st.Database, "password") {
		t.Errorf("team status shows the database URL's password: %s", st.Database)
	}
}
