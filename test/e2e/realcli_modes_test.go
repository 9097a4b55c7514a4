//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
	"github.com/switchboard-dev/switchboard/test/standinmodel"
)

// Each real CLI through its built-in profile in every permission mode:
// Switchboard's tools run without a person in each, so the packet gets
// done, and the session says its mode; in ask, the default, the session
// and the packet also show the model's token usage (checkRealUsage).
// (TestRealCLIClaude and the others run the default with no flag, with
// three packets.) Claude Code refuses its
// bypass as root unless IS_SANDBOX=1 says it runs in a sandbox, as this
// test machine does: as root that mode runs with the variable set.
func TestRealCLIModes(t *testing.T) {
	for _, c := range []realCLI{claudeCLI, codexCLI, geminiCLI} {
		for _, mode := range profile.Permissions() {
			t.Run(c.profile+"/"+string(mode), func(t *testing.T) {
				if _, err := supervisor.PermissionArgs(builtinProfile(t, c.profile), mode, os.Geteuid()); err != nil && strings.Contains(err.Error(), supervisor.ErrBypassAsRoot.Error()) {
					user := c.user
					c.user = func(t *testing.T, home string, model *standinmodel.Server) []string {
						return append(user(t, home, model), "IS_SANDBOX=1")
					}
				} else if err != nil {
					t.Fatalf("%s in %s: %v", c.profile, mode, err)
				}
				args := []string{"--permission", string(mode)}
				if mode == profile.PermissionAuto {
					args = append(args, "--yes")
				}
				r := runRealCLI(t, c, 1, args...)
				var list mcpserver.AgentList
				if err := json.Unmarshal([]byte(mustCLI(t, r.env, "agent", "list", "--json")), &list); err != nil {
					t.Fatal(err)
				}
				for _, a := range list.Agents {
					if a.SessionID == r.session && a.Permission != mode {
						t.Errorf("the session runs in %q, want %q", a.Permission, mode)
					}
				}
				t.Logf("figure: %s in %s: first tool call after %v", c.profile, mode, r.firstCall)
				if mode == profile.PermissionAsk {
					checkRealUsage(t, r, c.profile)
				}
			})
		}
	}
}

// Hooks and full auto together: two --settings (the hooks' file, the
// bypass consent) must both take effect.
func TestRealCLIClaudeHooksInAuto(t *testing.T) {
	c := claudeCLI
	user := c.user
	c.user = func(t *testing.T, home string, model *standinmodel.Server) []string {
		return append(user(t, home, model), "IS_SANDBOX=1")
	}
	r := runRealCLI(t, c, 1, "--permission", "auto", "--yes")
	if !eventually(t, func() bool {
		var audit struct {
			Records []store.AuditRecord `json:"records"`
		}
		if err := json.Unmarshal([]byte(mustCLI(t, r.env, "audit", "--method", "session.signal", "--limit", "500", "--json")), &audit); err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(audit.Records, func(rec store.AuditRecord) bool {
			return rec.SessionID == r.session && rec.Transport == string(mcpserver.TransportHook) && rec.Outcome == "ok"
		})
	}) {
		t.Fatalf("no hook signal in full auto:\n%s", lastScreen(r.d, r.session))
	}
}
