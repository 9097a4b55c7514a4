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

	"github.com/switchboard-dev/switchboard/store"
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

// A child writing 100 MB as fast as it can, with a subscriber that reads
// slowly: the subscriber loses output (and is told so) instead of slowing
// the child, and the recording has every byte.
func TestFloodWithSlowSubscriber(t *testing.T) {
	if testing.Short() {
		t.Skip("100 MB through a PTY")
	}
	n := floodSize(100 << 20)
	sv, _, _ := newTestSupervisor(t, os.Environ())
	s, err := sv.Launch(LaunchSpec{SessionID: "ses_flood", Dir: t.TempDir(), Cols: 200, Rows: 50,
		Profile: standinProfile(t, store.PromptNone, "flood", strconv.Itoa(n))})
	if err != nil {
		t.Fatal(err)
	}
	sub := s.Subscribe()
	var got, dropped int64
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for range sub.Ready() {
			data, d, ended := sub.Read()
			got += int64(len(data))
			dropped += d
			if ended {
				return
			}
			time.Sleep(20 * time.Millisecond) // a slow painter
		}
	}()
	start := time.Now()
	exit := waitDone(t, s)
	elapsed := time.Since(start)
	<-readerDone
	if exit.Code != 0 {
		t.Fatalf("flood exit %+v", exit)
	}
	want := flood.AsTerminalOutput(n)
	if got+dropped != int64(len(want)) {
		t.Errorf("subscriber saw %d bytes and was told of %d dropped; want %d in all", got, dropped, len(want))
	}
	if dropped == 0 {
		t.Errorf("a subscriber reading every 20 ms kept up with 100 MB in %v: the child must have waited for it", elapsed)
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
	t.Logf("100 MB in %v (%.0f MB/s), subscriber got %d bytes, %d dropped", elapsed, float64(n)/elapsed.Seconds()/1e6, got, dropped)
}

// BenchmarkPTY compares the supervisor's output path (recording, emulator
// and one subscriber reading as fast as it can) with a bare creack/pty
// copy to io.Discard, on the same child writing the same bytes.
func BenchmarkPTY(b *testing.B) {
	n := floodSize(32 << 20)
	bin := standinBin(b)
	b.Run("bare", func(b *testing.B) {
		b.SetBytes(int64(n))
		for b.Loop() {
			p, err := Start(Spec{Path: bin, Args: []string{"flood", strconv.Itoa(n)}, Cols: 200, Rows: 50})
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, p.PTY())
			p.Wait(context.Background())
			p.Close()
		}
	})
	b.Run("supervised", func(b *testing.B) {
		dir := b.TempDir()
		sv := New(Config{RuntimeDir: dir + "/run", RecordingsDir: dir + "/rec", Env: os.Environ()})
		b.SetBytes(int64(n))
		i := 0
		for b.Loop() {
			i++
			s, err := sv.Launch(LaunchSpec{SessionID: fmt.Sprintf("ses_bench%d", i), Dir: dir, Cols: 200, Rows: 50,
				Profile: store.Profile{ID: "flood", Name: "flood", Command: bin, Args: []string{"flood", strconv.Itoa(n)}, Prompt: store.PromptNone}})
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
			sv.Forget(s.ID())
			os.Remove(s.Info().Recording)
		}
	})
}
