package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
)

// startWithPermission calls agent.start. Full auto in a repository nobody
// confirmed it for needs a person's yes once: --yes gives it, else a
// person at a terminal is asked; a script without --yes is told how.
func startWithPermission(ctx context.Context, c *cli, in mcpserver.AgentStartArgs, yes bool) (mcpserver.AgentStarted, error) {
	auto := in.Permission == profile.PermissionAuto
	in.ConfirmFullAuto = auto && yes
	out, err := call(ctx, c, mcpserver.MethodAgentStart, in)
	var denied *errDenied
	if !auto || yes || !errors.As(err, &denied) || denied.code != store.CodeInvalidState || !strings.Contains(denied.message, "not confirmed") {
		return out, err
	}
	if !c.stdinIsTerminal() {
		return out, fmt.Errorf("full auto is not confirmed for repository %s yet: agents there would edit files and run commands with nobody asked (each in its own worktree); run again with --yes to confirm it once", in.RepositoryID)
	}
	fmt.Fprintf(c.env.Stderr, "Full auto: agents in repository %s edit files and run commands with nobody asked, each in a worktree of its own.\nAllow full auto in this repository from now on? [y/N] ", in.RepositoryID)
	line, _ := bufio.NewReader(c.env.Stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return out, errors.New("full auto not confirmed; nothing started")
	}
	in.ConfirmFullAuto = true
	return call(ctx, c, mcpserver.MethodAgentStart, in)
}

// stdinIsTerminal reports whether a person can answer on stdin.
func (c *cli) stdinIsTerminal() bool {
	f, ok := c.env.Stdin.(*os.File)
	return ok && isTerminal(f)
}

// parseModeArgs reads profile add's --mode-arg MODE=ARGUMENT values into a
// profile's Permissions; the server checks the modes and templates.
func parseModeArgs(values []string) (map[profile.Permission][]string, error) {
	if len(values) == 0 {
		return nil, nil
	}
	perms := map[profile.Permission][]string{}
	for _, v := range values {
		mode, arg, ok := strings.Cut(v, "=")
		if !ok {
			return nil, fmt.Errorf("--mode-arg %q is not MODE=ARGUMENT", v)
		}
		m := profile.Permission(mode)
		if arg == "" {
			if _, ok := perms[m]; !ok {
				perms[m] = nil // offered, with no argument
			}
			continue
		}
		perms[m] = append(perms[m], arg)
	}
	return perms, nil
}

// setFullAuto is repo set's --full-auto: confirm or withdraw.
func setFullAuto(ctx context.Context, c *cli, repo, v string) error {
	var confirmed bool
	switch v {
	case "confirm":
		confirmed = true
	case "withdraw":
	default:
		return fmt.Errorf("--full-auto must be confirm or withdraw, not %q", v)
	}
	_, err := call(ctx, c, mcpserver.MethodRepositoryFullAuto, mcpserver.RepositoryFullAutoArgs{RepositoryID: repo, Confirmed: confirmed})
	return err
}

// fullAutoText says whether full auto is confirmed, by what and when.
func fullAutoText(f *store.FullAutoConfirmation) string {
	if f == nil {
		return "not confirmed (agent start --permission auto asks, or --yes)"
	}
	return fmt.Sprintf("confirmed through %s at %s", f.By, f.At.Local().Format(time.DateTime))
}

// setUnconfined is repo set's --unconfined: confirm or withdraw.
func setUnconfined(ctx context.Context, c *cli, repo, v string) error {
	var on bool
	switch v {
	case "confirm":
		on = true
	case "withdraw":
	default:
		return fmt.Errorf("--unconfined must be confirm or withdraw, not %q", v)
	}
	_, err := call(ctx, c, mcpserver.MethodRepositoryUnconfined, mcpserver.RepositoryUnconfinedArgs{RepositoryID: repo, Unconfined: on})
	return err
}

// confinementText says whether a repository's agents run confined.
func confinementText(u *store.Confirmation) string {
	if u == nil {
		return "confined (Switchboard's sandbox)"
	}
	return fmt.Sprintf("UNCONFINED, as chosen through %s at %s (repo set --unconfined withdraw confines them again)", u.By, u.At.Local().Format(time.DateTime))
}
