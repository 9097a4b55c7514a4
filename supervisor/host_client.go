//go:build unix

package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
)

// HostClient is a connection to an agent host: calls, the output of the
// agents it attached to, and the host's events. It is safe for concurrent
// use.
type HostClient struct {
	nc     net.Conn
	host   hostwire.Hello
	events chan hostwire.Event
	done   chan struct{} // closed when the connection has ended

	wmu sync.Mutex // serialises frames written

	mu      sync.Mutex
	next    uint64                         // guarded by mu
	pending map[uint64]chan hostwire.Reply // guarded by mu
	streams map[string]*HostStream         // guarded by mu
	err     error                          // why it ended; guarded by mu, set before done closes
}

// hostStreamLimit is how far a HostStream's reader may fall behind before
// output is dropped (and Read says how much): the catch-up and a burst.
const hostStreamLimit = 16 << 20

// ErrHostGone is the cause of a call on a connection that has ended.
var ErrHostGone = errors.New("the connection to the agent host has ended")

// DialHost connects to the host at socket and exchanges hellos. A host
// that speaks no version this one does is refused (hostwire.ErrVersion),
// as is a host's refusal of this process (hostwire.ErrPeer).
func DialHost(ctx context.Context, socket, binary string) (*HostClient, error) {
	return dialHost(ctx, socket, clientHello(binary))
}

func clientHello(binary string) hostwire.Hello {
	return hostwire.Hello{Protocol: hostwire.Version, MinProtocol: hostwire.MinVersion, PID: os.Getpid(), Binary: binary, Started: time.Now()}
}

func dialHost(ctx context.Context, socket string, hello hostwire.Hello) (*HostClient, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, fmt.Errorf("connect to the agent host: %w", err)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(helloWait)
	}
	nc.SetDeadline(deadline)
	fail := func(err error) (*HostClient, error) {
		nc.Close()
		return nil, err
	}
	b, _ := json.Marshal(hello)
	// A host that refuses still answers: its hello says why, and is
	// read even when the write failed.
	werr := hostwire.WriteFrame(nc, hostwire.TypeHello, b)
	r := hostwire.NewReader(nc)
	t, p, err := r.Next()
	if err != nil || t != hostwire.TypeHello {
		if werr != nil {
			err = werr
		}
		return fail(fmt.Errorf("the agent host sent no hello (%s): %w", t, err))
	}
	var theirs hostwire.Hello
	if err := json.Unmarshal(p, &theirs); err != nil {
		return fail(fmt.Errorf("the agent host's hello: %w", err))
	}
	if ref := theirs.Refused; ref != nil {
		cause := hostwire.ErrPeer
		if ref.Code == hostwire.RefusedVersion {
			cause = hostwire.ErrVersion
		}
		return fail(fmt.Errorf("%w: %s", cause, ref.Message))
	}
	if _, err := hostwire.Negotiate(hello, theirs); err != nil {
		return fail(fmt.Errorf("agent host %d: %w", theirs.PID, err))
	}
	nc.SetDeadline(time.Time{})
	c := &HostClient{nc: nc, host: theirs, events: make(chan hostwire.Event, 256), done: make(chan struct{}),
		pending: map[uint64]chan hostwire.Reply{}, streams: map[string]*HostStream{}}
	go c.readLoop(r)
	return c, nil
}

// Host is the host's hello: its pid, version and start time.
func (c *HostClient) Host() hostwire.Hello { return c.host }

// Events delivers what the host tells unasked (exits, dropped
// attachments). Events that find it full are dropped: the host's list is
// the truth.
func (c *HostClient) Events() <-chan hostwire.Event { return c.events }

// Done is closed when the connection has ended.
func (c *HostClient) Done() <-chan struct{} { return c.done }

// Close ends the connection. The agents go on.
func (c *HostClient) Close() error {
	err := c.nc.Close()
	<-c.done
	return err
}

