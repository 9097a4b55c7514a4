package control

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
)

// attachProtocol names the raw byte stream an attach upgrades to: the
// agent's terminal output one way, keystrokes the other.
const attachProtocol = "switchboard-attach"

// serveAttach connects the caller to an agent's terminal. The attach itself
// is one audited call (agent.attach); what is typed through it goes to the
// terminal as input, like the GUI's terminal view, and is not workflow
// state.
func (s *Server) serveAttach(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("session_id")
	args, _ := json.Marshal(mcpserver.AgentArgs{SessionID: id})
	res := s.reg.Invoke(r.Context(), mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, "agent.attach", args)
	if res.Err != nil {
		writeJSON(w, http.StatusConflict, ResponseFor(res))
		return
	}
	ses, ok := s.reg.Agents().Get(id)
	if !ok {
		writeJSON(w, http.StatusNotFound, Response{Method: "agent.attach", Error: "not_found", Message: "the agent has gone"})
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "attach needs a hijackable connection", http.StatusInternalServerError)
		return
	}
	// Subscribe before painting: output that arrives in between is then
	// drawn over the painted screen rather than lost.
	sub := ses.Subscribe()
	defer sub.Close()
	conn, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	// The server's read and write timeouts were set on the connection for
	// the request; an attach lasts as long as the person watches.
	conn.SetDeadline(time.Time{})
	fmt.Fprintf(rw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: %s\r\n\r\n", attachProtocol)
	rw.Write(ses.RenderScreen())
	if err := rw.Flush(); err != nil {
		return
	}

	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := rw.Read(buf)
			if n > 0 && ses.Input(buf[:n]) != nil {
				conn.Close()
				return
			}
			if err != nil {
				// The person detached: end the output side too.
				sub.Close()
				return
			}
		}
	}()
	for range sub.Ready() {
		data, dropped, ended := sub.Read()
		if ended {
			return
		}
		if dropped > 0 {
			// Too far behind to replay what was missed: paint the
			// screen as it is now instead.
			data = ses.RenderScreen()
		}
		if _, err := conn.Write(data); err != nil {
			return
		}
	}
}

// Attach connects to the terminal of the agent of session id. The returned
// connection reads the terminal's output (a repaint of the current screen
// first) and writes keystrokes to it; closing it detaches.
func (c *Client) Attach(ctx context.Context, id string) (net.Conn, error) {
	tr := c.http.Transport.(*http.Transport)
	conn, err := tr.DialContext(ctx, "unix", "")
	if err != nil {
		return nil, ErrNotRunning
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://switchboard/v1/attach?session_id="+url.QueryEscape(id), nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", attachProtocol)
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("attach: %w", err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("attach: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		defer conn.Close()
		var out Response
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Error == "" {
			return nil, fmt.Errorf("attach: %s", resp.Status)
		}
		return nil, fmt.Errorf("%s: %s", out.Error, out.Message)
	}
	return &bufferedConn{Conn: conn, r: br}, nil
}

// bufferedConn reads first what the response reader had buffered past the
// headers.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }
