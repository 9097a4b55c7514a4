//go:build linux

package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
	"github.com/switchboard-dev/switchboard/supervisor/internal/flood"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// BenchmarkHostPTY is BenchmarkPTY's supervised run beside the same agent
// through the agent host, in one run: each iteration floods 32 MB through
// the in-process supervisor (recording, emulator, one subscriber), then
// through the host (its recording and emulator, the socket, a client
// stream read as fast as it comes), then through the host again with the
// client feeding an emulator too, as the app over the host does. The
// ratios are the host's throughput over the supervisor's.
func BenchmarkHostPTY(b *testing.B) {
	n := floodSize(32 << 20)
	bin := standinBin(b)
	dir := shortTempDir(b)
	ctx := context.Background()
	sv := New(Config{RuntimeDir: dir + "/run", RecordingsDir: dir + "/rec", Env: os.Environ()})
	defer sv.Close(ctx)
	h, err := StartHost(ctx, testHostStart(b, dir, time.Minute))
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		syscall.Kill(h.PID, syscall.SIGTERM)
		<-h.Exited()
	}()
	c, err := DialHost(ctx, h.Socket, "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	want := len(flood.AsTerminalOutput(n))
	prof := profile.Profile{ID: "flood", Name: "flood", Command: bin, Args: []string{"flood", strconv.Itoa(n)}, Prompt: profile.PromptNone}
	hosted := func(id string, emulate bool) time.Duration {
		start := time.Now()
		rec := filepath.Join(dir, "hrec", id+".cast")
		_, s, err := c.Launch(ctx, hostwire.Launch{Session: id, Path: bin, Args: []string{"flood", strconv.Itoa(n)}, Dir: dir,
			Env: os.Environ(), Cols: 200, Rows: 50, Recording: hostwire.Recording{Path: rec}, Attach: true})
		if err != nil {
			b.Fatal(err)
		}
		var term *vt.Terminal
		if emulate {
			term = streamTerm(s)
		}
		// The state of a terminal nothing was printed on comes first.
		got := -int(s.Attached().Caught)
		for range s.Ready() {
			data, dropped, ended := s.Read()
			if dropped > 0 {
				b.Fatalf("the client dropped %d bytes", dropped)
			}
			got += len(data)
			if term != nil {
				term.Resize(s.Size())
				term.Write(data)
			}
			if ended {
				break
			}
		}
		d := time.Since(start)
		if err := s.Err(); err != nil || got != want {
			b.Fatalf("the client got %d bytes of %d (%v)", got, want, err)
		}
		os.Remove(rec)
		return d
	}
	var supervised, host, hostVT time.Duration
	i := 0
	for b.Loop() {
		i++
		supervised += floodSupervised(b, sv, LaunchSpec{SessionID: fmt.Sprintf("ses_bench%d", i), Dir: dir, Cols: 200, Rows: 50, Profile: prof})
		host += hosted(fmt.Sprintf("ses_host%d", i), false)
		hostVT += hosted(fmt.Sprintf("ses_hostvt%d", i), true)
	}
	mbps := func(d time.Duration) float64 { return float64(n) * float64(i) / d.Seconds() / 1e6 }
	b.ReportMetric(mbps(supervised), "supervised-MB/s")
	b.ReportMetric(mbps(host), "host-MB/s")
	b.ReportMetric(mbps(hostVT), "host+vt-MB/s")
	b.ReportMetric(supervised.Seconds()/host.Seconds(), "ratio")
	b.ReportMetric(supervised.Seconds()/hostVT.Seconds(), "ratio-vt")
}

// BenchmarkHostMemory is the agent host's resident memory for each idle
// agent: its RSS before and after 10 agents have started and printed a
// line, divided by 10.
func BenchmarkHostMemory(b *testing.B) {
	const agents = 10
	var perAgent, base float64
	i := 0
	for b.Loop() {
		i++
		dir := shortTempDir(b)
		ctx := context.Background()
		h, err := StartHost(ctx, testHostStart(b, dir, time.Minute))
		if err != nil {
			b.Fatal(err)
		}
		c, err := DialHost(ctx, h.Socket, "bench")
		if err != nil {
			b.Fatal(err)
		}
		// A first agent, started and stopped, so that what any agent
		// costs once (the code paths paged in) is in the base.
		idle := func(id string) {
			l := hostwire.Launch{Session: id, Path: "/bin/sh", Args: []string{"-c", "echo ready; read x"}, Dir: dir,
				Env: []string{"PATH=/usr/bin:/bin"}, Recording: hostwire.Recording{Path: filepath.Join(dir, "rec", id+".cast")}, Attach: true}
			_, s, err := c.Launch(ctx, l)
			if err != nil {
				b.Fatal(err)
			}
			var out []byte
			for !bytes.Contains(out, []byte("ready")) {
				<-s.Ready()
				data, _, ended := s.Read()
				if ended {
					b.Fatalf("agent %s ended: %v", id, s.Err())
				}
				out = append(out, data...)
			}
			s.Close(ctx)
		}
		idle("ses_warm")
		c.Stop(ctx, "ses_warm", 0, true)
		before := rssKiB(b, h.PID)
		for k := range agents {
			idle(fmt.Sprintf("ses_idle%d", k))
		}
		after := rssKiB(b, h.PID)
		perAgent += float64(after-before) / agents
		base += float64(before)
		c.Close()
		syscall.Kill(h.PID, syscall.SIGTERM)
		<-h.Exited()
	}
	b.ReportMetric(perAgent/float64(i), "KiB/agent")
	b.ReportMetric(base/float64(i), "host-KiB")
}

// rssKiB is process pid's resident set (VmRSS), in KiB.
func rssKiB(b *testing.B, pid int) int {
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(s), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
