package supervisor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/profile"
)

// The --settings of a session's extenders become one document where the
// first stood: Claude Code reads only the last --settings it is given.
func TestJoinSettings(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, "ses_t.claude-settings.json")
	hooksDoc := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]},"env":{"A":"1"}}`
	mine := filepath.Join(dir, "person.json") // not the session's
	consent := `{"skipDangerousModePermissionPrompt":true,"env":{"B":"2"}}`
	tests := []struct {
		name  string
		args  []string
		files []string
		want  []string // "" for the merged document's place
		doc   string   // the merged document, "" when unchanged
		err   string
	}{
		{"none", []string{"--permission-mode", "manual"}, nil, []string{"--permission-mode", "manual"}, "", ""},
		{"one stays as it is", []string{"--settings", consent}, nil, []string{"--settings", consent}, "", ""},
		{"consent and the hooks' file", []string{"--permission-mode", "bypassPermissions", "--settings", consent, "--resume", "c1", "--settings", hooks},
			[]string{hooks}, []string{"--permission-mode", "bypassPermissions", "--settings", hooks, "--resume", "c1"},
			`{"env":{"A":"1","B":"2"},"hooks":{"Stop":[{"hooks":[{"command":"x","type":"command"}]}]},"skipDangerousModePermissionPrompt":true}`, ""},
		{"two inline, the = form", []string{"--settings=" + consent, "--settings", `{"env":{"B":"3"},"x":1}`}, nil,
			[]string{"--settings", ""}, `{"env":{"B":"3"},"skipDangerousModePermissionPrompt":true,"x":1}`, ""},
		{"a file that is not the session's", []string{"--settings", consent, "--settings", mine}, nil, nil, "", "its own files"},
		{"not an object", []string{"--settings", "{", "--settings", consent}, nil, nil, "", "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(hooks, []byte(hooksDoc), 0o600); err != nil {
				t.Fatal(err)
			}
			x := launchExtras{Args: slices.Clone(tt.args), Files: tt.files}
			err := joinSettings(nil, LaunchSpec{}, nil, &x)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("joinSettings = %v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := slices.Clone(x.Args)
			doc := ""
			for i, a := range got {
				if a == "--settings" && tt.doc != "" {
					doc = got[i+1]
					if doc == hooks {
						b, _ := os.ReadFile(hooks)
						doc = string(b)
						if fi, _ := os.Stat(hooks); fi.Mode().Perm() != 0o600 {
							t.Errorf("the settings file is %v", fi.Mode())
						}
					} else {
						got[i+1] = ""
					}
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("args %q, want %q", got, tt.want)
			}
			if tt.doc != "" {
				var a, b any
				json.Unmarshal([]byte(doc), &a)
				json.Unmarshal([]byte(tt.doc), &b)
				if !reflect.DeepEqual(a, b) {
					t.Errorf("merged %s, want %s", doc, tt.doc)
				}
			}
		})
	}
}

// Claude's full auto for a user it allows: the bypass mode and the consent
// for this run, which joinSettings keeps whatever other --settings follow.
func TestPermissionClaudeAuto(t *testing.T) {
	args, err := PermissionArgs(builtin(t, "claude"), profile.PermissionAuto, 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--permission-mode", "bypassPermissions", "--settings", `{"skipDangerousModePermissionPrompt":true}`}
	if !slices.Equal(args, want) {
		t.Errorf("claude auto: %q, want %q", args, want)
	}
}
