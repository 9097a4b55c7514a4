// Package standinmodel is a loopback stand-in for the model APIs the agent
// CLIs talk to (Anthropic's Messages API for Claude Code, OpenAI's Responses
// API for Codex, Gemini's generateContent for Gemini CLI). Its replies come
// from a Policy: a scripted agent that works Switchboard's queue through the
// CLI's own MCP client, so a test sees the real CLI, started by the real
// supervisor, call Switchboard's tools with no one at the keyboard.
//
// It listens on 127.0.0.1 only and never reaches a network. Each dialect is
// one file: it turns a request into the prompt and the Steps so far, and the
// Policy's Reply into that API's (streamed) answer.
package standinmodel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// MaxBody bounds one request body: a CLI resends the whole conversation
// each turn, system prompt and tool list included.
const MaxBody = 16 << 20

// Call is one tool call the model makes, named by Switchboard's own tool
// name (work_await_packet); the dialect adds the CLI's prefix.
type Call struct {
	Tool string
	Args map[string]any
}

// Step is one call the conversation holds and the result the CLI sent back.
type Step struct {
	Call    Call
	Result  string // the result's text as the CLI gave it
	IsError bool   // the CLI marked the result as an error
}

// Reply is the model's next turn: a tool call, or when Call is nil a final
// text that ends the agent's turn.
type Reply struct {
	Call *Call
	Text string
}

// Policy decides the next reply from the first user prompt and the steps
// so far. It is called once per model request and must not keep state of
// its own: CLIs retry, and a resumed conversation arrives whole.
type Policy func(prompt string, steps []Step) Reply

// Server is a running stand-in model.
type Server struct {
	// URL is its base address, http://127.0.0.1:port (no trailing slash).
	URL string

	policy Policy
	srv    *http.Server
	done   chan struct{}
	// finished is closed at the first final text: the agent's turn ended.
	finished chan struct{}

	mu        sync.Mutex
	started   time.Time
	firstCall time.Time
	calls     []Call
	log       []string
}

// Start listens on a free loopback port and serves until Close.
func Start(policy Policy) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("stand-in model: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), policy: policy, started: time.Now(), done: make(chan struct{}), finished: make(chan struct{})}
	mux := http.NewServeMux()
	s.routes(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.logf("%s %s: not a stand-in route", r.Method, r.URL.Path)
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
	})
	s.srv = &http.Server{Handler: http.MaxBytesHandler(mux, MaxBody), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logf("serve: %v", err)
		}
	}()
	return s, nil
}

// routes adds each dialect's endpoints.
func (s *Server) routes(mux *http.ServeMux) {
	s.anthropicRoutes(mux)
	s.openaiRoutes(mux)
	s.geminiRoutes(mux)
}

// Close stops the server, cutting any stream still open.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = s.srv.Close()
	}
	<-s.done
	return err
}

// reply runs the policy for one request and records a tool call it makes.
func (s *Server) reply(prompt string, steps []Step) Reply {
	r := s.policy(prompt, steps)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Call != nil {
		if s.firstCall.IsZero() {
			s.firstCall = time.Now()
		}
		s.calls = append(s.calls, *r.Call)
		s.log = append(s.log, fmt.Sprintf("→ %s %v", r.Call.Tool, r.Call.Args))
	} else {
		s.log = append(s.log, "→ text: "+r.Text)
		select {
		case <-s.finished:
		default:
			close(s.finished)
		}
	}
	return r
}

// Finished is closed when the policy first ends the agent's turn with a
// text (done, or stopped by an error), so a test waits for that rather
// than polling. Every call before it had its result, so its effects are
// committed by then.
func (s *Server) Finished() <-chan struct{} { return s.finished }

// FirstCall is when the model first answered with a tool call (zero before).
func (s *Server) FirstCall() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.firstCall
}

// Calls returns the tool calls answered so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Log is a line per request and reply, for a test's failure message.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.log, "\n")
}

func (s *Server) logf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.log) < 10000 {
		s.log = append(s.log, fmt.Sprintf(format, args...))
	}
}

// toolName finds Switchboard's tool short among the names a CLI offered:
// the name itself or the CLI's prefixed form (mcp__switchboard__x for
// Claude Code, mcp_switchboard_x for Gemini CLI). ok is false when it was
// not offered.
func toolName(offered []string, short string) (string, bool) {
	for _, n := range offered {
		if n == short || strings.HasSuffix(n, "__"+short) || strings.HasSuffix(n, "_switchboard_"+short) {
			return n, true
		}
	}
	return "", false
}

// shortName is the inverse of toolName: Switchboard's name for a name the
// CLI used, or the name as it is when it has no known prefix.
func shortName(name string) string {
	if i := strings.LastIndex(name, "__"); i >= 0 {
		return name[i+2:]
	}
	if _, rest, ok := strings.Cut(name, "_switchboard_"); ok {
		return rest
	}
	return name
}
