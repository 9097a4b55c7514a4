package mcphttp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// The JSON-RPC envelope as the front layer reads it before any method runs:
// its id, method and the params it routes on, the protocol version and the
// headers that must agree with the body.

// envelope is the part of a JSON-RPC message the front layer reads.
type envelope struct {
	ID     json.RawMessage
	Method *string
	Params envelopeParams
}

// envelopeParams are the params fields the front layer reads.
type envelopeParams struct {
	RepositoryID string          `json:"repository_id"`
	URI          string          `json:"uri"`
	Name         string          `json:"name"`
	Arguments    json.RawMessage `json:"arguments"`
	Meta         struct {
		ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
	} `json:"_meta"`
}

// maxNesting bounds how deep a request's JSON may nest. The SDK refuses
// deeper than 1000 with a plain-text answer; refusing here gives the
// client a JSON-RPC error instead, and no legitimate call nests this deep.
const maxNesting = 64

// methodsNeedingParams are the methods whose params object is required.
var methodsNeedingParams = []string{"tools/call", "resources/read", "prompts/get"}

// mirroredHeaders are the headers that carry, outside the body, what the
// body says: the protocol version, and from 2026-07-28 the method and the
// tool, resource or prompt name. Each may be sent once.
var mirroredHeaders = []string{"MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"}

// codeHeaderMismatch is the JSON-RPC code of the 2026-07-28 revision for
// headers that are missing, malformed, or disagree with the body.
const codeHeaderMismatch = -32020

// readMessage reads and checks one JSON-RPC request body, answering the
// transport errors (payload_too_large, parse_error, invalid_request,
// method_unknown) itself.
func (h *HTTPHandler) readMessage(w http.ResponseWriter, r *http.Request) ([]byte, envelope, bool) {
	if r.ContentLength > mcpserver.MaxBodyBytes {
		// Refused from the declared length: a client that declares 10 GiB
		// and sends nothing would otherwise hold the request until the
		// server's ReadTimeout, and then get invalid_request.
		writeError(w, nil, store.Deny(mcpserver.CodePayloadTooLarge, "request body exceeds %d bytes", mcpserver.MaxBodyBytes))
		return nil, envelope{}, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcpserver.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, nil, store.Deny(mcpserver.CodePayloadTooLarge, "request body exceeds %d bytes", mcpserver.MaxBodyBytes))
			return nil, envelope{}, false
		}
		writeError(w, nil, store.Deny(mcpserver.CodeInvalidRequest, "reading body: %v", err))
		return nil, envelope{}, false
	}
	msg, d := parseEnvelope(body)
	if d != nil {
		writeError(w, msg.ID, d)
		return nil, msg, false
	}
	for _, k := range mirroredHeaders {
		// go-sdk checks the first value against the body; a gateway in
		// front may route on another, or take the era from another.
		if len(r.Header.Values(k)) > 1 {
			writeRPCError(w, http.StatusBadRequest, msg.ID, codeHeaderMismatch, k+" is sent more than once",
				map[string]any{"code": mcpserver.CodeInvalidRequest})
			return nil, msg, false
		}
	}
	if d := checkProtocolVersion(r.Header.Get("MCP-Protocol-Version")); d != nil {
		writeVersionError(w, msg.ID, r.Header.Get("MCP-Protocol-Version"))
		return nil, msg, false
	}
	return body, msg, true
}

// parseEnvelope checks that body is one JSON-RPC 2.0 request or
// notification the server knows, strictly enough that the SDK behind will
// not answer it with plain text: member names match exactly (encoding/json
// would match "Method"), an id is a string or an integer, requests have
// ids, params is an object, nesting is bounded. The returned envelope's ID
// is set only when it is a valid id, so errors echo nothing else.
func parseEnvelope(body []byte) (envelope, *store.Denial) {
	var msg envelope
	if nestingDepth(body) > maxNesting {
		return msg, store.Deny(mcpserver.CodeInvalidRequest, "JSON nests deeper than %d levels", maxNesting)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return msg, store.Deny(mcpserver.CodeInvalidRequest, "body must be one JSON-RPC request object")
		}
		return msg, store.Deny(mcpserver.CodeParseError, "body is not valid JSON")
	}
	id, hasID := top["id"]
	if hasID {
		if !validID(id) {
			return msg, store.Deny(mcpserver.CodeInvalidRequest, "id must be a string or an integer")
		}
		msg.ID = id
	}
	var method string
	if string(top["jsonrpc"]) != `"2.0"` || json.Unmarshal(top["method"], &method) != nil || method == "" {
		return msg, store.Deny(mcpserver.CodeInvalidRequest, `body must be a JSON-RPC 2.0 request with "method"`)
	}
	msg.Method = &method
	if !hasID && !strings.HasPrefix(method, "notifications/") {
		return msg, store.Deny(mcpserver.CodeInvalidRequest, "%s is a request and needs an id", method)
	}
	if !slices.Contains(knownMethods, method) {
		return msg, store.Deny(store.CodeMethodUnknown, "unknown JSON-RPC method %q", method)
	}
	params, hasParams := top["params"]
	if hasParams && string(params) != "null" {
		if len(params) == 0 || params[0] != '{' {
			return msg, store.Deny(mcpserver.CodeInvalidRequest, "params must be an object")
		}
		if err := json.Unmarshal(params, &msg.Params); err != nil {
			return msg, store.Deny(mcpserver.CodeInvalidRequest, "params: %v", err)
		}
	} else if slices.Contains(methodsNeedingParams, method) {
		return msg, store.Deny(mcpserver.CodeInvalidRequest, "%s needs params", method)
	}
	if method == "resources/read" && !printableURI(msg.Params.URI) {
		// go-sdk v1.8.0 quotes a not-found URI with Go's %q into JSON: a
		// control character or invalid UTF-8 makes it drop the answer.
		return msg, store.Deny(mcpserver.CodeInvalidRequest, "params.uri must be printable UTF-8")
	}
	return msg, nil
}

