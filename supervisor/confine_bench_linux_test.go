package supervisor

// What confinement costs an agent, each figure beside the same agent
// started unconfined by the same supervisor in the same run, the two
// interleaved so that a shared machine's drift weighs on both: the start
// (issue 29: at most 50 ms more) and the PTY's throughput (at least 0.95×).
// Both skip, saying why, where bubblewrap cannot make a sandbox: a Landlock
// start is not the figure the goals are about.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// benchHelperEnv names the binary that runs the sandbox helper in these
// benchmarks. mcpbench gives switchboard-sandbox, the helper a person's
// agents start through (make build lays it beside the switchboard
// binary); unset, this test binary is the helper.
const benchHelperEnv = "SWITCHBOARD_BENCH_HELPER"

// confinedBench is a supervisor that confines with bubblewrap, a worktree
// for its agents, and the policy a confined agent gets there: the worktree
// writable, the supervisor's runtime folder hidden (the product hides
// Switchboard's own folders and binds the session's files back in), and
// home from $HOME (homePolicy adds the person's keys, hidden, and the
// CLIs' caches, writable). It skips the benchmark when bubblewrap cannot
// run here.
func confinedBench(b *testing.B) (*Supervisor, string, *confine.Policy) {
	b.Helper()
	dir := b.TempDir()
	sv := New(Config{RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "rec"), Env: os.Environ(),
		Helper: os.Getenv(benchHelperEnv)})
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		sv.Close(ctx)
	})
	sup := sv.support()
	if sup.Bwrap == "" {
		b.Skip(sup.BwrapWhy)
	}
	home := os.Getenv("HOME")
	if home == "" {
		b.Skip("HOME is not set: a confined agent's policy starts from it")
	}
	wt := filepath.Join(dir, "wt")
	if err := os.MkdirAll(wt, 0o700); err != nil {
		b.Fatal(err)
	}
	return sv, wt, &confine.Policy{Home: home, Dir: wt, Writable: []string{wt}, Hidden: []string{sv.cfg.RuntimeDir}}
}

// launchBench starts one agent in wt, confined by pol or not (nil), and
// checks that it is held as asked: a figure of an agent that was not
// confined must never pass for a confined one.
func launchBench(b *testing.B, sv *Supervisor, id, wt string, prof profile.Profile, pol *confine.Policy) *Session {
	b.Helper()
	s, err := sv.Launch(LaunchSpec{SessionID: id, Dir: wt, Cols: 200, Rows: 50, Profile: prof, Policy: pol})
	if err != nil {
		b.Fatal(err)
	}
	want := LevelNone
	if pol != nil {
		want = "confined (bubblewrap)"
	}
	if c := s.Info().Confinement; pol != nil && c.Method != "bubblewrap" || pol == nil && c.Level != LevelNone {
		s.Stop(context.Background(), true)
		b.Fatalf("session %s is %s; want %s", id, c, want)
	}
	return s
}

// endBench kills s and forgets it with its recording.
func endBench(b *testing.B, sv *Supervisor, s *Session) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Stop(ctx, true); err != nil {
		b.Fatal(err)
	}
	sv.Forget(s.ID())
	os.Remove(s.Info().Recording)
}

