package mcphttp

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/coretest"
	"github.com/switchboard-dev/switchboard/internal/testwait"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// hostileTable rewrites docs/hostile-inputs.md from TestHostileInputs'
// table; without it the test checks that the file is up to date.
var hostileTable = flag.Bool("hostile-table", false, "write ../docs/hostile-inputs.md from TestHostileInputs' cases")

// hostileDoc is the table's file, relative to this package.
const hostileDoc = "../docs/hostile-inputs.md"

// Timeouts of the server the slow-client cases run against: NewServer's,
// shortened so that the test waits seconds, not minutes.
// TestHostileInputs checks NewServer's own values.
const (
	slowHeaderTimeout = 500 * time.Millisecond
	slowReadTimeout   = 2 * time.Second
)

// wire is one HTTP/1.1 request exactly as it goes on the socket: the
// request line and headers in order, duplicates and all, and the body
// framed as the case says.
type wire struct {
	method, target, proto string
	headers               [][2]string
	body                  []byte
	// length is the Content-Length header: "" for len(body), "-" for
	// none.
	length string
	// chunked sends the body with Transfer-Encoding: chunked.
	chunked bool
}

// set replaces the first header named k (or appends it); an empty v
// removes it.
func (w *wire) set(k, v string) *wire {
	for i, h := range w.headers {
		if strings.EqualFold(h[0], k) {
			if v == "" {
				w.headers = append(w.headers[:i], w.headers[i+1:]...)
			} else {
				w.headers[i][1] = v
			}
			return w
		}
	}
	if v != "" {
		w.headers = append(w.headers, [2]string{k, v})
	}
	return w
}

// add appends a header line, even one already there.
func (w *wire) add(k, v string) *wire {
	w.headers = append(w.headers, [2]string{k, v})
	return w
}

func (w *wire) bytes() []byte {
	var b bytes.Buffer
	proto := w.proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	fmt.Fprintf(&b, "%s %s %s\r\n", w.method, w.target, proto)
	for _, h := range w.headers {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	switch {
	case w.chunked:
		b.WriteString("Transfer-Encoding: chunked\r\n")
	case w.length == "":
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(w.body))
	case w.length != "-":
		fmt.Fprintf(&b, "Content-Length: %s\r\n", w.length)
	}
	b.WriteString("\r\n")
	if !w.chunked {
		b.Write(w.body)
		return b.Bytes()
	}
	for rest := w.body; len(rest) > 0; {
		n := min(len(rest), 64<<10)
		fmt.Fprintf(&b, "%x\r\n", n)
		b.Write(rest[:n])
		b.WriteString("\r\n")
		rest = rest[n:]
	}
	b.WriteString("0\r\n\r\n")
	return b.Bytes()
}

// hostileCase is one hostile input, what the server must answer, and what
// the table says about it.
type hostileCase struct {
	// input names what is sent, in the table.
	input string
	// req builds the request from a valid POST /mcp ping with the client
	// token (e.post).
	req func(e *hostileEnv) *wire
	// send, when set, writes the request instead of one write of all its
	// bytes (slow clients, half-closes).
	send func(c net.Conn, b []byte) error
	// slow runs the case against the server with shortened timeouts.
	slow bool

	// status is the HTTP status; 0 means the server closes the connection
	// without an answer.
	status int
	// rpcCode and code are the JSON-RPC error's code and error.data.code
	// (code "" for an error without data.code); both zero for a success.
	rpcCode int64
	code    store.Code
	// plain, when set, is the start of a text/plain answer (net/http's
	// own refusals, before our handler runs).
	plain string
	// audited is set when the request reaches a method, which writes one
	// audit record.
	audited bool
	// id, when set, is the id the answer must carry (as JSON); contains,
	// a string its body must hold.
	id, contains string
	// within bounds how long the answer (or the close) may take; 0 means
	// 10 s. notBefore is how long it must take at least (a timeout).
	within, notBefore time.Duration
	// next is the answer to a second request on the same connection.
	next *hostileAnswer

	// what happens, in the table.
	what string
}

// hostileAnswer is an answer's HTTP status, JSON-RPC code and data.code.
type hostileAnswer struct {
	status  int
	rpcCode int64
	code    store.Code
}

type hostileEnv struct {
	*fixture
	clientRaw string
	// addr serves with NewServer's timeouts, slowAddr with shortened ones.
	addr, slowAddr string
}

// post is a valid request of the 2025-06-18 era with the client token,
// which each case changes into its hostile input.
func (e *hostileEnv) post(body string) *wire {
	return &wire{
		method: http.MethodPost, target: PathMCP, body: []byte(body),
		headers: [][2]string{
			{"Host", e.addr},
			{"Authorization", "Bearer " + e.clientRaw},
			{"Content-Type", "application/json"},
			{"Accept", "application/json, text/event-stream"},
			{"MCP-Protocol-Version", "2025-06-18"},
			{"Connection", "close"},
		},
	}
}

