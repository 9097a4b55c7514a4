package cli

// The agent commands (start, list, stop, attach) and profile list.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-dev/switchboard/app/daemon/control"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
)

func runAgent(ctx context.Context, c *cli, args []string) error {
	return c.dispatch(ctx, args, c.agentUsage, map[string]func(context.Context, *cli, []string) error{
		"start":  agentStart,
		"list":   agentList,
		"stop":   agentStop,
		"attach": agentAttach,
		"resume": agentResume,
	})
}

func (c *cli) agentUsage() {
	fmt.Fprint(c.env.Stderr, `Usage: switchboard agent COMMAND
  start PROFILE --repo ID [--packet ID] [--permission ask|edits|auto [--yes]]
        [--prompt TEXT] [--cols N --rows N] [--json]
                             start an agent in a supervised terminal; the
                             session id is printed on its own line
  list [--json]              the agents the running app supervises
  stop SESSION [--kill] [--json]
                             interrupt, terminate, then kill the agent
                             (--kill: at once) and print how it ended
  attach SESSION             watch the agent's terminal here and type into
                             it; Ctrl-] detaches
  resume SESSION [--json]    start again, in its worktree and on its own
                             conversation, an agent that ended with the app
                             (quit, crash, kill)
Profiles: switchboard profile list
`)
}

func agentStart(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("agent start", "agent start PROFILE --repo ID [--packet ID] [--name TEXT] [--permission ask|edits|auto [--yes]] [--prompt TEXT] [--base BRANCH] [--no-worktree] [--cols N --rows N] [--json]")
	permission := fs.String("permission", "ask", "what the agent's CLI may do without asking: ask (it asks before edits and commands), edits (file edits allowed) or auto (its own bypass mode; only in a worktree, confirmed once per repository)")
	yes := fs.Bool("yes", false, "with --permission auto: confirm full auto for the repository (asked on a terminal otherwise)")
	repo := fs.String("repo", "", "the repository `ID` the agent works in (required)")
	packet := fs.String("packet", "", "start the agent on this queued packet `ID`: it is held for the agent, and the agent's first claim takes it")
	name := fs.String("name", "", "what the agent works on, as lists show it (default: the packet's title)")
	base := fs.String("base", "", "the `BRANCH` the agent's worktree starts from (default: the repository's setting, else the branch checked out in its folder)")
	noWorktree := fs.Bool("no-worktree", false, "run the agent in the repository's folder itself, not in a git worktree of its own")
	prompt := fs.String("prompt", "", "the first prompt, instead of Switchboard's bootstrap prompt; always delivered (typed in when the profile takes no prompt argument)")
	cols := fs.Int("cols", 0, "terminal columns (default 120)")
	rows := fs.Int("rows", 0, "terminal rows (default 40)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 || *repo == "" {
		fmt.Fprintln(c.env.Stderr, "switchboard agent start: a PROFILE and --repo are required")
		fs.Usage()
		return errUsage
	}
	out, err := startWithPermission(ctx, c, mcpserver.AgentStartArgs{Profile: fs.Arg(0), RepositoryID: *repo, Prompt: *prompt, Cols: *cols, Rows: *rows,
		Base: *base, NoWorktree: *noWorktree, Permission: profile.Permission(*permission), PacketID: *packet, Name: *name}, *yes)
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	c.printf("%s\n", out.SessionID)
	fmt.Fprintf(c.env.Stderr, "%s started (pid %d, permission %s); recording %s\n", out.Profile, out.PID, out.Permission, out.Recording)
	if ws := out.Workspace; ws != nil {
		fmt.Fprintf(c.env.Stderr, "It works in %s, on branch %s from %s.\n", ws.Path, ws.Branch, ws.BaseBranch)
	} else if out.Isolation != "" {
		fmt.Fprintf(c.env.Stderr, "It works in the repository's folder (%s).\n", strings.TrimPrefix(out.Isolation, "none: "))
	}
	if conf := out.Confinement; conf != nil {
		fmt.Fprintf(c.env.Stderr, "Confinement: %s; its processes are held by a %s.\n", conf, conf.Processes)
	}
	if out.Setup != "" {
		fmt.Fprintf(c.env.Stderr, "Its setup runs first (%s); the agent starts if it succeeds.\n", out.Setup)
	}
	if out.Port != 0 {
		fmt.Fprintf(c.env.Stderr, "SWITCHBOARD_PORT=%d (ports %d-%d are its own).\n", out.Port, out.Port, out.Port+store.PortBlock-1)
	}
	return nil
}

