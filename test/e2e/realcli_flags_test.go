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

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// Every flag a built-in profile passes its CLI, in every permission mode,
// is one the pinned CLI's --help lists, and every value of a permission
// mode is one of the choices it lists: a renamed flag or mode fails here,
// not on a person's screen. Values of the base arguments (templates, the
// server's name, Codex's TOML) are Switchboard's own, not the CLI's
// choices; Codex's --disable feature is checked in its features list.
func TestProfileFlagsInHelp(t *testing.T) {
	bin := requireAgentCLIs(t)
	for _, p := range supervisor.Builtins() {
		path := filepath.Join(bin, p.Command)
		if _, err := os.Stat(path); err != nil {
			continue // aider, the shell: not pinned, no modes
		}
		t.Run(p.ID, func(t *testing.T) {
			help := cliOutput(t, path, "--help")
			var features string
			for _, a := range flagsOf(p.Args) {
				if !mentions(help, a.flag) {
					t.Errorf("%s --help does not list %s (a base argument of the profile)", p.Command, a.flag)
				}
				if p.ID == "codex" && (a.flag == "--disable" || a.flag == "--enable") {
					if features == "" {
						features = cliOutput(t, path, "features", "list")
					}
					if !mentions(features, a.value) {
						t.Errorf("codex features list has no %s (the profile passes %s %s)", a.value, a.flag, a.value)
					}
				}
			}
			if len(p.Permissions) != len(profile.Permissions()) {
				t.Errorf("%s maps %d of the %d permission modes", p.ID, len(p.Permissions), len(profile.Permissions()))
			}
			for mode, args := range p.Permissions {
				for _, a := range flagsOf(args) {
					if !mentions(help, a.flag) {
						t.Errorf("%s --help does not list %s (mode %s)", p.Command, a.flag, mode)
					}
					if a.value != "" && !mentions(help, a.value) {
						t.Errorf("%s --help does not list %q as a value (mode %s: %s %s)", p.Command, a.value, mode, a.flag, a.value)
					}
				}
			}
		})
	}
}

// Claude Code refuses its bypass mode as root, as supervisor.PermissionArgs
// expects: were that to change, full auto of Claude could be allowed as
// root again.
func TestClaudeBypassRefusedAsRoot(t *testing.T) {
	bin := requireAgentCLIs(t)
	if os.Geteuid() != 0 {
		t.Skip("runs as root only")
	}
	args := slices.Concat(builtinProfile(t, "claude").Permissions[profile.PermissionAuto], []string{"-p", "hello"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "claude"), args...)
	cmd.Dir = t.TempDir()
	cmd.Env = helpEnv(t)
	cmd.Env = slices.DeleteFunc(cmd.Env, func(e string) bool { return strings.HasPrefix(e, "IS_SANDBOX=") })
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "cannot be used with root") {
		t.Errorf("claude %q as root said:\n%s", args, out)
	}
	if _, err := supervisor.PermissionArgs(builtinProfile(t, "claude"), profile.PermissionAuto, 0); err == nil {
		t.Error("PermissionArgs allows Claude's auto as root")
	}
}

func builtinProfile(t *testing.T, id string) profile.Profile {
	for _, p := range supervisor.Builtins() {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("no built-in %s", id)
	return profile.Profile{}
}

// flagArg is a flag of an argument list and the value that follows it
// ("" for none, or when it is given with "=").
type flagArg struct{ flag, value string }

// flagsOf reads flags and their values from an argument list: "--x=v" is
// the flag --x; "--x v" takes v when v is no flag and no template.
func flagsOf(args []string) []flagArg {
	var out []flagArg
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		f := flagArg{flag: a}
		if name, _, ok := strings.Cut(a, "="); ok {
			f.flag = name
		} else if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !strings.Contains(args[i+1], "{") {
			f.value = args[i+1]
		}
		out = append(out, f)
	}
	return out
}

// mentions reports whether text holds word with no letter, digit, "_" or
// "-" on either side (--sandbox is not --sandbox-mode).
func mentions(text, word string) bool {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(word) + `($|[^A-Za-z0-9_-])`).MatchString(text)
}

// helpEnv is a throwaway HOME and nothing of the person's or the tests'
// Switchboard.
func helpEnv(t *testing.T) []string {
	home := t.TempDir()
	return append(nodeEnv(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "NO_COLOR=1", "TERM=dumb")
}

// cliOutput runs a CLI with args in a throwaway HOME and returns what it
// printed, failing on an error exit.
func cliOutput(t *testing.T, path string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = helpEnv(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(path), strings.Join(args, " "), err, out)
	}
	return string(out)
}