func (c *HostClient) readLoop(r *hostwire.Reader) {
	var err error
	defer func() { c.end(err) }()
	for {
		var t hostwire.Type
		var p []byte
		if t, p, err = r.Next(); err != nil {
			return
		}
		switch t {
		case hostwire.TypeReply:
			var rep hostwire.Reply
			if err = json.Unmarshal(p, &rep); err != nil {
				return
			}
			c.replied(rep)
		case hostwire.TypeEvent:
			var ev hostwire.Event
			if err = json.Unmarshal(p, &ev); err != nil {
				return
			}
			c.event(ev)
		case hostwire.TypeOutput, hostwire.TypeState:
			var id string
			var off uint64
			var data []byte
			if id, off, data, err = hostwire.ParseOutput(p); err != nil {
				return
			}
			c.mu.Lock()
			s := c.streams[id]
			c.mu.Unlock()
			switch {
			case s == nil:
			case t == hostwire.TypeState:
				s.deliverState(off, data)
			default:
				s.deliver(off, data)
			}
		default:
			err = fmt.Errorf("%w: unexpected %s frame", hostwire.ErrFrame, t)
			return
		}
	}
}

// replied hands a reply to its caller. An attach's stream is registered
// here, on the reading goroutine, before the output that follows it is
// read.
func (c *HostClient) replied(rep hostwire.Reply) {
	c.mu.Lock()
	if at := rep.Attached; at != nil {
		if old := c.streams[at.Session]; old != nil {
			old.finish(errors.New("attached again"))
		}
		c.streams[at.Session] = newHostStream(c, *at)
	}
	ch := c.pending[rep.ID]
	delete(c.pending, rep.ID)
	c.mu.Unlock()
	if ch != nil {
		ch <- rep
	}
}

func (c *HostClient) event(ev hostwire.Event) {
	switch ev.Kind {
	case hostwire.EventResize:
		c.mu.Lock()
		s := c.streams[ev.Session]
		c.mu.Unlock()
		if s != nil && ev.Size != nil {
			s.resized(*ev.Size)
		}
	case hostwire.EventExit, hostwire.EventDetached:
		c.mu.Lock()
		s := c.streams[ev.Session]
		delete(c.streams, ev.Session)
		c.mu.Unlock()
		if s != nil {
			var err error
			if ev.Kind == hostwire.EventDetached {
				err = errors.New("detached by the agent host: " + ev.Reason)
			}
			s.ended(ev.Exit, err)
		}
	}
	select {
	case c.events <- ev:
	default:
	}
}

// end fails every call in flight and ends every stream.
func (c *HostClient) end(err error) {
	c.nc.Close()
	c.mu.Lock()
	c.err = fmt.Errorf("%w: %v", ErrHostGone, err)
	streams := c.streams
	c.streams = map[string]*HostStream{}
	c.mu.Unlock()
	for _, s := range streams {
		s.finish(ErrHostGone)
	}
	close(c.done)
}

// call sends a request and waits for its reply.
func (c *HostClient) call(ctx context.Context, req hostwire.Request) (hostwire.Reply, error) {
	ch := make(chan hostwire.Reply, 1)
	c.mu.Lock()
	c.next++
	req.ID = c.next
	c.pending[req.ID] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, req.ID)
		c.mu.Unlock()
	}
	b, err := json.Marshal(req)
	if err == nil {
		err = c.write(hostwire.TypeRequest, b)
	}
	if err != nil {
		forget()
		return hostwire.Reply{}, fmt.Errorf("agent host %s: %w", req.Op, err)
	}
	select {
	case rep := <-ch:
		if rep.Error != "" {
			return rep, fmt.Errorf("agent host %s: %s", req.Op, rep.Error)
		}
		return rep, nil
	case <-ctx.Done():
		forget()
		return hostwire.Reply{}, fmt.Errorf("agent host %s: %w", req.Op, ctx.Err())
	case <-c.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		return hostwire.Reply{}, fmt.Errorf("agent host %s: %w", req.Op, c.err)
	}
}

func (c *HostClient) write(t hostwire.Type, parts ...[]byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return hostwire.WriteFrame(c.nc, t, parts...)
}

