package supervisor

import (
	"sync"
	"time"
)

// chunk is one read from the PTY and when it arrived. Chunks are shared by
// every consumer and never written after the read loop hands them out.
type chunk struct {
	data []byte
	at   time.Time
	// resize, when set, is a terminal size change to take in order with
	// the output: the recorder's, and a hosted session's emulator's.
	resize [2]int
}

// queue hands chunks from the read loop to one consumer goroutine. Push
// never waits while the backlog is under limit bytes, so a slow consumer
// (a disk, an emulator behind a burst) does not slow the agent; the
// consumer takes everything queued at once, so a burst is handled in a
// few large batches rather than many small ones.
//
// Past limit Push waits for the consumer: the recording must keep every
// byte, and holding more than limit bytes in memory would be worse than
// slowing the agent down. With the limits used here that takes a consumer
// stalled for seconds.
type queue struct {
	limit int

	mu      sync.Mutex
	cond    *sync.Cond // signalled on every change; guarded by mu
	pending []chunk    // guarded by mu
	size    int        // bytes in pending; guarded by mu
	closed  bool       // guarded by mu: no more pushes
}

func newQueue(limit int) *queue {
	q := &queue{limit: limit}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push queues c. It returns false once the queue is closed.
func (q *queue) push(c chunk) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.size >= q.limit && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return false
	}
	q.pending = append(q.pending, c)
	q.size += len(c.data)
	q.cond.Broadcast()
	return true
}

// take waits for chunks and returns all of them, reusing buf's storage; it
// returns nil once the queue is closed and drained.
func (q *queue) take(buf []chunk) []chunk {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.pending) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.pending) == 0 {
		return nil
	}
	out := append(buf[:0], q.pending...)
	clear(q.pending)
	q.pending, q.size = q.pending[:0], 0
	q.cond.Broadcast()
	return out
}

// idle reports whether nothing is queued: the moment for a consumer to
// flush what it buffered.
func (q *queue) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending) == 0
}

// close lets the consumer drain what is queued and then stop.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// Subscription receives a session's output as it arrives. Reads coalesce
// whatever arrived since the last one; when the reader falls more than its
// limit behind, the excess is dropped and the next Read says so, so the
// reader can repaint from a Snapshot instead of the agent waiting for it.
type Subscription struct {
	limit  int
	notify chan struct{} // capacity 1: "there is something to read"
	cancel func()

	mu sync.Mutex
	// pending holds the chunks themselves, not a copy: chunks are never
	// written again, and the copy into one slice is then made by Read, on
	// the reader's goroutine rather than in the read loop.
	pending [][]byte // guarded by mu
	size    int      // bytes in pending; guarded by mu
	dropped int64    // bytes dropped since the last Read; guarded by mu
	closed  bool     // guarded by mu
}

func newSubscription(limit int) *Subscription {
	return &Subscription{limit: limit, notify: make(chan struct{}, 1)}
}

// offer queues p, which must never be written again, or drops it when the
// reader is too far behind. It never waits.
func (s *Subscription) offer(p []byte) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if s.size+len(p) > s.limit {
		s.dropped += int64(len(p))
	} else {
		s.pending = append(s.pending, p)
		s.size += len(p)
	}
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

func (s *Subscription) end() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Ready is signalled when Read has something to return (or the session
// has ended).
func (s *Subscription) Ready() <-chan struct{} { return s.notify }

// Read returns the output that arrived since the last Read, how many bytes
// were dropped before it, and whether the subscription has ended (the
// session exited or Close was called) with nothing left to read. The data
// may be shared with the session's other readers: it must not be modified.
func (s *Subscription) Read() (data []byte, dropped int64, ended bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(s.pending) == 1:
		// A reader that keeps up mostly finds one chunk: hand it over as
		// it is (read-only, like every chunk).
		data = s.pending[0]
	case s.size > 0:
		data = make([]byte, 0, s.size)
		for _, p := range s.pending {
			data = append(data, p...)
		}
	}
	dropped = s.dropped
	clear(s.pending)
	s.pending, s.size, s.dropped = s.pending[:0], 0, 0
	if s.closed && (len(data) > 0 || dropped > 0) {
		// The end is still to be told: wake the reader once more, or a
		// reader that waits on Ready after this Read would wait forever.
		select {
		case s.notify <- struct{}{}:
		default:
		}
	}
	return data, dropped, s.closed && len(data) == 0 && dropped == 0
}

// Close stops the subscription.
func (s *Subscription) Close() {
	if s.cancel != nil {
		s.cancel()
	}
	s.end()
}