// BenchmarkConfinedStart times Launch to the agent's first line on the
// emulated screen (what a person sees first), confined and unconfined in
// turns, the order swapped each iteration. The agent is the stand-in, which
// prints one line and waits ("burst 0"); each is killed before the next
// starts. One untimed start of each comes first (page cache, bubblewrap's
// first run). The figures are the median and p90 of each kind and the
// confined minus the unconfined.
func BenchmarkConfinedStart(b *testing.B) {
	sv, wt, pol := confinedBench(b)
	prof := profile.Profile{ID: "ready", Name: "ready", Command: standinBin(b), Args: []string{"burst", "0"}, Prompt: profile.PromptNone}
	i := 0
	start := func(p *confine.Policy) time.Duration {
		i++
		begun := time.Now()
		s := launchBench(b, sv, fmt.Sprintf("ses_start%d", i), wt, prof, p)
		ch, stop := s.ScreenChanged()
		deadline := time.After(10 * time.Second)
		for !strings.Contains(s.Terminal().Text(), "BURST-DONE") {
			select {
			case <-ch:
			case <-deadline:
				b.Fatalf("the agent's line never reached the screen; it shows:\n%s", s.Terminal().Text())
			}
		}
		took := time.Since(begun)
		stop()
		endBench(b, sv, s)
		return took
	}
	start(nil)
	start(pol)
	var unconfined, confined []time.Duration
	for b.Loop() {
		if len(confined)%2 == 0 {
			unconfined = append(unconfined, start(nil))
			confined = append(confined, start(pol))
		} else {
			confined = append(confined, start(pol))
			unconfined = append(unconfined, start(nil))
		}
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	u50, u90 := quantile(unconfined, 0.5), quantile(unconfined, 0.9)
	c50, c90 := quantile(confined, 0.5), quantile(confined, 0.9)
	b.ReportMetric(ms(u50), "unconfined-ms")
	b.ReportMetric(ms(u90), "unconfined-p90-ms")
	b.ReportMetric(ms(c50), "confined-ms")
	b.ReportMetric(ms(c90), "confined-p90-ms")
	b.ReportMetric(ms(c50-u50), "overhead-ms")
	b.ReportMetric(ms(c90-u90), "overhead-p90-ms")
	b.ReportMetric(float64(len(confined)), "starts")
}

// quantile is the nearest-rank q-quantile of ds (the median of an even
// count is the lower middle one).
func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	k := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(k, len(s)-1))]
}

// BenchmarkPTYConfined is BenchmarkPTY's supervised half (recording,
// emulator and one subscriber reading everything) with the agent confined
// by bubblewrap, against the same agent unconfined, in turns, the order
// swapped each iteration. Each run is timed from the first output the
// subscriber reads to the last: the start, which confinement slows, is
// BenchmarkConfinedStart's figure, and counted here it would weigh as much
// as the flood is short. The figures are MB/s of each and confined over
// unconfined.
func BenchmarkPTYConfined(b *testing.B) {
	sv, wt, pol := confinedBench(b)
	n := floodSize(32 << 20)
	prof := profile.Profile{ID: "flood", Name: "flood", Command: standinBin(b), Args: []string{"flood", strconv.Itoa(n)}, Prompt: profile.PromptNone}
	i := 0
	run := func(p *confine.Policy) time.Duration {
		i++
		s := launchBench(b, sv, fmt.Sprintf("ses_flood%d", i), wt, prof, p)
		sub := s.Subscribe()
		var first, last time.Time
		read := make(chan struct{})
		go func() {
			defer close(read)
			for range sub.Ready() {
				data, _, ended := sub.Read()
				if len(data) > 0 {
					last = time.Now()
					if first.IsZero() {
						first = last
					}
				}
				if ended {
					return
				}
			}
		}()
		<-s.Done()
		<-read
		if e := s.Exit(); e.Code != 0 {
			b.Fatalf("flood exit %+v", *e)
		}
		sv.Forget(s.ID())
		os.Remove(s.Info().Recording)
		return last.Sub(first)
	}
	var unconfined, confined time.Duration
	k := 0
	for b.Loop() {
		if k%2 == 0 {
			unconfined += run(nil)
			confined += run(pol)
		} else {
			confined += run(pol)
			unconfined += run(nil)
		}
		k++
	}
	mbps := func(d time.Duration) float64 { return float64(n) * float64(k) / d.Seconds() / 1e6 }
	b.ReportMetric(mbps(unconfined), "unconfined-MB/s")
	b.ReportMetric(mbps(confined), "confined-MB/s")
	b.ReportMetric(unconfined.Seconds()/confined.Seconds(), "ratio")
}