// post2026 is a request of the 2026-07-28 era: the version in the header
// and in _meta, Mcp-Method and (for a call) Mcp-Name mirroring the body.
func (e *hostileEnv) post2026(method, name string) *wire {
	params := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"hostile","version":"0"}}`
	if method == "tools/call" {
		params = `"name":"` + name + `","arguments":{},` + params
	}
	w := e.post(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + `}}`)
	w.set("MCP-Protocol-Version", "2026-07-28").set("Mcp-Method", method)
	if name != "" {
		w.set("Mcp-Name", name)
	}
	return w
}

func newHostileEnv(t *testing.T) *hostileEnv {
	t.Helper()
	e := &hostileEnv{fixture: newFixture(t)}
	_, e.clientRaw = e.createClientToken(t)
	h := NewHTTPHandler(e.reg, HTTPOptions{Version: testVersion, Log: e.log})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/mcp/", h)
	serve := func(configure func(*http.Server)) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := NewServer(mux, e.log)
		configure(srv)
		done := make(chan struct{})
		go func() {
			defer close(done)
			srv.Serve(ln)
		}()
		t.Cleanup(func() {
			srv.Close()
			<-done
		})
		return ln.Addr().String()
	}
	e.addr = serve(func(*http.Server) {})
	e.slowAddr = serve(func(s *http.Server) {
		s.ReadHeaderTimeout, s.ReadTimeout = slowHeaderTimeout, slowReadTimeout
	})
	return e
}

// hostileCases are the bad inputs and what each gets. Tokens and bodies
// are built at run time: no token-shaped literal sits in this file.
func hostileCases() []hostileCase {
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	}
	body := func(s string) func(e *hostileEnv) *wire {
		return func(e *hostileEnv) *wire { return e.post(s) }
	}
	// nested is a ping whose params hold arrays nested so that the whole
	// body nests depth levels.
	nested := func(depth int) func(e *hostileEnv) *wire {
		n := depth - 2 // the body object and params
		return body(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`)
	}
	padded := func(n int) string { return ping + strings.Repeat(" ", n-len(ping)) }
	// trickle writes b a few bytes at a time, every, until the server
	// closes the connection or b is sent.
	trickle := func(headFirst bool, every time.Duration) func(c net.Conn, b []byte) error {
		return func(c net.Conn, b []byte) error {
			if headFirst {
				end := bytes.Index(b, []byte("\r\n\r\n")) + 4
				if _, err := c.Write(b[:end]); err != nil {
					return err
				}
				b = b[end:]
			}
			for len(b) > 0 {
				// The pause is the attack itself: a client too slow
				// for the server's read timeouts, which are what the
				// cases measure (notBefore, within).
				time.Sleep(every)
				n := min(len(b), 2)
				if _, err := c.Write(b[:n]); err != nil {
					return err
				}
				b = b[n:]
			}
			return nil
		}
	}
	// halfClose sends the request and ends the connection's sending side.
	halfClose := func(c net.Conn, b []byte) error {
		if _, err := c.Write(b); err != nil {
			return err
		}
		return c.(*net.TCPConn).CloseWrite()
	}
	const big = mcpserver.MaxBodyBytes + 1

	return []hostileCase{
		{input: "a valid ping (the control)", req: body(ping), status: 200, what: "answered"},

		// Malformed and truncated JSON.
		{input: "malformed JSON `{\"jsonrpc\":\"2.0\",`", req: body(`{"jsonrpc":"2.0",`), status: 400, rpcCode: -32700, code: mcpserver.CodeParseError,
			what: "refused by the front layer, id null"},
		{input: "not JSON at all (`hello`)", req: body(`hello`), status: 400, rpcCode: -32700, code: mcpserver.CodeParseError, what: "refused, id null"},
		{input: "two JSON values in one body", req: body(ping + ` {}`), status: 400, rpcCode: -32700, code: mcpserver.CodeParseError, what: "refused: one request per body"},
		{input: "a UTF-8 byte order mark before the JSON", req: body("\xef\xbb\xbf" + ping), status: 400, rpcCode: -32700, code: mcpserver.CodeParseError, what: "refused"},
		{input: "truncated JSON (the closing brace missing)", req: body(ping[:len(ping)-1]), status: 400, rpcCode: -32700, code: mcpserver.CodeParseError, what: "refused"},
		{input: "truncated body: Content-Length 100, 40 bytes sent, then the client half-closes",
			req:    func(e *hostileEnv) *wire { w := e.post(ping[:40]); w.length = "100"; return w },
			send:   halfClose,
			status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest, what: "the body ends early: refused, nothing parsed"},
		{input: "empty body", req: body(""), status: 400, rpcCode: -32700, code: mcpserver.CodeParseError, what: "refused"},

		// Ids.
		{input: "numeric id 2^53 (float64 holds every integer up to it)", req: body(`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`), status: 200, id: "9007199254740992",
			what: "answered, the id echoed exactly"},
		{input: "numeric id -2^53", req: body(`{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping"}`), status: 200, id: "-9007199254740992",
			what: "answered, the id echoed exactly"},
		{input: "numeric id 2^53+1", req: body(`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest, id: "null",
			what: "refused, id null: go-sdk decodes ids as float64 and would answer with id 2^53"},
		{input: "numeric id 2^63−1 (the largest int64)", req: body(`{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest, id: "null",
			what: "refused, id null (go-sdk would answer with id -2^63)"},
		{input: "huge numeric id (30 digits)", req: body(`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest, id: "null", what: "refused, id null"},
		{input: "numeric id 1e400", req: body(`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest, what: "refused, id null"},
		{input: "fractional id -0.5", req: body(`{"jsonrpc":"2.0","id":-0.5,"method":"ping"}`), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest, what: "refused, id null"},
		{input: "object id", req: body(`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest, what: "refused, id null"},
		{input: "huge string id (1 MiB)", req: body(`{"jsonrpc":"2.0","id":"` + strings.Repeat("9", 1<<20) + `","method":"ping"}`), status: 200, id: `"` + strings.Repeat("9", 1<<20) + `"`,
			what: "answered, the 1 MiB id echoed (the body limit bounds it)"},

		// Nesting.
		{input: "nesting 64 deep (the limit)", req: nested(64), status: 200, what: "answered"},
		{input: "nesting 65 deep", req: nested(65), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest,
			what: "refused before any JSON decoder runs (a byte scan that stops at 65)"},
		{input: "nesting 10,000 deep", req: nested(10000), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest, what: "refused the same way"},
		{input: "nesting 1,000,000 deep (2 MB of brackets)", req: body(strings.Repeat("[", 1000000) + strings.Repeat("]", 1000000)), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest,
			what: "refused the same way, in linear time"},
		{input: "`[[[[` inside a string (no nesting)", req: body(`{"jsonrpc":"2.0","id":"` + strings.Repeat("[", 1000) + `","method":"ping"}`), status: 200, what: "answered: brackets in strings do not count"},

		// Invalid UTF-8.
		{input: "invalid UTF-8 in a string id (`\"\\xff\\xfe\"`)", req: body("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}"), status: 200, id: `"\ufffd\ufffd"`,
			what: "answered; the id comes back as two U+FFFD"},
		{input: "invalid UTF-8 in a tool argument", req: body(call("status", "{\"repository_id\":\"repo_\xff\"}")), status: 200, audited: true, contains: `"error":"repo_not_registered"`,
			what: "reaches the tool, which answers repo_not_registered (isError)"},
		{input: "invalid UTF-8 in the method name (`tools/call\\xff`)", req: body("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\xff\"}"), status: 404, rpcCode: -32601, code: store.CodeMethodUnknown,
			what: "refused: no such method"},
		{input: "invalid UTF-8 in the tool name", req: body(call("stat\xffus", `{}`)), status: 200, rpcCode: -32602, code: store.CodeMethodUnknown, audited: true,
			what: "no such tool: the JSON-RPC error of an unknown tool, in an HTTP 200"},
		{input: "a lone surrogate escape (`\\ud800`) in the tool name", req: body(call(`status\ud800`, `{}`)), status: 200, rpcCode: -32602, code: store.CodeMethodUnknown, audited: true,
			what: "the same"},
		{input: "invalid UTF-8 in a resources/read URI", req: body("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"switchboard://\xff\"}}"), status: 200, rpcCode: -32602,
			what: "the byte decodes to U+FFFD, so the URI passes the front's printable check; go-sdk answers resource not found"},
		{input: "a control character in a resources/read URI", req: body(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"switchboard://\u0007"}}`), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest,
			what: "refused in front (go-sdk v1.8.0 would drop its answer)"},

		// Methods.
		{input: "unknown method `foo/bar`", req: body(`{"jsonrpc":"2.0","id":42,"method":"foo/bar"}`), status: 404, rpcCode: -32601, code: store.CodeMethodUnknown, id: "42", what: "refused, id 42 echoed"},
		{input: "unknown notification `notifications/foo`", req: body(`{"jsonrpc":"2.0","method":"notifications/foo"}`), status: 404, rpcCode: -32601, code: store.CodeMethodUnknown, what: "refused, id null"},
		{input: "method in another case (`Ping`)", req: body(`{"jsonrpc":"2.0","id":1,"method":"Ping"}`), status: 404, rpcCode: -32601, code: store.CodeMethodUnknown, what: "refused: methods are case-sensitive"},
		{input: "member name in another case (`\"Method\"`)", req: body(`{"jsonrpc":"2.0","id":1,"Method":"ping"}`), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest, what: "refused: member names match exactly"},
		{input: "a request without an id", req: body(`{"jsonrpc":"2.0","method":"ping"}`), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest, what: "refused: only notifications may lack one"},
		{input: "hidden tool `token_create`", req: body(call("token_create", `{"label":"x"}`)), status: 200, audited: true, contains: `"error":"tool_hidden"`,
			what: "fails closed inside the result: isError, tool_hidden"},

		// Batches.
		{input: "batch: empty array `[]`", req: body(`[]`), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest, what: "refused"},
		{input: "batch of two requests", req: body(`[` + ping + `,{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`), status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest,
			what: "refused: no batches (2025-06-18 removed them)"},

		// Size.
		{input: "body of exactly 4 MiB", req: body(padded(mcpserver.MaxBodyBytes)), status: 200, what: "answered"},
		{input: "body of 4 MiB + 1, with Content-Length", req: body(padded(big)), status: 413, rpcCode: -32600, code: mcpserver.CodePayloadTooLarge,
			what: "refused at once, from the declared length, before the body is read"},
		{input: "body of 4 MiB + 1, chunked (no Content-Length)", req: func(e *hostileEnv) *wire { w := e.post(padded(big)); w.chunked = true; return w },
			status: 413, rpcCode: -32600, code: mcpserver.CodePayloadTooLarge, what: "refused after reading 4 MiB + 1 bytes"},
		{input: "Content-Length 10 GiB, 5 MiB sent", req: func(e *hostileEnv) *wire { w := e.post(padded(5 << 20)); w.length = strconv.Itoa(10 << 30); return w },
			status: 413, rpcCode: -32600, code: mcpserver.CodePayloadTooLarge, what: "refused at once from the declared length"},
		{input: "Content-Length 10 GiB, nothing sent", req: func(e *hostileEnv) *wire { w := e.post(""); w.length = strconv.Itoa(10 << 30); return w },
			status: 413, rpcCode: -32600, code: mcpserver.CodePayloadTooLarge, what: "refused at once: the server does not wait for the body"},
		{input: "Content-Length shorter than the body", req: func(e *hostileEnv) *wire { w := e.post(ping + ping); w.length = strconv.Itoa(len(ping)); return w },
			status: 200, what: "the declared length is the body: one ping answered, the rest never read (Connection: close)"},
		{input: "5 MiB with neither Content-Length nor chunked", req: func(e *hostileEnv) *wire { w := e.post(padded(5 << 20)); w.length = "-"; return w },
			status: 400, rpcCode: -32700, code: mcpserver.CodeParseError, what: "an HTTP/1.1 request without framing has an empty body: refused, the bytes after the headers never read"},

		// Slow clients, against a server whose timeouts are shortened
		// (NewServer's own are checked below).
		{input: "a connection that sends nothing", req: body(ping), send: func(net.Conn, []byte) error { return nil }, slow: true,
			status: 0, notBefore: slowHeaderTimeout, within: slowHeaderTimeout + 2*time.Second,
			what: "closed without an answer at ReadHeaderTimeout (5 s in NewServer)"},
		{input: "slowloris: request line and headers trickled 2 bytes every 100 ms", req: body(ping), send: trickle(false, 100*time.Millisecond), slow: true,
			status: 400, plain: "400 Bad Request", notBefore: slowHeaderTimeout, within: slowHeaderTimeout + 2*time.Second,
			what: "at ReadHeaderTimeout net/http answers the partial request 400 and closes"},
		{input: "body trickled 2 bytes every 100 ms (past ReadTimeout)", req: body(ping), send: trickle(true, 100*time.Millisecond), slow: true,
			status: 400, rpcCode: -32600, code: mcpserver.CodeInvalidRequest, notBefore: slowReadTimeout, within: slowReadTimeout + 2*time.Second,
			what: "at ReadTimeout (30 s in NewServer) the read fails: refused, nothing parsed"},
		{input: "body sent in three parts 100 ms apart (within ReadTimeout)", req: body(ping), slow: true, status: 200,
			send: func(c net.Conn, b []byte) error {
				for i, part := range [][]byte{b[:len(b)-20], b[len(b)-20 : len(b)-10], b[len(b)-10:]} {
					if i > 0 {
						// A slow but honest client: the gaps are the
						// input (the request must still be read whole).
						time.Sleep(100 * time.Millisecond)
					}
					if _, err := c.Write(part); err != nil {
						return err
					}
				}
				return nil
			},
			what: "answered"},

		// 2026-07-28: Mcp-Method and Mcp-Name mirror the body.
		{input: "2026-07-28 call, Mcp-Method and Mcp-Name matching the body", req: func(e *hostileEnv) *wire { return e.post2026("tools/call", "status") }, status: 200, audited: true,
			what: "answered"},
		{input: "2026-07-28: Mcp-Name `audit_query`, body calls `status`", req: func(e *hostileEnv) *wire { return e.post2026("tools/call", "status").set("Mcp-Name", "audit_query") },
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest, what: "refused in front (HeaderMismatch), the id echoed; nothing runs"},
		{input: "2026-07-28: Mcp-Method `tools/list`, body is tools/call", req: func(e *hostileEnv) *wire { return e.post2026("tools/call", "status").set("Mcp-Method", "tools/list") },
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest, what: "refused in front (HeaderMismatch)"},
		{input: "2026-07-28: Mcp-Method in another case (`Tools/Call`)", req: func(e *hostileEnv) *wire { return e.post2026("tools/call", "status").set("Mcp-Method", "Tools/Call") },
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest, what: "refused in front (HeaderMismatch)"},
		{input: "2026-07-28: no Mcp-Name on a call", req: func(e *hostileEnv) *wire { return e.post2026("tools/call", "status").set("Mcp-Name", "") },
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest, what: "refused in front (HeaderMismatch)"},
		{input: "2026-07-28: no Mcp-Method", req: func(e *hostileEnv) *wire { return e.post2026("tools/list", "").set("Mcp-Method", "") },
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest, what: "refused in front (HeaderMismatch)"},
		{input: "2026-07-28: two Mcp-Name headers, the first matching the body", req: func(e *hostileEnv) *wire { return e.post2026("tools/call", "status").add("Mcp-Name", "audit_query") },
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest,
			what: "refused in front (go-sdk reads only the first; a gateway may route on the second)"},
		{input: "2026-07-28: two Mcp-Method headers", req: func(e *hostileEnv) *wire { return e.post2026("tools/call", "status").add("Mcp-Method", "tools/list") },
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest, what: "refused in front"},
		{input: "two MCP-Protocol-Version headers (2025-06-18, then 2026-07-28) and a mismatching Mcp-Name",
			req: func(e *hostileEnv) *wire {
				return e.post(call("status", `{}`)).add("MCP-Protocol-Version", "2026-07-28").set("Mcp-Method", "tools/call").set("Mcp-Name", "audit_query")
			},
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest,
			what: "refused in front: which era, and so whether Mcp-Name binds, would depend on which header is read"},
		{input: "Mcp-Name of a comma list (`status, audit_query`)", req: func(e *hostileEnv) *wire {
			return e.post2026("tools/call", "status").set("Mcp-Name", "status, audit_query")
		},
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest, what: "refused in front (HeaderMismatch)"},
		{input: "2026-07-28 _meta in the body, no MCP-Protocol-Version header", req: func(e *hostileEnv) *wire { return e.post2026("tools/call", "status").set("MCP-Protocol-Version", "") },
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest, what: "refused in front: the header must name the _meta version"},
		{input: "MCP-Protocol-Version 2026-07-28, no _meta in the body", req: func(e *hostileEnv) *wire {
			return e.post(call("status", `{}`)).set("MCP-Protocol-Version", "2026-07-28").set("Mcp-Method", "tools/call").set("Mcp-Name", "status")
		},
			status: 400, rpcCode: -32602, code: mcpserver.CodeInvalidRequest, what: "refused in front: the revision carries its version in _meta (go-sdk's code, our data.code)"},
		{input: "2026-07-28 notification without Mcp-Method", req: func(e *hostileEnv) *wire {
			return e.post(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`).
				set("MCP-Protocol-Version", "2026-07-28")
		},
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest, what: "refused in front, id null (go-sdk answered without an id)"},
		{input: "Mcp-Name in the `=?base64?…?=` form, matching the body", req: func(e *hostileEnv) *wire {
			return e.post2026("tools/call", "status").set("Mcp-Name", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("status"))+"?=")
		},
			status: 200, audited: true, what: "decoded, then compared: answered"},
		{input: "Mcp-Name in the `=?base64?…?=` form, not valid base64", req: func(e *hostileEnv) *wire {
			return e.post2026("tools/call", "status").set("Mcp-Name", "=?base64?c3RhdH*?=")
		},
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest, what: "refused in front"},
		{input: "MCP-Protocol-Version `21` (not a version; sorts after 2026-07-28)", req: func(e *hostileEnv) *wire {
			return e.post(call("status", `{}`)).set("MCP-Protocol-Version", "21")
		},
			status: 400, rpcCode: -32022, code: mcpserver.CodeInvalidRequest, what: "refused in front with the supported versions"},
		{input: "MCP-Protocol-Version 2099-01-01 (a later revision)", req: func(e *hostileEnv) *wire {
			return e.post(call("status", `{}`)).set("MCP-Protocol-Version", "2099-01-01")
		},
			status: 400, rpcCode: -32022, code: mcpserver.CodeInvalidRequest, what: "refused in front with the supported versions"},
		{input: "2025-06-18 request with a mismatching Mcp-Name", req: func(e *hostileEnv) *wire {
			return e.post(call("status", `{}`)).set("Mcp-Method", "tools/list").set("Mcp-Name", "audit_query")
		},
			status: 200, audited: true, contains: `"method":"status"`, what: "answered from the body: the headers bind only from 2026-07-28 on"},

		// Authorization.
		{input: "two Authorization headers, the valid one first", req: func(e *hostileEnv) *wire { return e.post(ping).add("Authorization", "Bearer garbage") },
			status: 401, rpcCode: -32001, code: store.CodeTokenMalformed, what: "refused: which is the credential would depend on who reads it"},
		{input: "two Authorization headers, the valid one second", req: func(e *hostileEnv) *wire {
			return e.post(ping).set("Authorization", "Bearer garbage").add("Authorization", "Bearer "+e.clientRaw)
		},
			status: 401, rpcCode: -32001, code: store.CodeTokenMalformed, what: "refused, the same"},
		{input: "token in the query string, no header", req: func(e *hostileEnv) *wire {
			w := e.post(ping).set("Authorization", "")
			w.target += "?access_token=" + e.clientRaw
			return w
		}, status: 401, rpcCode: -32001, code: store.CodeTokenMissing, what: "refused: never read from the URL"},
		{input: "token in params, no header", req: func(e *hostileEnv) *wire {
			return e.post(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"token":"`+e.clientRaw+`"}}`).set("Authorization", "")
		}, status: 401, rpcCode: -32001, code: store.CodeTokenMissing, what: "refused: never read from the body"},
		{input: "a 100 KiB Authorization header", req: func(e *hostileEnv) *wire {
			return e.post(ping).set("Authorization", "Bearer "+strings.Repeat("A", 100<<10))
		},
			status: 431, plain: "431 Request Header Fields Too Large", what: "refused by net/http: MaxHeaderBytes is 64 KiB"},

		// Content-Type and Accept.
		{input: "Content-Type text/plain", req: func(e *hostileEnv) *wire { return e.post(ping).set("Content-Type", "text/plain") }, status: 200,
			what: "answered: the body is parsed as JSON whatever the type (a browser cannot get this far: Authorization needs a preflight)"},
		{input: "Content-Type application/x-www-form-urlencoded", req: func(e *hostileEnv) *wire {
			return e.post(ping).set("Content-Type", "application/x-www-form-urlencoded")
		}, status: 200,
			what: "answered, the same"},
		{input: "no Content-Type", req: func(e *hostileEnv) *wire { return e.post(ping).set("Content-Type", "") }, status: 200, what: "answered (curl without -H)"},
		{input: "Accept: text/html only", req: func(e *hostileEnv) *wire { return e.post(ping).set("Accept", "text/html") }, status: 200, what: "answered in JSON"},

		// Host and Origin.
		{input: "Host `evil.example` (DNS rebinding)", req: func(e *hostileEnv) *wire { return e.post(ping).set("Host", "evil.example") },
			status: 403, rpcCode: -32001, code: mcpserver.CodeHostForbidden, what: "refused before the token is looked at"},
		{input: "absolute-form target `http://evil.example/mcp`, Host loopback", req: func(e *hostileEnv) *wire { w := e.post(ping); w.target = "http://evil.example/mcp"; return w },
			status: 403, rpcCode: -32001, code: mcpserver.CodeHostForbidden, what: "refused: the target's host is the one that counts"},
		{input: "no Host header", req: func(e *hostileEnv) *wire { return e.post(ping).set("Host", "") },
			status: 400, plain: "400 Bad Request: missing required Host header", what: "refused by net/http"},
		{input: "two Host headers", req: func(e *hostileEnv) *wire { return e.post(ping).add("Host", "evil.example") },
			status: 400, plain: "400 Bad Request", what: "refused by net/http"},
		{input: "HTTP/1.0 without Host", req: func(e *hostileEnv) *wire { w := e.post(ping).set("Host", ""); w.proto = "HTTP/1.0"; return w },
			status: 403, rpcCode: -32001, code: mcpserver.CodeHostForbidden, what: "refused: an empty Host is not loopback"},
		{input: "Origin `http://evil.example`", req: func(e *hostileEnv) *wire { return e.post(ping).set("Origin", "http://evil.example") },
			status: 403, rpcCode: -32001, code: mcpserver.CodeOriginForbidden, what: "refused"},
		{input: "Origin `null`", req: func(e *hostileEnv) *wire { return e.post(ping).set("Origin", "null") },
			status: 403, rpcCode: -32001, code: mcpserver.CodeOriginForbidden, what: "refused"},
		{input: "two Origin headers, loopback first", req: func(e *hostileEnv) *wire {
			return e.post(ping).set("Origin", "http://localhost:3000").add("Origin", "http://evil.example")
		},
			status: 200, what: "answered as the first: browsers send one Origin, so this is no browser"},

		// Header framing.
		{input: "CRLF in a header value (`Mcp-Name: status\\r\\nMcp-Name: audit_query`, 2026-07-28)", req: func(e *hostileEnv) *wire {
			return e.post2026("tools/call", "status").set("Mcp-Name", "status\r\nMcp-Name: audit_query")
		},
			status: 400, rpcCode: -32020, code: mcpserver.CodeInvalidRequest, what: "on the wire, two header lines: refused as two Mcp-Name headers"},
		{input: "CRLF in a header value smuggling a second request, without a token, on a kept-alive connection", req: func(e *hostileEnv) *wire {
			return e.post(ping).set("Connection", "").set("X-Note", "a\r\nContent-Length: 0\r\n\r\nPOST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close")
		},
			status: 400, rpcCode: -32700, code: mcpserver.CodeParseError, next: &hostileAnswer{401, -32001, store.CodeTokenMissing},
			what: "the first request ends at the injected blank line (empty body); the smuggled one is a request of its own, and every request is authenticated, not the connection"},
		{input: "bare CR in a header value", req: func(e *hostileEnv) *wire { return e.post(ping).set("X-Note", "a\rb") },
			status: 400, plain: "400 Bad Request", what: "refused by net/http"},
		{input: "obsolete line folding (a header continued on an indented line)", req: func(e *hostileEnv) *wire {
			return e.post(ping).set("Authorization", "Bearer\r\n "+e.clientRaw)
		}, status: 200, what: "net/http joins the lines (RFC 9112 lets a server do so): answered"},
		{input: "NUL byte in a header value", req: func(e *hostileEnv) *wire { return e.post(ping).set("X-Note", "a\x00b") },
			status: 400, plain: "400 Bad Request", what: "refused by net/http"},
		{input: "NUL byte after the token", req: func(e *hostileEnv) *wire { return e.post(ping).set("Authorization", "Bearer "+e.clientRaw+"\x00") },
			status: 400, plain: "400 Bad Request", what: "refused by net/http"},
		{input: "NUL byte in the path (`/mcp%00`)", req: func(e *hostileEnv) *wire { w := e.post(ping); w.target = "/mcp%00"; return w },
			status: 404, plain: "404 page not found", what: "not a path we serve"},
		{input: "NUL byte inside a JSON string", req: body("{\"jsonrpc\":\"2.0\",\"id\":\"a\x00b\",\"method\":\"ping\"}"), status: 400, rpcCode: -32700, code: mcpserver.CodeParseError,
			what: "refused: control characters must be escaped"},
		{input: "escaped NUL (`\\u0000`) in the tool name", req: body(call(`status\u0000`, `{}`)), status: 200, rpcCode: -32602, code: store.CodeMethodUnknown, audited: true,
			what: "no such tool, as above"},
		{input: "Content-Length and Transfer-Encoding: chunked together", req: func(e *hostileEnv) *wire {
			w := e.post(ping)
			w.chunked = true
			return w.add("Content-Length", "5")
		}, status: 200, what: "the chunked framing wins, as RFC 9112 says, and Content-Length is dropped: answered"},
		{input: "two different Content-Length headers", req: func(e *hostileEnv) *wire { return e.post(ping).add("Content-Length", "5") },
			status: 400, plain: "400 Bad Request", what: "refused by net/http"},
		{input: "Transfer-Encoding: gzip, chunked", req: func(e *hostileEnv) *wire {
			w := e.post(ping)
			w.chunked = true
			return w.set("Transfer-Encoding", "gzip")
		}, status: 501, plain: "Unsupported transfer encoding", what: "refused by net/http"},
	}
}

// TestHostileInputs sends each hostile input to the real server on a real
// loopback socket and checks the answer: HTTP status, JSON-RPC error code
// and error.data.code, whether it reached a method (an audit record), and
// that the server answers a good call afterwards. At the end no goroutine
// is left, and docs/hostile-inputs.md is the table of these cases.
func TestHostileInputs(t *testing.T) {
	// The timeouts the slow-client cases rely on are NewServer's; the
	// cases run them shortened.
	srv := NewServer(http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	if srv.ReadHeaderTimeout != 5*time.Second || srv.ReadTimeout != 30*time.Second || srv.WriteTimeout != 90*time.Second ||
		srv.IdleTimeout != 2*time.Minute || srv.MaxHeaderBytes != 64<<10 {
		t.Fatalf("NewServer's limits changed: ReadHeaderTimeout %s, ReadTimeout %s, WriteTimeout %s, IdleTimeout %s, MaxHeaderBytes %d: update this test and its table",
			srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	}

	e := newHostileEnv(t)
	e.goodCall(t, e.addr)
	e.goodCall(t, e.slowAddr)
	runtime.GC()
	before := runtime.NumGoroutine()

	cases := hostileCases()
	for _, c := range cases {
		t.Run(c.input, func(t *testing.T) {
			e.run(t, c)
			addr := e.addr
			if c.slow {
				addr = e.slowAddr
			}
			e.goodCall(t, addr)
		})
	}
	e.goodCall(t, e.addr)

	// Every connection was closed: the server keeps no goroutine for any
	// of them once it has noticed.
	testwait.Eventually(t, func() bool { return runtime.NumGoroutine() <= before })
	if after := runtime.NumGoroutine(); after > before {
		var dump bytes.Buffer
		pprof.Lookup("goroutine").WriteTo(&dump, 1)
		t.Errorf("goroutines %d before the hostile inputs, %d after\n%s", before, after, dump.String())
	}

	table := hostileMarkdown(cases)
	if *hostileTable {
		if err := os.WriteFile(hostileDoc, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", filepath.Clean(hostileDoc))
		return
	}
	if got, err := os.ReadFile(hostileDoc); err != nil || string(got) != table {
		t.Errorf("%s is not the table of these cases (%v): run go test ./mcphttp/ -run TestHostileInputs -hostile-table", hostileDoc, err)
	}
}

// run sends c on a fresh connection and checks the answer.
func (e *hostileEnv) run(t *testing.T, c hostileCase) {
	t.Helper()
	addr := e.addr
	if c.slow {
		addr = e.slowAddr
	}
	w := c.req(e)
	if w.headers[0][0] == "Host" && w.headers[0][1] == e.addr {
		w.headers[0][1] = addr
	}
	raw := w.bytes()
	within := c.within
	if within == 0 {
		within = 10 * time.Second
	}

	before := lastAuditSeq(t, e.db)
	// From before the dial: the server's timeouts start after it.
	start := time.Now()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(within + 5*time.Second))
	sent := make(chan error, 1)
	go func() {
		if c.send != nil {
			sent <- c.send(conn, raw)
			return
		}
		_, err := conn.Write(raw)
		sent <- err
	}()
	br := bufio.NewReader(conn)
	resp, body, err := readAnswer(br)
	took := time.Since(start)
	var nextResp *http.Response
	var nextBody []byte
	if c.next != nil && err == nil {
		nextResp, nextBody, err = readAnswer(br)
	}
	conn.Close() // ends a trickling sender
	<-sent
	if took > within || took < c.notBefore {
		t.Errorf("answered after %s, want between %s and %s", took.Round(time.Millisecond), c.notBefore, within)
	}
	defer e.checkAudit(t, c, before)

	if c.status == 0 {
		if err == nil {
			t.Fatalf("HTTP %d %s, want the connection closed without an answer", resp.StatusCode, excerpt(body, 300))
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("no answer and no close after %s: %v", took.Round(time.Millisecond), err)
		}
		return
	}
	if err != nil && c.send != nil && c.notBefore > 0 && took >= c.notBefore && errors.Is(err, syscall.ECONNRESET) {
		// The server answered at its timeout and closed while the client
		// was still trickling: the client's next write drew a reset, and
		// a reset discards the answer not yet read. Cut off at the
		// timeout either way.
		t.Logf("reset at %s, after the server's timeout (its answer lost to the reset)", took.Round(time.Millisecond))
		return
	}
	if err != nil {
		t.Fatalf("no answer after %s: %v", took.Round(time.Millisecond), err)
	}
	e.checkAnswer(t, resp, body, hostileAnswer{c.status, c.rpcCode, c.code}, c.plain)
	if c.contains != "" && !strings.Contains(string(body), c.contains) {
		t.Errorf("the answer does not hold %s: %s", c.contains, excerpt(body, 600))
	}
	if c.id != "" {
		var got, want any
		var reply struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(body, &reply) != nil || json.Unmarshal(reply.ID, &got) != nil || json.Unmarshal([]byte(c.id), &want) != nil || !reflect.DeepEqual(got, want) || (string(reply.ID) != c.id && !strings.HasPrefix(c.id, `"`)) {
			t.Errorf("id %s, want %s", excerpt(reply.ID, 100), excerpt([]byte(c.id), 100))
		}
	}
	if c.next != nil {
		e.checkAnswer(t, nextResp, nextBody, *c.next, "")
	}
}

// readAnswer reads one response and its body.
func readAnswer(br *bufio.Reader) (*http.Response, []byte, error) {
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// checkAnswer checks one answer against want, or against the start of a
// plain-text body when plain is set.
func (e *hostileEnv) checkAnswer(t *testing.T, resp *http.Response, body []byte, want hostileAnswer, plain string) {
	t.Helper()
	if resp.StatusCode != want.status {
		t.Errorf("HTTP %d, want %d: %s", resp.StatusCode, want.status, excerpt(body, 300))
	}
	ct := resp.Header.Get("Content-Type")
	if plain != "" {
		if !strings.HasPrefix(string(body), plain) {
			t.Errorf("answer %s (%s), want it to start %q", excerpt(body, 300), ct, plain)
		}
		return
	}
	if !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q: %s", ct, excerpt(body, 300))
	}
	if strings.Contains(string(body), coretest.SecretOf(t, e.clientRaw)) {
		t.Error("the answer holds the client token's secret")
	}
	var reply rpcReply
	if err := json.Unmarshal(body, &reply); err != nil {
		t.Fatalf("not JSON: %v: %s", err, excerpt(body, 300))
	}
	if reply.JSONRPC != "2.0" {
		t.Errorf("jsonrpc %q", reply.JSONRPC)
	}
	if want.rpcCode == 0 {
		if reply.Error != nil {
			t.Errorf("error %d %q (data.code %q), want a result", reply.Error.Code, reply.Error.Message, reply.Error.Data.Code)
		} else if reply.Result == nil {
			t.Errorf("neither result nor error: %s", excerpt(body, 300))
		}
		return
	}
	if reply.Error == nil {
		t.Fatalf("success %s, want error %d", excerpt(body, 300), want.rpcCode)
	}
	if reply.Error.Code != want.rpcCode || reply.Error.Data.Code != want.code {
		t.Errorf("error %d with data.code %q, want %d with %q: %s", reply.Error.Code, reply.Error.Data.Code, want.rpcCode, want.code, reply.Error.Message)
	}
	if reply.Error.Message == "" {
		t.Error("an error without a message")
	}
	if want.status == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") != `Bearer realm="switchboard"` {
		t.Errorf("WWW-Authenticate %q on a 401", resp.Header.Get("WWW-Authenticate"))
	}
}

// checkAudit checks that c wrote exactly the audit records it should: one
// when it reached a method, none otherwise.
func (e *hostileEnv) checkAudit(t *testing.T, c hostileCase, before uint64) {
	t.Helper()
	want := before
	if c.audited {
		want++
	}
	if after := lastAuditSeq(t, e.db); after != want {
		t.Errorf("audit sequence %d → %d, want %d", before, after, want)
	}
}

// goodCall checks that the server at addr still answers a tool call.
func (e *hostileEnv) goodCall(t *testing.T, addr string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+addr+PathMCP,
		strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"status","arguments":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.clientRaw)
	req.Header.Set("Content-Type", "application/json")
	req.Close = true
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("the good call after: %v", err)
	}
	defer resp.Body.Close()
	var reply struct {
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				OK bool `json:"ok"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil || resp.StatusCode != 200 || reply.Result.IsError || !reply.Result.StructuredContent.OK {
		t.Fatalf("the good call after: HTTP %d, %v, %+v", resp.StatusCode, err, reply)
	}
}

// hostileMarkdown is docs/hostile-inputs.md: the cases as a table.
func hostileMarkdown(cases []hostileCase) string {
	var b strings.Builder
	b.WriteString(`# Hostile inputs to the MCP endpoint

What each bad input gets from the real server (` + "`mcphttp.NewServer`" + ` and the front layer, on
a loopback socket). Generated from the cases of ` + "`TestHostileInputs`" + ` (mcphttp/hostile_test.go),
which checks every row in ` + "`make test`" + ` and fails when this file differs from the cases:
` + "`go test ./mcphttp/ -run TestHostileInputs -hostile-table`" + ` rewrites it.

Every request carries a valid client token unless the row says otherwise. After each one the
server answers a good call, and at the end no goroutine is left. "audited" means the request
reached a method, which wrote one audit record; no other row writes one. The slow-client rows
run against NewServer's timeouts shortened to ` + fmt.Sprint(slowHeaderTimeout) + ` (ReadHeaderTimeout) and ` + fmt.Sprint(slowReadTimeout) + ` (ReadTimeout).

| input | HTTP | JSON-RPC error (code / data.code) | what happens |
|---|---|---|---|
`)
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, c := range cases {
		status := strconv.Itoa(c.status)
		if c.status == 0 {
			status = "—"
		}
		errCol := "—"
		switch {
		case c.rpcCode != 0 && c.code != "":
			errCol = fmt.Sprintf("%d / `%s`", c.rpcCode, c.code)
		case c.rpcCode != 0:
			errCol = fmt.Sprintf("%d / none", c.rpcCode)
		case c.plain != "":
			errCol = "plain text"
		}
		if n := c.next; n != nil {
			status += ", then " + strconv.Itoa(n.status)
			errCol += fmt.Sprintf(", then %d / `%s`", n.rpcCode, n.code)
		}
		what := c.what
		if c.audited {
			what += " (audited)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(c.input), status, errCol, cell(what))
	}
	return b.String()
}
