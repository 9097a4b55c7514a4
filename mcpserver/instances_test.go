package mcpserver

import (
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// Two instances share one PostgreSQL database, as two machines: an agent
// waits for work on instance B, and a packet created on instance A wakes it
// through the database's NOTIFY, with no polling. The wake-up latency (the
// packet's creation returning on A to the agent's answer on B) is measured
// over rounds; the bound is 50 ms.
func TestWakeUpAcrossInstances(t *testing.T) {
	if pgServer == nil {
		t.Skip("instances share a database on PostgreSQL only")
	}
	f, _, repo := workflowEnv(t) // instance A
	u, _ := pgURLs.Load(f.db)
	dbB, err := store.OpenPostgres(u.(string), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dbB.Close() })
	regB := New(dbB, Options{Version: testVersion, Env: f.env, Log: f.log})
	regB.HearOtherInstances()
	srvB := httptest.NewServer(NewHTTPHandler(regB, HTTPOptions{Version: testVersion}))
	t.Cleanup(srvB.Close)
	_, raw := f.createClientToken(t)
	a := &agent{t, srvB.URL + "/mcp", raw}
	ses := a.ok("session_report", map[string]any{"kind": "ready", "repository_id": repo.ID})["session_id"].(string)

	const rounds = 20
	var lat []time.Duration
	for range rounds {
		type answer struct {
			res map[string]any
			at  time.Time
		}
		got := make(chan answer, 1)
		go func() {
			res := a.ok("work_await_packet", map[string]any{"repository_id": repo.ID, "session_id": ses, "wait_seconds": 30})
			got <- answer{res, time.Now()}
		}()
		deadline := time.Now().Add(5 * time.Second)
		for !regB.sig.hasWaiters(repoKey(repo.ID)) {
			if time.Now().After(deadline) {
				t.Fatal("the long poll on B never waited")
			}
			time.Sleep(time.Millisecond)
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
