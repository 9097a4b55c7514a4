//go:build unix

package supervisor

import (
	"context"
	"fmt"
	"sync"

	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
)

// HostStream is one agent's output as a HostClient gets it: the screen's
// state, then the live output, checked to follow on without a gap or a
// repeat. A consumer feeds everything it Reads to a fresh vt.Terminal made
// as Attached says (its size and scrollback), resizing it to Size after
// each Read and before writing what the Read returned:
//
//	data, _, ended := s.Read()
//	term.Resize(s.Size())
//	term.Write(data)
//
// and its terminal is then the host's. That terminal must not answer the
// program's queries (no vt.WithReply): the host's emulator does.
//
// Reads coalesce what arrived since the last one, as a Subscription's do,
// but never across a resize: the bytes of one Read were all printed at
// the one size.
type HostStream struct {
	c      *HostClient
	at     hostwire.Attached
	notify chan struct{} // capacity 1: "there is something to read"

	mu      sync.Mutex
	pending []streamPart   // guarded by mu
	live    int            // live output bytes in pending; guarded by mu
	dropped int64          // live bytes dropped since the last Read; guarded by mu
	closed  bool           // guarded by mu
	state   uint64         // state bytes received; guarded by mu
	next    uint64         // the offset the next output must start at; guarded by mu
	size    hostwire.Size  // what the last Read's bytes were printed at; guarded by mu
	err     error          // why it ended early; guarded by mu
	exit    *hostwire.Exit // how the agent ended; guarded by mu
}

// streamPart is bytes to feed (live output, or the state), or (resize
// set) a new size for what follows.
type streamPart struct {
	data   []byte
	live   bool
	resize *hostwire.Size
}

func newHostStream(c *HostClient, at hostwire.Attached) *HostStream {
	return &HostStream{c: c, at: at, notify: make(chan struct{}, 1), next: at.Offset,
		size: hostwire.Size{Cols: at.Cols, Rows: at.Rows}}
}

// deliverState takes one state frame's bytes (copied: the connection's
// reader reuses them). The state is never dropped: the screen cannot be
// rebuilt without all of it, and the host's emulator bounds it.
func (s *HostStream) deliverState(off uint64, data []byte) {
	s.mu.Lock()
	if off != s.at.Offset || s.next != s.at.Offset || s.state+uint64(len(data)) > s.at.Caught {
		s.failLocked(fmt.Errorf("agent host state for %s out of place (%d bytes at %d after %d of output)",
			s.at.Session, len(data), off, s.next-s.at.Offset))
		return
	}
	s.state += uint64(len(data))
	s.pushLocked(streamPart{data: append([]byte(nil), data...)})
}

// deliver takes one output frame's bytes, which the connection's reader
// will overwrite: they are copied.
func (s *HostStream) deliver(off uint64, data []byte) {
	s.mu.Lock()
	switch {
	case s.state != s.at.Caught:
		s.failLocked(fmt.Errorf("agent host output for %s after %d bytes of its state, expected %d", s.at.Session, s.state, s.at.Caught))
		return
	case off != s.next:
		s.failLocked(fmt.Errorf("agent host output for %s at byte %d, expected %d: a gap or a repeat", s.at.Session, off, s.next))
		return
	}
	s.next += uint64(len(data))
	if s.closed {
		s.mu.Unlock()
		return
	}
	if s.live+len(data) > hostStreamLimit {
		s.dropped += int64(len(data))
		s.mu.Unlock()
		s.wake()
		return
	}
	s.live += len(data)
	s.pushLocked(streamPart{data: append([]byte(nil), data...), live: true})
}

// resized takes the host's word that what follows was printed at size.
func (s *HostStream) resized(size hostwire.Size) {
	s.mu.Lock()
	s.pushLocked(streamPart{resize: &size})
}

// pushLocked queues p, unlocks s.mu and wakes the reader.
func (s *HostStream) pushLocked(p streamPart) {
	if !s.closed {
		s.pending = append(s.pending, p)
	}
	s.mu.Unlock()
	s.wake()
}

// failLocked ends the stream with err, unlocks s.mu and wakes the reader.
func (s *HostStream) failLocked(err error) {
	if s.err == nil {
		s.err = err
	}
	s.closed = true
	s.mu.Unlock()
	s.wake()
}

func (s *HostStream) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// ended ends the stream: the agent ended (e), or err says why not.
func (s *HostStream) ended(e *hostwire.Exit, err error) {
	s.mu.Lock()
	s.exit = e
	s.failLocked(err)
}

func (s *HostStream) finish(err error) { s.ended(nil, err) }

// over is s, ended at once.
func (s *HostStream) over() *HostStream {
	s.mu.Lock()
	s.failLocked(nil)
	return s
}

// Attached is the host's answer to the attach: the terminal the stream's
// bytes rebuild (size and scrollback), how many bytes of state come first
// and the output offset the live bytes start at.
func (s *HostStream) Attached() hostwire.Attached { return s.at }

// Ready is signalled when Read has something to return, or the stream
// has ended.
func (s *HostStream) Ready() <-chan struct{} { return s.notify }

// Read returns what arrived since the last Read, up to the next resize;
// how much live output was dropped before it because the reader fell more
// than 16 MiB behind (the state never is); and whether the stream has
// ended with nothing left to read.
func (s *HostStream) Read() (data []byte, dropped int64, ended bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	if len(s.pending) > 0 && s.pending[0].resize != nil {
		s.size = *s.pending[0].resize
		n = 1
	}
	first, size := n, 0
	for ; n < len(s.pending) && s.pending[n].resize == nil; n++ {
		size += len(s.pending[n].data)
	}
	switch {
	case n-first == 1:
		data = s.pending[first].data
	case size > 0:
		data = make([]byte, 0, size)
		for _, p := range s.pending[first:n] {
			data = append(data, p.data...)
		}
	}
	for _, p := range s.pending[first:n] {
		if p.live {
			s.live -= len(p.data)
		}
	}
	dropped = s.dropped
	s.pending = append(s.pending[:0], s.pending[n:]...)
	s.dropped = 0
	if len(s.pending) > 0 || (s.closed && (len(data) > 0 || dropped > 0)) {
		// A resize and what follows it are still to be read, or the
		// end is still to be told: wake the reader once more.
		s.wake()
	}
	ended = s.closed && len(s.pending) == 0 && len(data) == 0 && dropped == 0
	return data, dropped, ended
}

// Size is the terminal size the bytes of the last Read were printed at:
// the consumer's terminal takes it before they are written. Before the
// first resize it is the size Attached names.
func (s *HostStream) Size() (cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size.Cols, s.size.Rows
}

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
