package mcpserver

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

func TestParseOrigin(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://tools.example", "https://tools.example"},
		{"HTTPS://Tools.Example:8443", "https://tools.example:8443"},
		{" http://localhost:3000/ ", "http://localhost:3000"},
		{"http://[::1]:5173", "http://[::1]:5173"},
	} {
		if got, err := ParseOrigin(c.in); err != nil || got != c.want {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "null", "tools.example", "file:///tmp", "ftp://tools.example", "https://", "https://tools.example/app",
		"https://u:p@tools.example", "https://tools.example?x=1", "https://tools.example#f", "javascript:alert(1)", "https:tools.example"} {
		if got, err := ParseOrigin(in); err == nil {
			t.Errorf("ParseOrigin(%q) = %q, want an error", in, got)
		}
	}
}

// connection.put checks the address as the flag is checked, keeps the
// origins canonical and unique, and refuses what the flag would refuse.
func TestConnectionSettings(t *testing.T) {
	f := newFixture(t)
	get := func() ConnectionSettings {
		t.Helper()
		res := f.invoke(OperatorPrincipal(), TransportGUI, "connection.get", "")
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		return res.Value.(ConnectionSettings)
	}
	if got := get(); got.ListenAddr != "" || len(got.AllowOrigins) != 0 {
		t.Fatalf("fresh database: %+v, want the defaults", got)
	}
	for _, c := range []struct {
		name string
		in   ConnectionSettings
		want *ConnectionSettings // nil: refused with invalid_argument
	}{
		{"port and origins", ConnectionSettings{ListenAddr: " 8765 ", AllowOrigins: []string{"HTTPS://Tools.Example/", "", "https://tools.example", "http://localhost:3000"}},
			&ConnectionSettings{ListenAddr: "8765", AllowOrigins: []string{"https://tools.example", "http://localhost:3000"}}},
		{"off", ConnectionSettings{ListenAddr: "OFF"}, &ConnectionSettings{ListenAddr: "off", AllowOrigins: []string{}}},
		{"default", ConnectionSettings{}, &ConnectionSettings{AllowOrigins: []string{}}},
		{"loopback host:port", ConnectionSettings{ListenAddr: "[::1]:9"}, &ConnectionSettings{ListenAddr: "[::1]:9", AllowOrigins: []string{}}},
		{"every interface", ConnectionSettings{ListenAddr: "0.0.0.0:8765"}, nil},
		{"empty host", ConnectionSettings{ListenAddr: ":8765"}, nil},
		{"LAN", ConnectionSettings{ListenAddr: "192.168.1.2:80"}, nil},
		{"bad port", ConnectionSettings{ListenAddr: "99999"}, nil},
		{"bad origin", ConnectionSettings{AllowOrigins: []string{"tools.example"}}, nil},
		{"origin with a path", ConnectionSettings{AllowOrigins: []string{"https://tools.example/app"}}, nil},
		{"too many origins", ConnectionSettings{AllowOrigins: manyOrigins(maxAllowOrigins + 1)}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := get()
			args, _ := json.Marshal(c.in)
			res := f.invoke(OperatorPrincipal(), TransportGUI, "connection.put", string(args))
			if c.want == nil {
				wantCode(t, res, store.CodeInvalidArgument)
				if got := get(); got.ListenAddr != before.ListenAddr || !slices.Equal(got.AllowOrigins, before.AllowOrigins) {
					t.Errorf("a refused put changed the settings: %+v → %+v", before, got)
				}
				return
			}
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if got := get(); got.ListenAddr != c.want.ListenAddr || !slices.Equal(got.AllowOrigins, c.want.AllowOrigins) {
				t.Errorf("saved %+v, want %+v", got, *c.want)
			}
		})
	}
	// Agents cannot reach it over MCP.
	tok, _ := f.createClientToken(t)
	wantCode(t, f.invoke(TokenPrincipal(tok), TransportMCP, "connection.put", `{"listen_addr":"off"}`), store.CodeToolHidden)
}

func manyOrigins(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "https://o" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ".example"
	}
	return out
}