func agentList(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("agent list", "agent list [--json]")
	asJSON := fs.Bool("json", false, "print the agents as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	out, err := call(ctx, c, mcpserver.MethodAgentList, mcpserver.NoArgs{})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tPROFILE\tREPOSITORY\tPERMISSION\tCONFINEMENT\tPID\tSTATUS\tSIZE\tSTARTED\tUSAGE")
	for _, a := range out.Agents {
		status := string(a.Status)
		if a.Setup {
			status = "setting up"
		}
		if a.Exit != nil {
			status = fmt.Sprintf("%s (%s, code %d)", a.Status, a.Exit.Reason, a.Exit.Code)
		}
		conf := a.Confinement.Level
		if a.Confinement.Method != "" {
			conf += " (" + a.Confinement.Method + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%dx%d\t%s\t%s\n", a.SessionID, a.Profile, a.RepositoryID, a.Permission.Or(), conf, a.PID, status, a.Cols, a.Rows, a.StartedAt.Local().Format(time.DateTime), sessionUsageText(a.Usage))
	}
	return tw.Flush()
}

func agentStop(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("agent stop", "agent stop SESSION [--kill] [--json]")
	kill := fs.Bool("kill", false, "kill the process group at once")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	out, err := call(ctx, c, mcpserver.MethodAgentStop, mcpserver.AgentStopArgs{SessionID: fs.Arg(0), Kill: *kill})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	how := fmt.Sprintf("code %d", out.Exit.Code)
	if out.Exit.Signal != "" {
		how = "signal " + out.Exit.Signal
	}
	c.printf("%s %s (%s)\n", out.SessionID, out.Exit.Reason, how)
	return nil
}

// detachKey is Ctrl-]: it ends an attach, as in telnet.
const detachKey = 0x1d

func agentAttach(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("agent attach", "agent attach SESSION")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if err := c.resolvePaths(); err != nil {
		return err
	}
	conn, err := control.NewClient(c.paths.ControlSocket()).Attach(ctx, fs.Arg(0))
	if errors.Is(err, control.ErrNotRunning) {
		return errors.New("agents run inside the Switchboard app, and it is not running")
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	in, isFile := c.env.Stdin.(*os.File)
	if isFile {
		if restore, err := makeRaw(in); err == nil {
			defer restore()
		}
	}
	fmt.Fprintf(c.env.Stderr, "attached to %s; Ctrl-] detaches\r\n", fs.Arg(0))
	done := make(chan error, 2)
	go func() {
		// The agent's bytes, less what would act beyond the screen: the
		// person's clipboard, title, notifications (sanitize.go).
		_, err := io.Copy(newEscapeFilter(c.env.Stdout), conn)
		done <- err
	}()
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := c.env.Stdin.Read(buf)
			if i := strings.IndexByte(string(buf[:n]), detachKey); i >= 0 {
				conn.Write(buf[:i])
				done <- nil
				return
			}
			if n > 0 {
				if _, werr := conn.Write(buf[:n]); werr != nil {
					done <- werr
					return
				}
			}
			if err != nil {
				done <- nil
				return
			}
		}
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	fmt.Fprint(c.env.Stderr, "\r\ndetached\r\n")
	return err
}

func runProfile(ctx context.Context, c *cli, args []string) error {
	return c.dispatch(ctx, args, func() {
		fmt.Fprint(c.env.Stderr, `Usage: switchboard profile COMMAND
  list [--json]   the agent profiles, and whether each one's command is installed
  add ID --command CMD [--name NAME] [--arg A]... [--env K=V]...
      [--prompt argument|typed|none] [--token-env] [--mcp-config claude]
                  add a profile, or replace one (a built-in's ID edits the
                  built-in); templates: {endpoint} {token_file} {mcp_config}
                  {session_id} {repository_id} {repository_path} {prompt}
  remove ID       remove a profile (an edited built-in comes back as shipped)
`)
	}, map[string]func(context.Context, *cli, []string) error{
		"list":   profileList,
		"add":    profileAdd,
		"remove": profileRemove,
	})
}

func profileAdd(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("profile add", "profile add ID --command CMD [flags]")
	name := fs.String("name", "", "the name people see (default: the ID)")
	command := fs.String("command", "", "the program, found on PATH (required)")
	prompt := fs.String("prompt", "typed", "how the bootstrap prompt is delivered: argument ({prompt} in --arg), typed, or none (agent start --prompt is still typed)")
	tokenEnv := fs.Bool("token-env", false, "also put the token in SWITCHBOARD_MCP_TOKEN")
	mcpConfig := fs.String("mcp-config", "", `write a per-session MCP config file ({mcp_config}) in this format: "claude"`)
	hooks := fs.String("hooks", "", `give the CLI hooks that report its state to Switchboard: "claude" (a per-session --settings file)`)
	usageFrom := fs.String("usage", "", `where the CLI records its token usage, read for its sessions: "claude", "codex" or "gemini" (default: none reported)`)
	var argv, env, modeArgs listFlags
	fs.Var(&argv, "arg", "one command-line `ARGUMENT` template (repeatable, in order)")
	fs.Var(&env, "env", "one `NAME=VALUE` template added to the environment (repeatable)")
	fs.Var(&modeArgs, "mode-arg", "`MODE=ARGUMENT`: one argument template added in permission mode ask, edits or auto (repeatable, in order; MODE= offers the mode with no argument). A mode given none is not offered; with no --mode-arg at all only ask is")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	perms, err := parseModeArgs(modeArgs)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 || *command == "" {
		fmt.Fprintln(c.env.Stderr, "switchboard profile add: an ID and --command are required")
		fs.Usage()
		return errUsage
	}
	p := profile.Profile{ID: fs.Arg(0), Name: *name, Command: *command, Args: argv, Env: env,
		Prompt: profile.PromptDelivery(*prompt), TokenEnv: *tokenEnv, MCPConfig: *mcpConfig, Permissions: perms, Hooks: *hooks}
	p.Usage = *usageFrom
	if p.Name == "" {
		p.Name = p.ID
	}
	out, err := call(ctx, c, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: p})
	if err != nil {
		return err
	}
	c.printf("%s\n", out.Profile.ID)
	if !out.Profile.Available {
		fmt.Fprintf(c.env.Stderr, "note: %q is not on PATH; the profile is listed as unavailable until it is\n", p.Command)
	}
	return nil
}

func profileRemove(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("profile remove", "profile remove ID")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	_, err := call(ctx, c, mcpserver.MethodProfileDelete, mcpserver.ProfileArgs{ID: fs.Arg(0)})
	return err
}

func profileList(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("profile list", "profile list [--json]")
	asJSON := fs.Bool("json", false, "print the profiles as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	out, err := call(ctx, c, mcpserver.MethodProfileList, mcpserver.NoArgs{})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROFILE\tNAME\tCOMMAND\tAVAILABLE\tPROMPT\tUSAGE\tMODES")
	for _, p := range out.Profiles {
		avail := "no"
		if p.Available {
			avail = "yes (" + p.Path + ")"
		}
		name := p.Name
		if p.Edited {
			name += " (edited)"
		}
		var modes []string
		for _, m := range profile.Permissions() {
			if p.Offers(m) {
				modes = append(modes, string(m))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.ID, name, p.Command, avail, p.Prompt, profileUsageText(p.Usage), strings.Join(modes, ","))
	}
	return tw.Flush()
}
