//go:build unix

package supervisor

import (
	"context"
	"fmt"
	"sync"

	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
)

// HostStream is one agent's output as a HostClient gets it: the catch-up,
// then the live output, checked to follow on without a gap or a repeat.
// Reads coalesce what arrived since the last one, as a Subscription's do.
type HostStream struct {
	c   *HostClient
	at  hostwire.Attached
	sub *Subscription

	mu   sync.Mutex
	next uint64         // the offset the next output must start at; guarded by mu
	err  error          // why it ended early; guarded by mu
	exit *hostwire.Exit // how the agent ended; guarded by mu
}

func newHostStream(c *HostClient, at hostwire.Attached) *HostStream {
	return &HostStream{c: c, at: at, sub: newSubscription(hostStreamLimit), next: at.Offset}
}

// deliver takes one output frame's bytes, which the connection's reader
// will overwrite: they are copied.
func (s *HostStream) deliver(off uint64, data []byte) {
	s.mu.Lock()
	if off != s.next {
		if s.err == nil {
			s.err = fmt.Errorf("agent host output for %s at byte %d, expected %d: a gap or a repeat", s.at.Session, off, s.next)
		}
		s.mu.Unlock()
		s.sub.end()
		return
	}
	s.next += uint64(len(data))
	s.mu.Unlock()
	s.sub.offer(append([]byte(nil), data...))
}

// ended ends the stream: the agent ended (e), or err says why not.
func (s *HostStream) ended(e *hostwire.Exit, err error) {
	s.mu.Lock()
	s.exit = e
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.sub.end()
}

func (s *HostStream) finish(err error) { s.ended(nil, err) }

// over is s, ended at once.
func (s *HostStream) over() *HostStream {
	s.sub.end()
	return s
}

// Attached is the host's answer to the attach: where the catch-up starts
// and how long it is.
func (s *HostStream) Attached() hostwire.Attached { return s.at }

// Ready is signalled when Read has something to return, or the stream
// has ended.
func (s *HostStream) Ready() <-chan struct{} { return s.sub.Ready() }

// Read returns the output since the last Read, how much was dropped
// before it because the reader fell more than 16 MiB behind, and whether
// the stream has ended with nothing left to read.
func (s *HostStream) Read() (data []byte, dropped int64, ended bool) { return s.sub.Read() }

// Offset is the stream offset just past the output received so far.
func (s *HostStream) Offset() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// Err says why the stream ended other than by the agent's exit: detached
// by the host, a gap, the connection gone. nil while it runs.
func (s *HostStream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Exit is how the agent ended, once the stream has ended with it.
func (s *HostStream) Exit() *hostwire.Exit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exit
}

// Close detaches from the agent; the agent goes on.
func (s *HostStream) Close(ctx context.Context) error { return s.c.Detach(ctx, s.at.Session) }
