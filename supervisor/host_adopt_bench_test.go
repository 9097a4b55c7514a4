//go:build linux

package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// fullScreenScript fills a 120×40 terminal and 10,000 lines of scrollback
// with coloured lines, says READY and waits.
const fullScreenScript = `i=0
while [ $i -lt 10100 ]; do
  printf '\033[3%dm%06d\033[0m the quick brown fox jumps over the lazy dog \033[1m0123456789\033[22m abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMN\n' $((i % 8)) $i
  i=$((i+1))
done
printf READY
read x`

// BenchmarkHostAdopt is adoption after a restart: a client new to the host
// attaches to 10 running agents, each with a full 120×40 screen and 10,000
// lines of scrollback, and rebuilds their screens in fresh terminals from
// the states the host sends (adopt-ms, goal < 500 ms). Beside it, in the
// same run, the same client starts 10 agents fresh through the host, each
// until its first output has come (fresh-ms).
func BenchmarkHostAdopt(b *testing.B) {
	const agents = 10
	dir := shortTempDir(b)
	ctx := context.Background()
	h, err := StartHost(ctx, testHostStart(b, dir, time.Minute))
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		syscall.Kill(h.PID, syscall.SIGTERM)
		<-h.Exited()
	}()
	launch := func(id, script string) hostwire.Launch {
		return hostwire.Launch{Session: id, Path: "/bin/sh", Args: []string{"-c", script}, Dir: dir,
			Env: []string{"PATH=/usr/bin:/bin", "TERM=xterm-256color"}, Cols: 120, Rows: 40,
			Recording: hostwire.Recording{Path: filepath.Join(dir, "rec", id+".cast")}, Attach: true}
	}
	// The agents to adopt, started by a first client that then goes away.
	first, err := DialHost(ctx, h.Socket, "bench")
	if err != nil {
		b.Fatal(err)
	}
	for k := range agents {
		_, s, err := first.Launch(ctx, launch(fmt.Sprintf("ses_full%d", k), fullScreenScript))
		if err != nil {
			b.Fatal(err)
		}
		if err := benchReadUntil(s, "READY"); err != nil {
			b.Fatal(err)
		}
	}
	first.Close()

	var adopt, fresh time.Duration
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		c, err := DialHost(ctx, h.Socket, "bench")
		if err != nil {
			b.Fatal(err)
		}
		list, err := c.List(ctx)
		if err != nil {
			b.Fatal(err)
		}
		terms := make([]*vt.Terminal, len(list))
		var wg sync.WaitGroup
		for k, a := range list {
			if a.Status != hostwire.StatusRunning {
				continue
			}
			wg.Go(func() {
				s, err := c.Attach(ctx, a.Session)
				if err != nil {
					b.Error(err)
					return
				}
				term, got := streamTerm(s), uint64(0)
				for got < s.Attached().Caught {
					<-s.Ready()
					data, _, ended := s.Read()
					term.Resize(s.Size())
					term.Write(data)
					got += uint64(len(data))
					if ended {
						b.Errorf("%s: the stream ended in its state: %v", a.Session, s.Err())
						return
					}
				}
				terms[k] = term
				s.Close(ctx)
			})
		}
		wg.Wait()
		adopt += time.Since(start)
		for _, term := range terms {
			if term != nil && (term.ScrollbackLen() != 10000 || !bytes.Contains([]byte(term.Text()), []byte("READY"))) {
				b.Fatalf("an adopted screen has %d lines of scrollback and shows %q", term.ScrollbackLen(), term.Text())
			}
		}

		start = time.Now()
		for k := range agents {
			wg.Go(func() {
				_, s, err := c.Launch(ctx, launch(fmt.Sprintf("ses_fresh%d_%d", i, k), "echo ready; read x"))
				if err != nil {
					b.Error(err)
					return
				}
				if err := benchReadUntil(s, "ready"); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
		fresh += time.Since(start)
		for k := range agents {
			c.Stop(ctx, fmt.Sprintf("ses_fresh%d_%d", i, k), 0, true)
		}
		c.Close()
	}
	b.ReportMetric(float64(adopt.Milliseconds())/float64(i), "adopt-ms")
	b.ReportMetric(float64(fresh.Milliseconds())/float64(i), "fresh-ms")
}

// benchReadUntil reads s until the newest bytes read hold want.
func benchReadUntil(s *HostStream, want string) error {
	var out []byte
	for !bytes.Contains(out, []byte(want)) {
		<-s.Ready()
		data, _, ended := s.Read()
		if ended {
			return fmt.Errorf("%s: the stream ended before %q: %v", s.Attached().Session, want, s.Err())
		}
		out = append(out[max(0, len(out)-len(want)):], data...)
	}
	return nil
}
