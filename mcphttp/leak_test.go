package mcphttp

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/internal/coretest"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// No response body or header, error message, log line or database byte
// ever holds a raw token or its secret, across every kind of request.
func TestNoTokenLeaks(t *testing.T) {
	e := newHTTPEnv(t)
	var errs []string
	keepErr := func(err error) {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}

	for _, c := range e.frontLayerCases() {
		t.Run(c.name, func(t *testing.T) { e.do(t, c) })
	}

	for _, raw := range []string{e.clientRaw, e.auditRaw} {
		cs := e.connect(t, raw)
		_, err := cs.ListTools(t.Context(), nil)
		keepErr(err)
		for _, name := range []string{"status", "token_create", "token.rotate", "token_client", "audit_query", "repository_register", "no_such_tool"} {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"repository_id": "repo_x"}})
			keepErr(err)
			if res != nil {
				errs = append(errs, textOf(t, res))
			}
		}
	}
	// Every resource and the prompt, for both tokens; and templates with an
	// id that names nothing.
	for _, raw := range []string{e.clientRaw, e.auditRaw} {
		cs := e.connect(t, raw)
		for _, uri := range []string{"switchboard://policies/current", "switchboard://tools/catalog", "switchboard://repositories", "switchboard://packets/pkt_x", "switchboard://sessions/ses_x", "switchboard://nothing"} {
			res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
			keepErr(err)
			if res != nil {
				for _, c := range res.Contents {
					errs = append(errs, c.Text)
				}
			}
		}
		pr, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: promptName})
		keepErr(err)
		if pr != nil {
			for _, m := range pr.Messages {
				if tc, ok := m.Content.(*mcp.TextContent); ok {
					errs = append(errs, tc.Text)
				}
			}
		}
	}
	// Tokens that do not authenticate, at connect time.
	for _, raw := range []string{e.revokedRaw, e.expiredRaw, e.unknownRaw, e.wrongSecretRaw} {
		client := mcp.NewClient(&mcp.Implementation{Name: "leak", Version: "0"}, nil)
		_, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: e.url, HTTPClient: e.httpClient(raw), MaxRetries: -1}, nil)
		if err == nil {
			t.Error("connect with a dead token succeeded")
		}
		keepErr(err)
	}
	// Registry errors for tokens that no longer pass.
	for _, raw := range []string{e.revokedRaw, e.expiredRaw} {
		keyID, _, _ := store.ParseToken(raw)
		res := e.invoke(mcpserver.Principal{KeyID: keyID}, mcpserver.TransportMCP, "status", "")
		keepErr(res.Err)
		var d *store.Denial
		if errors.As(res.Err, &d) {
			errs = append(errs, d.Reason)
		}
	}
	// A rotation whose new token cannot be kept logs a warning.
	e.env.RotateErr = errors.New("keyring unavailable")
	rotated := e.invoke(mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, "token.rotate", "")
	wantCode(t, rotated, "ok")
	newRaw := rotated.Value.(mcpserver.TokenCreated).Secret

	logs := e.logs.String()
	if !strings.Contains(logs, "could not be kept") {
		t.Errorf("expected the rotation warning in the log: %q", logs)
	}
	db := stores.Bytes(t, e.db)
	bodies := e.rec.all()
	if len(bodies) < 60 {
		t.Fatalf("only %d responses recorded", len(bodies))
	}

	t.Logf("checked %d responses, %d error messages, %d bytes of log, %d bytes of database", len(bodies), len(errs), len(logs), len(db))
	raws := []string{e.clientRaw, e.auditRaw, e.revokedRaw, e.expiredRaw, e.unknownRaw, e.wrongSecretRaw, newRaw}
	for _, raw := range raws {
		secret := coretest.SecretOf(t, raw)
		for _, s := range []string{raw, secret} {
			for _, b := range bodies {
				if strings.Contains(b, s) {
					t.Errorf("a response holds token material: %.300s", b)
				}
			}
			for _, m := range errs {
				if strings.Contains(m, s) {
					t.Errorf("an error message holds token material: %s", m)
				}
			}
			if strings.Contains(logs, s) {
				t.Errorf("the log holds token material")
			}
			if strings.Contains(string(db), s) {
				t.Errorf("the database file holds token material")
			}
		}
	}
}