// maxIntID bounds an integer JSON-RPC id: go-sdk v1.8.0 decodes ids as
// float64, so a larger one would come back as another number (2^63-1 as
// -2^63), and the client would never match its answer.
const maxIntID = 1 << 53

// validID reports whether a JSON-RPC id is a string or an integer the SDK
// answers faithfully: within ±2^53, where every integer is a float64.
func validID(id json.RawMessage) bool {
	if len(id) > 0 && id[0] == '"' {
		var s string
		return json.Unmarshal(id, &s) == nil
	}
	n, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil && -maxIntID <= n && n <= maxIntID
}

func printableURI(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// nestingDepth returns how deep arrays and objects nest in b, skipping
// strings; it stops counting past maxNesting.
func nestingDepth(b []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > maxNesting {
					return deepest
				}
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// checkProtocolVersion refuses an MCP-Protocol-Version header naming a
// version this server does not speak, older or later: the SDK would answer
// an older one in plain text, and take any string that sorts after
// 2026-07-28 ("21", "2099-01-01") for that revision and hold it to its
// header rules before refusing it.
func checkProtocolVersion(v string) *store.Denial {
	if v == "" || slices.Contains(mcp.SupportedProtocolVersions(), v) {
		return nil
	}
	return store.Deny(mcpserver.CodeInvalidRequest, "unsupported MCP-Protocol-Version %q", v)
}

// modernEra is the first revision whose requests mirror their method and
// name into headers.
const modernEra = "2026-07-28"

// checkMirroredHeaders holds a Streamable HTTP request of the 2026-07-28
// revision (by its MCP-Protocol-Version header or its _meta) to that
// revision's header rules,
// before the SDK does, so that the refusal carries our data.code and the
// request's id (go-sdk answers a notification's mismatch without an id):
// the header and _meta name the same version, Mcp-Method is the body's
// method, and Mcp-Name the tool or prompt name or resource URI of the calls
// that have one. A gateway may route on the headers while the server runs
// the body; a request whose two disagree goes nowhere.
func checkMirroredHeaders(h http.Header, msg envelope) (int64, string) {
	version, meta := h.Get("MCP-Protocol-Version"), msg.Params.Meta.ProtocolVersion
	if version < modernEra && meta == "" {
		return 0, ""
	}
	switch {
	case meta != "" && version != meta:
		return codeHeaderMismatch, fmt.Sprintf("MCP-Protocol-Version header %q does not match the body's _meta version %q", version, meta)
	case meta == "":
		return -32602, "a " + modernEra + " request carries its protocol version in params._meta"
	}
	if got := h.Get("Mcp-Method"); got != *msg.Method {
		return codeHeaderMismatch, fmt.Sprintf("Mcp-Method header %q does not match the body's method %q", got, *msg.Method)
	}
	var want string
	switch *msg.Method {
	case "tools/call", "prompts/get":
		want = msg.Params.Name
	case "resources/read":
		want = msg.Params.URI
	default:
		return 0, ""
	}
	got, ok := decodeHeaderValue(h.Get("Mcp-Name"))
	if !ok || got != want {
		return codeHeaderMismatch, fmt.Sprintf("Mcp-Name header %q does not match the body's %q", h.Get("Mcp-Name"), want)
	}
	return 0, ""
}

// decodeHeaderValue undoes the =?base64?…?= form a client uses for a name
// that is not printable ASCII.
func decodeHeaderValue(v string) (string, bool) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// writeVersionError answers an unsupported protocol version with -32022
// and the supported list, so a client can retry with one of them.
func writeVersionError(w http.ResponseWriter, id json.RawMessage, requested string) {
	writeRPCError(w, http.StatusBadRequest, id, -32022, "unsupported protocol version", map[string]any{
		"code":      mcpserver.CodeInvalidRequest,
		"supported": mcp.SupportedProtocolVersions(),
		"requested": requested,
	})
}