// Launch starts an agent in the host. With l.Attach the stream of its
// output is returned too, from its first byte.
func (c *HostClient) Launch(ctx context.Context, l hostwire.Launch) (hostwire.Agent, *HostStream, error) {
	rep, err := c.call(ctx, hostwire.Request{Op: hostwire.OpLaunch, Launch: &l})
	if err != nil {
		return hostwire.Agent{}, nil, err
	}
	if rep.Agent == nil {
		return hostwire.Agent{}, nil, errors.New("agent host launch: no agent in the reply")
	}
	return *rep.Agent, c.stream(rep), nil
}

// Attach attaches to session's output: what the host still holds of it
// (the catch-up), then the rest as it comes.
func (c *HostClient) Attach(ctx context.Context, session string) (*HostStream, error) {
	rep, err := c.call(ctx, hostwire.Request{Op: hostwire.OpAttach, Session: session})
	if err != nil {
		return nil, err
	}
	return c.stream(rep), nil
}

func (c *HostClient) stream(rep hostwire.Reply) *HostStream {
	if rep.Attached == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.streams[rep.Attached.Session]; s != nil {
		return s
	}
	// It ended (the agent exited) before the caller got here: a stream
	// built from the reply says so.
	return newHostStream(c, *rep.Attached).over()
}

// Detach stops session's output to this connection.
func (c *HostClient) Detach(ctx context.Context, session string) error {
	_, err := c.call(ctx, hostwire.Request{Op: hostwire.OpDetach, Session: session})
	c.mu.Lock()
	s := c.streams[session]
	delete(c.streams, session)
	c.mu.Unlock()
	if s != nil {
		s.finish(nil)
	}
	return err
}

// Input types p to session's agent. It does not wait: input the host could
// not deliver comes back as an EventInputRefused.
func (c *HostClient) Input(session string, p []byte) error {
	if len(p)+hostwire.OutputHeaderSize > hostwire.MaxPayload {
		return fmt.Errorf("input of %d bytes: %w", len(p), hostwire.ErrTooLarge)
	}
	if err := c.write(hostwire.TypeInput, hostwire.AppendInput(nil, session, p)); err != nil {
		return fmt.Errorf("agent host input: %w", err)
	}
	return nil
}

// Resize changes session's terminal size.
func (c *HostClient) Resize(ctx context.Context, session string, cols, rows int) error {
	_, err := c.call(ctx, hostwire.Request{Op: hostwire.OpResize, Session: session, Size: &hostwire.Size{Cols: cols, Rows: rows}})
	return err
}

// Signal sends one signal ("interrupt", "terminate", "hangup", "kill") to
// session's agent, as its terminal would.
func (c *HostClient) Signal(ctx context.Context, session, signal string) error {
	_, err := c.call(ctx, hostwire.Request{Op: hostwire.OpSignal, Session: session, Signal: signal})
	return err
}

// Stop ends session's agent (interrupt, after grace terminate and hangup,
// then a kill of its process set; kill goes straight to the kill) and
// returns once it has ended.
func (c *HostClient) Stop(ctx context.Context, session string, grace time.Duration, kill bool) (hostwire.Agent, error) {
	rep, err := c.call(ctx, hostwire.Request{Op: hostwire.OpStop, Session: session, Stop: &hostwire.Stop{Grace: grace, Kill: kill}})
	if err != nil {
		return hostwire.Agent{}, err
	}
	if rep.Agent == nil {
		return hostwire.Agent{}, errors.New("agent host stop: no agent in the reply")
	}
	return *rep.Agent, nil
}

// List describes every agent the host holds, oldest first.
func (c *HostClient) List(ctx context.Context) ([]hostwire.Agent, error) {
	rep, err := c.call(ctx, hostwire.Request{Op: hostwire.OpList})
	return rep.Agents, err
}

// Status describes the host.
func (c *HostClient) Status(ctx context.Context) (hostwire.Status, error) {
	rep, err := c.call(ctx, hostwire.Request{Op: hostwire.OpStatus})
	if err != nil {
		return hostwire.Status{}, err
	}
	if rep.Status == nil {
		return hostwire.Status{}, errors.New("agent host status: no status in the reply")
	}
	return *rep.Status, nil
}
