package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"

	"github.com/switchboard-dev/switchboard/mcphttp"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// The bridge's loop: lines read from stdin, each forwarded to the endpoint
// as a POST, the answers written back whole.

// inLine is one line of stdin.
type inLine struct {
	data    []byte
	tooLong bool
}

// run bridges in to out until in ends (then it waits for the requests in
// flight) or ctx does.
func (b *bridge) run(ctx context.Context, in io.Reader, out io.Writer) error {
	b.out = out
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	lines := make(chan inLine)
	readErr := make(chan error, 1)
	go func() {
		defer close(lines)
		readErr <- readLines(in, mcpserver.MaxBodyBytes, func(l inLine) bool {
			select {
			case lines <- l:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()

	slots := make(chan struct{}, bridgeMaxInFlight)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		var l inLine
		var ok bool
		select {
		case <-ctx.Done():
			return nil
		case l, ok = <-lines:
		}
		if !ok {
			wg.Wait()
			return <-readErr
		}
		if l.tooLong {
			b.log.Warn("a message over the size limit was dropped", "limit_bytes", mcpserver.MaxBodyBytes)
			b.write(ctx, stop, rpcErrorLine(nil, -32700, fmt.Sprintf("message exceeds %d bytes; it was not sent", mcpserver.MaxBodyBytes), mcpserver.CodePayloadTooLarge))
			continue
		}
		msg := peekMessage(l.data)
		if msg.Method == "notifications/cancelled" {
			// Each request is a stateless POST of its own; the server would
			// not find the request this names. Abandon it here: its POST
			// is dropped, its place freed and its answer never written.
			b.cancel(msg.Params.RequestID)
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		reqCtx, done := b.track(ctx, msg.ID)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			defer done()
			answer := b.forward(reqCtx, l.data, msg)
			if answer != nil && !errors.Is(context.Cause(reqCtx), errCancelled) {
				b.write(ctx, stop, answer)
			}
		}()
	}
}

// write writes lines to stdout, whole. A stdout that no longer takes them
// means the client has gone: the bridge stops.
func (b *bridge) write(ctx context.Context, stop context.CancelFunc, lines []byte) {
	b.outMu.Lock()
	defer b.outMu.Unlock()
	if ctx.Err() != nil {
		return
	}
	if _, err := b.out.Write(lines); err != nil {
		b.log.Error("stdout closed; stopping", "err", err)
		stop()
	}
}

// track returns the context of a forwarded request with JSON-RPC id (none
// for a notification) and the function that forgets it.
func (b *bridge) track(ctx context.Context, id json.RawMessage) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	key := idKey(id)
	if key == "" {
		return ctx, func() { cancel(nil) }
	}
	b.mu.Lock()
	b.calls[key] = cancel
	b.mu.Unlock()
	return ctx, func() {
		b.mu.Lock()
		delete(b.calls, key)
		b.mu.Unlock()
		cancel(nil)
	}
}

func (b *bridge) cancel(id json.RawMessage) {
	b.mu.Lock()
	cancel := b.calls[idKey(id)]
	b.mu.Unlock()
	if cancel != nil {
		cancel(errCancelled)
	}
}

// bridgeMessage is what the bridge reads of a message: enough to answer
// it when the endpoint cannot, and to set the HTTP headers an MCP HTTP
// client sets.
type bridgeMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		RequestID json.RawMessage `json:"requestId"`
		Meta      map[string]any  `json:"_meta"`
	} `json:"params"`
}

// peekMessage reads what it can; the endpoint judges the rest.
func peekMessage(line []byte) bridgeMessage {
	var m bridgeMessage
	if json.Unmarshal(line, &m) != nil {
		var idOnly struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(line, &idOnly)
		m = bridgeMessage{ID: idOnly.ID}
	}
	return m
}

// forward POSTs one message and returns what to write to stdout: the
// answer's lines, a JSON-RPC error when it could not be delivered, or nil.
func (b *bridge) forward(ctx context.Context, line []byte, msg bridgeMessage) []byte {
	ep, err := b.endpoint()
	if err != nil {
		return b.notDelivered(msg, err)
	}
	tok, err := b.token()
	if err != nil {
		b.log.Error("no token", "err", err)
		return b.failed(msg, codeNotRunning, err.Error())
	}
	resp, err := b.post(ctx, ep, tok, line, msg)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		// The kept client token may have been rotated since it was read.
		if fresh, ok := b.refreshToken(tok); ok {
			resp.Body.Close()
			resp, err = b.post(ctx, ep, fresh, line, msg)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return b.notDelivered(msg, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, bridgeMaxAnswer+1))
	switch {
	case ctx.Err() != nil:
		return nil
	case err != nil:
		return b.failed(msg, -32603, fmt.Sprintf("reading Switchboard's answer: %v", err))
	case len(answer) > bridgeMaxAnswer:
		return b.failed(msg, -32603, fmt.Sprintf("Switchboard's answer exceeds %d bytes", bridgeMaxAnswer))
	}
	out := answerLines(resp, answer)
	if out == nil && (resp.StatusCode >= 300 || resp.StatusCode != http.StatusAccepted && len(bytes.TrimSpace(answer)) > 0) {
		return b.failed(msg, -32603, fmt.Sprintf("Switchboard answered HTTP %d: %.200s", resp.StatusCode, bytes.TrimSpace(answer)))
	}
	if msg.Method == "initialize" && resp.StatusCode == http.StatusOK {
		b.noteVersion(answer)
	}
	return out
}

