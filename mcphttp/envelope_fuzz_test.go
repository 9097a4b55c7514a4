package mcphttp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// FuzzParseEnvelope: whatever the body, the front layer's parse either
// refuses it with one of the front's codes or returns a request whose
// method is known and whose id, when present, is valid JSON-RPC.
// FuzzHTTPFront covers the same bytes through the whole HTTP stack; this one
// runs the parser alone, thousands of times faster.
func FuzzParseEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"switchboard://x\u0000"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"name\":\"\xff\"}}",
		`{"jsonrpc":"2.0","id":1,"METHOD":"ping"}`,
		``, `null`, `"x"`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg, d := parseEnvelope(body)
		if d != nil {
			switch d.Code {
			case mcpserver.CodeParseError, mcpserver.CodeInvalidRequest, store.CodeMethodUnknown:
			default:
				t.Fatalf("refused with %s: %v", d.Code, d)
			}
			return
		}
		if msg.Method == nil || !slices.Contains(knownMethods, *msg.Method) {
			t.Fatalf("accepted an unknown method: %v", msg.Method)
		}
		if msg.ID != nil && (!json.Valid(msg.ID) || !validID(msg.ID)) {
			t.Fatalf("accepted id %s", msg.ID)
		}
	})
}
