//go:build unix

package supervisor

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
)

// hostConn is one client's connection to the agent host. Frames to the
// client go through a queue and one writer goroutine: the agents' read
// loops queue output without waiting, and a client that stops reading
// loses its attachments (with an event saying why), never the agents'
// pace.
type hostConn struct {
	h    *hostServer
	nc   net.Conn
	r    *hostwire.Reader // what follows the hello
	log  *slog.Logger
	wake chan struct{} // capacity 1: "there is something to write"
	// served is closed when serve has returned: the queue flushed (or
	// given up on) and the connection closed.
	served chan struct{}

	mu     sync.Mutex
	frames []outFrame            // guarded by mu
	queued int                   // bytes in frames; guarded by mu
	closed bool                  // guarded by mu
	agents map[string]*hostAgent // attached to; guarded by mu
}

// outFrame is one frame to write: head, then data (an output frame's
// bytes, shared read-only with the read loop that read them).
type outFrame struct{ head, data []byte }

const (
	// connQueueLimit is everything a connection may have waiting (the
	// catch-up of many agents, replies) before it is closed: a client
	// that asks and never reads.
	connQueueLimit = 256 << 20
	// connFlushWait is how long a closing connection gets to take what
	// is still queued for it.
	connFlushWait = 2 * time.Second
)

func newHostConn(h *hostServer, nc net.Conn, r *hostwire.Reader, log *slog.Logger) *hostConn {
	return &hostConn{h: h, nc: nc, r: r, log: log, wake: make(chan struct{}, 1), served: make(chan struct{}), agents: map[string]*hostAgent{}}
}

// serve reads the client's frames until it goes away; the writer runs
// beside it.
func (c *hostConn) serve() {
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		c.writeLoop()
	}()
	defer func() {
		c.close()
		<-writerDone
		c.h.forget(c)
		close(c.served)
	}()
	for {
		t, p, err := c.r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.log.Info("client connection ended", "err", err)
			}
			return
		}
		switch t {
		case hostwire.TypeRequest:
			var req hostwire.Request
			if err := json.Unmarshal(p, &req); err != nil {
				c.log.Warn("client sent a request that is not JSON; closing", "err", err)
				return
			}
			c.h.handle(c, req)
		case hostwire.TypeInput:
			id, data, err := hostwire.ParseInput(p)
			if err != nil {
				c.log.Warn("client sent a malformed input frame; closing", "err", err)
				return
			}
			c.h.input(c, id, append([]byte(nil), data...))
		default:
			c.log.Warn("client sent an unexpected frame; closing", "type", t)
			return
		}
	}
}

// writeLoop writes what is queued, a batch at a time (writev), until the
// connection is closed and its queue drained.
func (c *hostConn) writeLoop() {
	defer c.nc.Close()
	var batch []outFrame
	var bufs net.Buffers
	for {
		c.mu.Lock()
		for len(c.frames) == 0 && !c.closed {
			c.mu.Unlock()
			<-c.wake
			c.mu.Lock()
		}
		if len(c.frames) == 0 {
			c.mu.Unlock()
			return
		}
		batch = append(batch[:0], c.frames...)
		clear(c.frames)
		c.frames, c.queued = c.frames[:0], 0
		c.mu.Unlock()
		bufs = bufs[:0]
		for _, f := range batch {
			bufs = append(bufs, f.head)
			if len(f.data) > 0 {
				bufs = append(bufs, f.data)
			}
		}
		clear(batch)
		if _, err := bufs.WriteTo(c.nc); err != nil {
			c.close()
			return
		}
	}
}

// pushLocked queues f and wakes the writer. c.mu is held.
func (c *hostConn) pushLocked(f outFrame) {
	c.frames = append(c.frames, f)
	c.queued += len(f.head) + len(f.data)
	select {
	case c.wake <- struct{}{}:
	default:
	}
	if c.queued > connQueueLimit && !c.closed {
		c.log.Warn("client is not reading; closing its connection", "queued", c.queued)
		c.closeLocked()
	}
}

// send queues one control frame.
func (c *hostConn) send(t hostwire.Type, v any) {
	payload, err := json.Marshal(v)
	if err != nil {
		c.log.Error("encode a frame", "type", t, "err", err)
		return
	}
	frame := append(hostwire.AppendHeader(make([]byte, 0, 5+len(payload)), t, len(payload)), payload...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.pushLocked(outFrame{head: frame})
	}
}

// offerOutput queues an output frame unless the connection already has
// HostConfig.Backlog bytes waiting: then it returns false, and the caller
// detaches it. It never waits. data must never be written again.
func (c *hostConn) offerOutput(id string, off uint64, data []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.queued+len(data) > c.h.cfg.Backlog {
		return false
	}
	c.queueOutputLocked(id, off, data)
	return true
}

// queueState queues an agent's screen state as state frames, whatever is
// waiting: the emulator's size and scrollback bound it. off is where the
// live output resumes. state must never be written again.
func (c *hostConn) queueState(id string, off uint64, state []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	const most = hostwire.MaxPayload - hostwire.OutputHeaderSize
	for len(state) > 0 && !c.closed {
		n := min(len(state), most)
		c.queueLocked(hostwire.TypeState, id, off, state[:n])
		state = state[n:]
	}
}

func (c *hostConn) queueOutputLocked(id string, off uint64, data []byte) {
	c.queueLocked(hostwire.TypeOutput, id, off, data)
}

func (c *hostConn) queueLocked(t hostwire.Type, id string, off uint64, data []byte) {
	head := make([]byte, 0, 5+1+len(id)+8)
	head = hostwire.AppendHeader(head, t, 1+len(id)+8+len(data))
	head = hostwire.AppendOutputHeader(head, id, off)
	c.pushLocked(outFrame{head: head, data: data})
}

// attachedTo records that a sends its output here, for close to undo.
// Called with a.mu held.
func (c *hostConn) attachedTo(a *hostAgent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.agents[a.id] = a
}

// detachedFrom forgets the attachment to session id.
func (c *hostConn) detachedFrom(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.agents, id)
}

// dropped tells the client that session id's output no longer comes here,
// and why. Called with the agent's lock held, by the agent that detached
// it.
func (c *hostConn) dropped(id, reason string) {
	c.detachedFrom(id)
	c.log.Warn("detached a client", "session", id, "reason", reason)
	c.send(hostwire.TypeEvent, hostwire.Event{Kind: hostwire.EventDetached, Session: id, Reason: reason})
}

// close ends the connection: the writer flushes what is queued (for
// connFlushWait at most) and closes it; every attachment is undone.
func (c *hostConn) close() {
	c.mu.Lock()
	if !c.closed {
		c.closeLocked()
	}
	agents := c.agents
	c.agents = map[string]*hostAgent{}
	c.mu.Unlock()
	for _, a := range agents {
		a.detach(c)
	}
}

// closeLocked marks the connection closed and wakes the writer. c.mu is
// held; attachments stay until close, which cannot run under an agent's
// lock (offerOutput refuses a closed connection meanwhile).
func (c *hostConn) closeLocked() {
	c.closed = true
	c.nc.SetWriteDeadline(time.Now().Add(connFlushWait))
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// shutdown closes the connection's reading side too, for a host that is
// going away: serve returns and the writer flushes and closes.
func (c *hostConn) shutdown() {
	c.close()
	c.nc.SetReadDeadline(time.Now())
}
