package supervisor

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/internal/flood"
)

// floodSize rounds n down to whole flood lines, so the output ends on a
// character boundary and the recording can hold it byte for byte.
func floodSize(n int) int {
	var b bytes.Buffer
	flood.Write(&b, 4096)
	line := bytes.IndexByte(b.Bytes(), '\n') + 1
	return n / line * line
}

// A child writing 100 MB as fast as it can, with a subscriber that stops
// reading: the subscriber loses output (and is told so) instead of slowing
// the child, and the recording has every byte.
func TestFloodWithSlowSubscriber(t *testing.T) {
	if testing.Short() {
		t.Skip("100 MB through a PTY")
	}
	n := floodSize(100 << 20)
	if raceEnabled {
		n = floodSize(10 << 20)
	}
	sv, _, _ := newTestSupervisor(t, os.Environ())
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_flood", Dir: t.TempDir(), Cols: 200, Rows: 50,
		Profile: standinProfile(t, profile.PromptNone, "flood", strconv.Itoa(n))})
	if err != nil {
		t.Fatal(err)
	}
	sub := s.Subscribe()
	var got, first, dropped int64
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for range sub.Ready() {
			data, d, ended := sub.Read()
			if got == 0 {
				first = int64(len(data))
			}
			got += int64(len(data))
			dropped += d
			if ended {
				return
			}
			// The slowest painter there is: one that does not come back
			// until the child is done. The child must not wait for it.
			<-s.Done()
		}
	}()
	start := time.Now()
	var exit Exit
	select {
	case <-s.Done():
		exit = *s.Exit()
	case <-time.After(2 * time.Minute):
		t.Fatal("the flood did not end in 2 minutes: the child waited for the subscriber")
	}
	elapsed := time.Since(start)
	<-readerDone
	if exit.Code != 0 {
		t.Fatalf("flood exit %+v", exit)
	}
	want := flood.AsTerminalOutput(n)
	if got+dropped != int64(len(want)) {
		t.Errorf("subscriber saw %d bytes and was told of %d dropped; want %d in all", got, dropped, len(want))
	}
	if dropped == 0 || got-first > subLimit {
		t.Errorf("a subscriber that did not read got %d bytes and lost %d: it should keep at most its %d-byte limit and be told of the rest", got, dropped, subLimit)
	}
	out, _ := readCast(t, s.Info().Recording)
	if len(out) != len(want) || sha256.Sum256([]byte(out)) != sha256.Sum256(want) {
		t.Errorf("recording has %d bytes, want the %d the child wrote", len(out), len(want))
	}
	// The last line is on the screen: the emulator kept up too.
	var last bytes.Buffer
	flood.Write(&last, n)
	lines := bytes.Split(bytes.TrimRight(last.Bytes(), "\n"), []byte("\n"))
	tail := string(lines[len(lines)-1][5:13]) // the line number
	waitScreen(t, s, tail)
	t.Logf("%d MB in %v (%.0f MB/s), subscriber got %d bytes, %d dropped", n>>20, elapsed, float64(n)/elapsed.Seconds()/1e6, got, dropped)
}

// BenchmarkPTY compares the supervisor's output path (recording, emulator
// and one subscriber reading as fast as it can) with a bare creack/pty
// copy to io.Discard, on the same child writing the same bytes. Each
// iteration runs both, one after the other, so that a machine whose load
// drifts (this one is shared) weighs on both alike; the figures are MB/s
// of each and their ratio.
func BenchmarkPTY(b *testing.B) {
	n := floodSize(32 << 20)
	bin := standinBin(b)
	dir := b.TempDir()
	sv := New(Config{RuntimeDir: dir + "/run", RecordingsDir: dir + "/rec", Env: os.Environ()})
	defer sv.Close(context.Background())
	prof := profile.Profile{ID: "flood", Name: "flood", Command: bin, Args: []string{"flood", strconv.Itoa(n)}, Prompt: profile.PromptNone}
	var bare, supervised time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		p, err := Start(Spec{Path: bin, Args: []string{"flood", strconv.Itoa(n)}, Cols: 200, Rows: 50})
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, p.PTY())
		p.Wait(context.Background())
		p.Close()
		bare += time.Since(start)

		i++
		supervised += floodSupervised(b, sv, LaunchSpec{SessionID: fmt.Sprintf("ses_bench%d", i), Dir: dir, Cols: 200, Rows: 50, Profile: prof})
	}
	mbps := func(d time.Duration) float64 { return float64(n) * float64(i) / d.Seconds() / 1e6 }
	b.ReportMetric(mbps(bare), "bare-MB/s")
	b.ReportMetric(mbps(supervised), "supervised-MB/s")
	b.ReportMetric(bare.Seconds()/supervised.Seconds(), "ratio")
}

// floodSupervised runs spec's agent in sv with one subscriber reading as
// fast as it can, and returns how long it took to end (its recording and
// emulator done); the recording is removed.
func floodSupervised(b *testing.B, sv *Supervisor, spec LaunchSpec) time.Duration {
	start := time.Now()
	s, err := sv.Launch(spec)
	if err != nil {
		b.Fatal(err)
	}
	sub := s.Subscribe()
	go func() {
		for range sub.Ready() {
			if _, _, ended := sub.Read(); ended {
				return
			}
		}
	}()
	<-s.Done()
	d := time.Since(start)
	sv.Forget(s.ID())
	os.Remove(s.Info().Recording)
	return d
}

// BenchmarkScreenLag measures how long after a 10 MB burst ends the
// emulated screen shows it: from the moment the burst's last line reached
// the read loop (a subscriber sees it) to the moment the screen holds it.
// The goal is well under a second.
func BenchmarkScreenLag(b *testing.B) {
	n := floodSize(10 << 20)
	bin := standinBin(b)
	dir := b.TempDir()
	sv := New(Config{RuntimeDir: dir + "/run", RecordingsDir: dir + "/rec", Env: os.Environ()})
	defer sv.Close(context.Background())
	var worst, total time.Duration
	i := 0
	for b.Loop() {
		i++
		s, err := sv.Launch(LaunchSpec{SessionID: fmt.Sprintf("ses_lag%d", i), Dir: dir, Cols: 200, Rows: 50,
			Profile: profile.Profile{ID: "burst", Name: "burst", Command: bin, Args: []string{"burst", strconv.Itoa(n)}, Prompt: profile.PromptNone}})
		if err != nil {
			b.Fatal(err)
		}
		sub := s.Subscribe()
		var seen []byte
		var arrived time.Time
		for range sub.Ready() {
			data, _, _ := sub.Read()
			seen = append(seen[max(0, len(seen)-64):], data...)
			if bytes.Contains(seen, []byte("BURST-DONE")) {
				arrived = time.Now()
				break
			}
		}
		ch, stop := s.ScreenChanged()
		for !bytes.Contains([]byte(s.Terminal().Text()), []byte("BURST-DONE")) {
			select {
			case <-ch:
			case <-time.After(time.Millisecond):
			}
		}
		lag := time.Since(arrived)
		stop()
		sub.Close()
		total += lag
		worst = max(worst, lag)
		s.Stop(context.Background(), true)
		sv.Forget(s.ID())
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(i), "ms-lag")
	b.ReportMetric(float64(worst.Milliseconds()), "ms-worst")
}
