package app

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

func TestClientConfigs(t *testing.T) {
	ep := "http://127.0.0.1:41234/mcp"
	tests := []struct {
		label string
		check func(t *testing.T, text string)
	}{
		{labelConfigClaude, func(t *testing.T, text string) {
			want := "claude mcp add --transport http switchboard '" + ep + "' --header 'Authorization: Bearer " + testToken + "'"
			if text != want {
				t.Errorf("got  %s\nwant %s", text, want)
			}
			// The command is one shell line that a POSIX shell splits into
			// exactly the intended words.
			words, err := exec.Command("sh", "-c", "set -- "+text+`; for a in "$@"; do printf '%s\n' "$a"; done`).Output()
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSpace(string(words)), "\n")
			if len(got) != 9 || got[6] != ep || got[7] != "--header" || got[8] != "Authorization: Bearer "+testToken {
				t.Errorf("shell words %q", got)
			}
		}},
		{labelConfigCodex, func(t *testing.T, text string) {
			for _, want := range []string{"[mcp_servers.switchboard]", `url = "` + ep + `"`, `http_headers = { Authorization = "Bearer ` + testToken + `" }`} {
				if !strings.Contains(text, want) {
					t.Errorf("no %q in\n%s", want, text)
				}
			}
		}},
		{labelConfigJSON, func(t *testing.T, text string) {
			var v struct {
				MCPServers map[string]struct {
					Type, URL string
					Headers   map[string]string
				} `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(text), &v); err != nil {
				t.Fatal(err)
			}
			s := v.MCPServers["switchboard"]
			if s.Type != "http" || s.URL != ep || s.Headers["Authorization"] != "Bearer "+testToken {
				t.Errorf("%+v", s)
			}
		}},
	}
	a := test.NewTempApp(t)
	log, sink := newTestLogger()
	m := testMenu(t, a, &fakeBackend{endpoint: ep, token: testToken}, log, func() {})
	sub := item(t, m, labelCopyConfig).ChildMenu
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			item(t, sub, tt.label).Action()
			tt.check(t, a.Clipboard().Content())
		})
	}
	if strings.Contains(sink.String(), testToken[4:]) {
		t.Error("log contains the client token")
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"plain": "'plain'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
