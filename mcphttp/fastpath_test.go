package mcphttp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

// The fast path and the SDK answer every tools/call the same, but for the
// audit ids (and the audit count status reports).
func TestFastPathMatchesSDK(t *testing.T) {
	f := newFixture(t)
	_, raw := f.createClientToken(t)
	_, narrow := f.createToken(t, store.TokenSpec{Label: "audit only", Grants: []store.Grant{{Capability: store.CapAuditRead, Repositories: []string{"*"}}}})
	repo := f.registerRepo(t, "/src/x")
	fast := httptest.NewServer(NewHTTPHandler(f.reg, HTTPOptions{Version: testVersion}))
	defer fast.Close()
	slowHandler := NewHTTPHandler(f.reg, HTTPOptions{Version: testVersion})
	slowHandler.noFastPath = true
	slow := httptest.NewServer(slowHandler)
	defer slow.Close()

	// Audit ids and the audit count in status differ from call to call.
	auditIDs := regexp.MustCompile(`(aud_)[0-9a-f]{16}|(audit_records\\?":)\d+`)
	for _, tc := range []struct{ name, token, params string }{
		{"status", raw, `{"name":"status","arguments":{}}`},
		{"status without arguments", raw, `{"name":"status"}`},
		{"dotted name", raw, `{"name":"repository.list","arguments":{}}`},
		{"repository scope from params", raw, `{"name":"status","arguments":{},"repository_id":"` + repo.ID + `"}`},
		{"unregistered repository", raw, `{"name":"status","arguments":{"repository_id":"repo_nope"}}`},
		{"hidden", raw, `{"name":"token_create","arguments":{}}`},
		{"capability missing", narrow, `{"name":"status","arguments":{}}`},
		{"bad arguments", raw, `{"name":"audit_query","arguments":{"nonsense":1}}`},
		{"arguments not an object", raw, `{"name":"status","arguments":[1]}`},
		{"unknown tool", raw, `{"name":"no_such_tool","arguments":{}}`},
		{"internal method", raw, `{"name":"resource.policies","arguments":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":"x-1","method":"tools/call","params":` + tc.params + `}`
			answers := [2]any{}
			for i, url := range []string{fast.URL, slow.URL} {
				req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+tc.token)
				req.Header.Set("MCP-Protocol-Version", "2025-06-18")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("HTTP %d: %s", resp.StatusCode, b)
				}
				if err := json.Unmarshal(auditIDs.ReplaceAll(b, []byte("${1}${2}0")), &answers[i]); err != nil {
					t.Fatalf("%s: %v", b, err)
				}
			}
			a, _ := json.Marshal(answers[0])
			b, _ := json.Marshal(answers[1])
			if string(a) != string(b) {
				t.Fatalf("fast path and SDK differ:\nfast %s\nsdk  %s", a, b)
			}
		})
	}
}

// appendJSONString writes what encoding/json would: the same string once
// decoded, for text with quotes, controls, HTML characters, non-ASCII and
// bytes that are not UTF-8.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr\x00nul\x1f",
		"<script>&amp;</script>", "ünïcödé 漢字 \u2028 \U0001F600", "bad \xff\xfe utf8", "cut \xe6\xbc",
	} {
		got, err := appendJSONString([]byte("x"), []byte(s))
		if err != nil || got[0] != 'x' {
			t.Fatalf("%q: %s, %v", s, got, err)
		}
		want, _ := json.Marshal(s)
		var a, b string
		if err := json.Unmarshal(got[1:], &a); err != nil {
			t.Fatalf("%q: %s is not a JSON string: %v", s, got[1:], err)
		}
		json.Unmarshal(want, &b)
		if a != b {
			t.Errorf("%q: decodes to %q, encoding/json's to %q", s, a, b)
		}
	}
}