func (b *bridge) post(ctx context.Context, ep, tok string, line []byte, msg bridgeMessage) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep, bytes.NewReader(line))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcphttp.TransportHeader, "stdio")
	b.setProtocolHeaders(req.Header, msg)
	return b.client.Do(req)
}

// setProtocolHeaders sets the headers the streamable HTTP transport wants
// and a stdio client cannot send: the protocol version (a 2026-07-28
// request carries it in _meta, an older session got it from initialize)
// and, from 2026-07-28, the method and the name the request is about.
func (b *bridge) setProtocolHeaders(h http.Header, msg bridgeMessage) {
	version, _ := msg.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string)
	if version == "" && msg.Method != "initialize" {
		b.mu.Lock()
		version = b.version
		b.mu.Unlock()
	}
	if !headerSafe(version) || version == "" {
		return
	}
	h.Set("MCP-Protocol-Version", version)
	if version < "2026-07-28" || msg.Method == "" || !headerSafe(msg.Method) {
		return
	}
	h.Set("Mcp-Method", msg.Method)
	name := msg.Params.Name
	if msg.Method == "resources/read" {
		name = msg.Params.URI
	}
	switch msg.Method {
	case "tools/call", "prompts/get", "resources/read":
		if name != "" && headerSafe(name) {
			h.Set("Mcp-Name", name)
		}
	}
}

// noteVersion keeps the protocol version an initialize answer negotiated.
func (b *bridge) noteVersion(answer []byte) {
	var a struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(answer, &a) == nil && a.Result.ProtocolVersion != "" {
		b.mu.Lock()
		b.version = a.Result.ProtocolVersion
		b.mu.Unlock()
	}
}

// headerSafe reports whether s can go in a header as it is: printable
// ASCII.
func headerSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// answerLines turns an HTTP answer into stdout lines: a JSON body as one
// line, each data field of an event stream as one line, nothing for 202 or
// an empty body. It returns nil for a body that is neither.
func answerLines(resp *http.Response, body []byte) []byte {
	if resp.StatusCode == http.StatusAccepted || len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if media == "text/event-stream" {
		var out []byte
		for line := range bytes.Lines(body) {
			data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:"))
			if !ok {
				continue
			}
			if l := oneLine(bytes.TrimPrefix(data, []byte(" "))); l != nil {
				out = append(out, l...)
			}
		}
		return out
	}
	return oneLine(body)
}

// oneLine compacts a JSON object (or batch) to one newline-terminated line,
// or returns nil for anything else.
func oneLine(data []byte) []byte {
	var buf bytes.Buffer
	data = bytes.TrimSpace(data)
	if len(data) == 0 || (data[0] != '{' && data[0] != '[') || json.Compact(&buf, data) != nil {
		return nil
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// notDelivered answers a request that never reached Switchboard.
func (b *bridge) notDelivered(msg bridgeMessage, err error) []byte {
	b.log.Warn("Switchboard is not reachable", "err", err)
	return b.failed(msg, codeNotRunning, "Switchboard is not running (start it, then try again): "+err.Error())
}

// failed is a JSON-RPC error answering msg, or nil when msg is a
// notification, which is never answered.
func (b *bridge) failed(msg bridgeMessage, code int, message string) []byte {
	if idKey(msg.ID) == "" {
		return nil
	}
	return rpcErrorLine(msg.ID, code, message, "")
}

// rpcErrorLine is one JSON-RPC error line; dataCode, when set, goes in
// error.data.code as the endpoint's own errors carry it.
func rpcErrorLine(id json.RawMessage, code int, message string, dataCode store.Code) []byte {
	if idKey(id) == "" {
		id = json.RawMessage("null")
	}
	e := map[string]any{"code": code, "message": message}
	if dataCode != "" {
		e["data"] = map[string]any{"code": dataCode}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	return append(b, '\n')
}

// idKey is a JSON-RPC id in a form fit for a map key, or "" when there is
// none: a JSON-RPC id is a string or a number.
func idKey(id json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, id) != nil {
		return ""
	}
	s := buf.String()
	if s == "" || s == "null" || s[0] == '{' || s[0] == '[' || s == "true" || s == "false" {
		return ""
	}
	return s
}

// readLines calls fn with each line of r (without its end of line), until
// r ends or fn returns false. A line longer than max is not kept: fn gets
// it as tooLong, without its data.
func readLines(r io.Reader, max int, fn func(inLine) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			// Keep one byte over max, and the end of line, to tell.
			if len(buf)+len(chunk) > max+3 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(chunk) > 0 || len(buf) > 0 || tooLong {
			line := bytes.TrimRight(buf, "\r\n")
			switch {
			case tooLong || len(line) > max:
				if !fn(inLine{tooLong: true}) {
					return nil
				}
			case len(bytes.TrimSpace(line)) > 0:
				if !fn(inLine{data: line}) {
					return nil
				}
			}
		}
		buf, tooLong = nil, false
		if err != nil {
			return nil
		}
	}
}
