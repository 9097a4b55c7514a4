//go:build unix

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor"
)

// helpOf runs an installed agent CLI with args (a --help) in a throwaway
// HOME and returns what it printed.
func helpOf(t *testing.T, bin, command string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, command), args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"), "NO_COLOR=1", "CI=1")
	cmd.Dir = home
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", command, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// offers reports whether help lists flag as an option of its own.
func offers(help, flag string) bool {
	return regexp.MustCompile(`(?m)(^|[\s,])` + regexp.QuoteMeta(flag) + `([\s,=]|$)`).MatchString(help)
}

// Every flag and subcommand the built-in profiles use to start and resume
// a conversation is one the installed CLI offers; a resume subcommand
// (Codex's) takes a session id and the profile's own options too.
func TestConversationFlagsInHelp(t *testing.T) {
	bin := requireAgentCLIs(t)
	checked := 0
	for _, p := range supervisor.Builtins() {
		c := p.Conversation
		if c == nil {
			continue
		}
		checked++
		help := helpOf(t, bin, p.Command, "--help")
		for _, a := range slices.Concat(c.StartArgs, c.ResumeArgs) {
			flag, _, _ := strings.Cut(a, "=")
			if strings.HasPrefix(flag, "-") && !offers(help, flag) {
				t.Errorf("%s: %s --help does not offer %s", p.ID, p.Command, flag)
			}
		}
		if len(c.ResumePrefix) == 0 {
			continue
		}
		sub := helpOf(t, bin, p.Command, c.ResumePrefix[0], "--help")
		if !strings.Contains(sub, "SESSION_ID") {
			t.Errorf("%s: %s %s --help takes no SESSION_ID:\n%s", p.ID, p.Command, c.ResumePrefix[0], sub)
		}
		for _, a := range p.Args {
			if flag, _, _ := strings.Cut(a, "="); strings.HasPrefix(flag, "-") && !offers(sub, flag) {
				t.Errorf("%s: %s %s does not take the profile's option %s", p.ID, p.Command, c.ResumePrefix[0], flag)
			}
		}
	}
	if checked != 3 {
		t.Errorf("%d built-in profiles resume conversations, want 3 (Claude Code, Codex, Gemini CLI)", checked)
	}
}
