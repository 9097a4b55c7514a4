package cli

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/workspace"
)

func runStatus(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("status", "status [--json]")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	st, err := call(ctx, c, mcpserver.MethodStatus, mcpserver.RepoScope{})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(st)
	}
	state := "not running (working on the database directly)"
	if st.Running {
		state = "running"
	}
	c.printf("Switchboard %s: %s\n", st.Version, state)
	c.printf("MCP endpoint:  %s\n", orDash(st.Endpoint))
	c.printf("Keyring:       %s\n", st.Keyring)
	c.printf("Data dir:      %s\n", c.paths.Data)
	c.printf("Tokens:        %d live of %d\n", st.Counts.LiveTokens, st.Counts.Tokens)
	c.printf("Repositories:  %d\n", st.Counts.Repositories)
	c.printf("Audit records: %d\n", st.Counts.AuditRecords)
	return nil
}

func runEndpoint(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("endpoint", "endpoint")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.resolvePaths(); err != nil {
		return err
	}
	st, err := call(ctx, c, mcpserver.MethodStatus, mcpserver.RepoScope{})
	if err != nil {
		return err
	}
	switch {
	case !st.Running:
		return fmt.Errorf("switchboard is not running")
	case st.Endpoint == "":
		return fmt.Errorf("the MCP listener is off (--mcp-http-addr off)")
	}
	c.printf("%s\n", st.Endpoint)
	return nil
}

func runToken(ctx context.Context, c *cli, args []string) error {
	return c.dispatch(ctx, args, c.tokenUsage, map[string]func(context.Context, *cli, []string) error{
		"create": tokenCreate,
		"list":   tokenList,
		"revoke": tokenRevoke,
		"rotate": tokenRotate,
		"client": tokenClient,
	})
}

// dispatch runs the subcommand named by args[0]. Asked for help it prints
// usage and succeeds; anything else unknown is a usage error.
func (c *cli) dispatch(ctx context.Context, args []string, usage func(), subs map[string]func(context.Context, *cli, []string) error) error {
	if len(args) > 0 {
		if run, ok := subs[args[0]]; ok {
			return run(ctx, c, args[1:])
		}
		if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			usage()
			return nil
		}
	}
	usage()
	return errUsage
}

func (c *cli) tokenUsage() {
	fmt.Fprint(c.env.Stderr, `Usage: switchboard token COMMAND
  create [--label L] [--kind operator|session] [--grant CAP[@REPO,...]]... [--expires 24h] [--json]
         mint a token; its secret is printed once, on its own line
  list [--all] [--json]      tokens without secrets (--all: revoked and expired too)
  revoke KEYID               revoke a token
  rotate [KEYID]             replace a token (default: the client token), print the new secret
  client                     print the client token the tray copies
`)
}

// grantFlags collects repeated --grant CAP[@REPO,REPO] values.
type grantFlags []store.Grant

func (g *grantFlags) String() string { return "" }
func (g *grantFlags) Set(v string) error {
	capName, repos, scoped := strings.Cut(v, "@")
	gr := store.Grant{Capability: store.Capability(capName), Repositories: []string{store.AllRepositories}}
	if !store.KnownCapability(gr.Capability) {
		return fmt.Errorf("unknown capability %q", capName)
	}
	if scoped {
		gr.Repositories = strings.Split(repos, ",")
		// An empty id (an unset shell variable) would make a grant that
		// silently matches no repository.
		if slices.Contains(gr.Repositories, "") {
			return fmt.Errorf("empty repository id in %q", v)
		}
	}
	*g = append(*g, gr)
	return nil
}

func tokenCreate(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("token create", "token create [flags]")
	label := fs.String("label", "", "what the token is for")
	kind := fs.String("kind", "operator", "operator or session")
	expires := fs.Duration("expires", 0, "lifetime, e.g. 24h (default: no expiry)")
	asJSON := fs.Bool("json", false, "print the token and its record as JSON")
	var grants grantFlags
	fs.Var(&grants, "grant", "capability, optionally @repo_a,repo_b (repeatable; default: every agent capability on all repositories)")
	if err := parse(fs, args); err != nil {
		return err
	}
	in := mcpserver.TokenCreateArgs{Label: *label, Kind: store.TokenKind(*kind), Grants: grants}
	switch {
	case *expires < 0:
		// Left out, it would mint a token that never expires.
		fmt.Fprintln(c.env.Stderr, "switchboard token create: --expires must be positive")
		return errUsage
	case *expires > 0:
		// Whole seconds, rounded up: 500ms must not truncate to 0, which
		// means "no expiry".
		in.ExpiresInSeconds = int64((*expires + time.Second - 1) / time.Second)
	}
	out, err := call(ctx, c, mcpserver.MethodTokenCreate, in)
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	fmt.Fprintf(c.env.Stderr, "Created token %s (%s). Its secret is shown once:\n", out.Token.KeyID, out.Token.Label)
	c.printf("%s\n", out.Secret)
	return nil
}

func tokenList(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("token list", "token list [--all] [--json]")
	all := fs.Bool("all", false, "include revoked and expired tokens")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	out, err := call(ctx, c, mcpserver.MethodTokenList, mcpserver.TokenListArgs{All: *all})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEYID\tKIND\tLABEL\tCAPABILITIES\tCREATED\tLAST USED\tSTATE")
	for _, t := range out.Tokens {
		state := "live"
		switch {
		case t.RevokedAt != nil:
			state = "revoked " + fmtTime(t.RevokedAt)
		case t.ExpiresAt != nil && time.Now().After(*t.ExpiresAt):
			state = "expired"
		case t.ExpiresAt != nil:
			state = "expires " + fmtTime(t.ExpiresAt)
		}
		kind := string(t.Kind)
		if t.KeyID == out.ClientKeyID {
			kind += " *"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.KeyID, kind, orDash(t.Label), grantSummary(t.Grants), fmtTime(&t.CreatedAt), fmtTime(t.LastUsedAt), state)
	}
	return tw.Flush()
}

func grantSummary(gs []store.Grant) string {
	if len(gs) == len(store.AgentCapabilities()) {
		all := true
		for _, g := range gs {
			all = all && len(g.Repositories) == 1 && g.Repositories[0] == store.AllRepositories && g.ExpiresAt == nil
		}
		if all {
			return "agent (all repos)"
		}
	}
	var parts []string
	for _, g := range gs {
		s := string(g.Capability)
		if !(len(g.Repositories) == 1 && g.Repositories[0] == store.AllRepositories) {
			s += "@" + strings.Join(g.Repositories, ",")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func tokenRevoke(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("token revoke", "token revoke KEYID")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if _, err := call(ctx, c, mcpserver.MethodTokenRevoke, mcpserver.KeyIDArg{KeyID: fs.Arg(0)}); err != nil {
		return err
	}
	c.printf("revoked %s\n", fs.Arg(0))
	return nil
}

func tokenRotate(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("token rotate", "token rotate [KEYID]")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		// Read as "no key id", two would rotate the client token.
		fs.Usage()
		return errUsage
	}
	var in mcpserver.OptionalKeyIDArg
	if fs.NArg() == 1 {
		in.KeyID = fs.Arg(0)
	}
	out, err := call(ctx, c, mcpserver.MethodTokenRotate, in)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.env.Stderr, "Rotated: the new token is %s; the old one is revoked.\n", out.Token.KeyID)
	c.printf("%s\n", out.Secret)
	return nil
}

func tokenClient(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("token client", "token client")
	if err := parse(fs, args); err != nil {
		return err
	}
	out, err := call(ctx, c, mcpserver.MethodTokenClient, mcpserver.NoArgs{})
	if err != nil {
		return err
	}
	c.printf("%s\n", out.Secret)
	return nil
}

func runRepo(ctx context.Context, c *cli, args []string) error {
	sub := ""
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "add":
		fs := c.newFlags("repo add", "repo add PATH [--name NAME] [--json]")
		name := fs.String("name", "", "display name (default: the folder's name)")
		asJSON := fs.Bool("json", false, "print JSON")
		if err := parse(fs, reorder(args)); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			fs.Usage()
			return errUsage
		}
		path, err := filepath.Abs(fs.Arg(0))
		if err != nil {
			return err
		}
		if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s is not a folder", path)
		}
		out, err := call(ctx, c, mcpserver.MethodRepositoryRegister, mcpserver.RepositoryRegisterArgs{Path: path, Name: *name})
		if err != nil {
			return err
		}
		if *asJSON {
			return c.printJSON(out)
		}
		if !out.Created {
			fmt.Fprintf(c.env.Stderr, "%s was already registered.\n", path)
		}
		c.printf("%s\n", out.Repository.ID)
		return nil
	case "list":
		fs := c.newFlags("repo list", "repo list [--json]")
		asJSON := fs.Bool("json", false, "print JSON")
		if err := parse(fs, args); err != nil {
			return err
		}
		out, err := call(ctx, c, mcpserver.MethodRepositoryList, mcpserver.NoArgs{})
		if err != nil {
			return err
		}
		if *asJSON {
			return c.printJSON(out)
		}
		tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tPATH\tAGENTS")
		for _, r := range out.Repositories {
			agents := "confined"
			if r.Unconfined != nil {
				agents = "UNCONFINED"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Name, r.Path, agents)
		}
		return tw.Flush()
	case "set":
		return repoSet(ctx, c, args)
	case "rename":
		return repoRename(ctx, c, args)
	case "remove":
		return repoRemove(ctx, c, args)
	case "first-commit":
		return repoFirstCommit(ctx, c, args)
	}
	fmt.Fprint(c.env.Stderr, "Usage: switchboard repo add PATH [--name NAME] | repo list | repo rename ID NAME | repo remove ID | repo first-commit ID | repo set ID [--isolation worktree|none|default] [--base BRANCH|default] [--landing merge|squash|rebase|pull-request|default] [--remote NAME|default] [--setup CMD|default] [--full-auto confirm|withdraw] [--unconfined confirm|withdraw]\n")
	if sub == "-h" || sub == "--help" || sub == "help" {
		return nil
	}
	return errUsage
}

// repoSet changes the settings named on the command line and keeps the
// others.
func repoSet(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("repo set", "repo set ID [--isolation worktree|none|default] [--base BRANCH|default] [--landing merge|squash|rebase|pull-request|default] [--remote NAME|default] [--setup CMD|default] [--full-auto confirm|withdraw] [--unconfined confirm|withdraw] [--json]")
	isolation := fs.String("isolation", "", "worktree (each agent in a git worktree of its own), none (agents work in the folder), or default (worktree in a git repository)")
	base := fs.String("base", "", "the branch agents' worktrees start from and land on; default: the branch checked out in the folder")
	landing := fs.String("landing", "", "how packets land when switchboard land names no mode: merge, squash, rebase, pull-request, or default (merge)")
	remote := fs.String("remote", "", "the git remote pull requests are pushed to; default: origin")
	setup := fs.String("setup", "", "a command line run (by /bin/sh -c) in each new worktree before its agent; default: the worktree's executable .switchboard/setup")
	fullAuto := fs.String("full-auto", "", "confirm (agents here may start in full auto, each in its own worktree) or withdraw (the next full-auto start asks again)")
	unconfined := fs.String("unconfined", "", "confirm (agents here run without Switchboard's sandbox: they can read and write whatever you can; never in full auto) or withdraw (they run confined again)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, reorder(args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	list, err := call(ctx, c, mcpserver.MethodRepositoryList, mcpserver.NoArgs{})
	if err != nil {
		return err
	}
	i := slices.IndexFunc(list.Repositories, func(r store.Repository) bool { return r.ID == fs.Arg(0) })
	if i < 0 {
		return fmt.Errorf("no repository %s (switchboard repo list)", fs.Arg(0))
	}
	settings := list.Repositories[i].RepositorySettings
	set := setFlags(fs)
	// "default" clears a setting.
	orDefault := func(v string) string {
		if v == "default" {
			return ""
		}
		return v
	}
	if set["isolation"] {
		settings.Isolation = store.Isolation(orDefault(*isolation))
	}
	if set["base"] {
		settings.Base = orDefault(*base)
	}
	if set["setup"] {
		settings.Setup = orDefault(*setup)
	}
	if set["landing"] {
		settings.Landing = store.Landing(orDefault(*landing))
	}
	if set["remote"] {
		settings.Remote = orDefault(*remote)
	}
	if set["full-auto"] {
		if err := setFullAuto(ctx, c, fs.Arg(0), *fullAuto); err != nil {
			return err
		}
	}
	if set["unconfined"] {
		if err := setUnconfined(ctx, c, fs.Arg(0), *unconfined); err != nil {
			return err
		}
	}
	out, err := call(ctx, c, mcpserver.MethodRepositoryConfigure, mcpserver.RepositoryConfigureArgs{RepositoryID: fs.Arg(0), RepositorySettings: settings})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	r := out.Repository
	c.printf("%s: isolation %s, base %s, landing %s, remote %s\n", r.ID, cmp.Or(string(r.Isolation), "default"), cmp.Or(r.Base, "the branch checked out in "+r.Path),
		cmp.Or(string(r.Landing), "default (merge)"), cmp.Or(r.Remote, "default (origin)"))
	c.printf("  setup: %s\n", cmp.Or(r.Setup, "the worktree's executable "+workspace.SetupFile+", if any"))
	c.printf("  full auto: %s\n", fullAutoText(r.FullAuto))
	c.printf("  agents: %s\n", confinementText(r.Unconfined))
	return nil
}

// reorder moves flags before positional arguments, so "repo add . --name x"
// works as people type it.
func reorder(args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-"):
			flags = append(flags, a)
			if !strings.Contains(a, "=") && a != "--json" && a != "-json" && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
		default:
			pos = append(pos, a)
		}
	}
	return append(flags, pos...)
}

func runAudit(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("audit", "audit [--verify | --follow] [--limit N] [--method M] [--outcome O] [--keyid K] [--views] [--json]")
	verify := fs.Bool("verify", false, "check the hash chain of the whole log")
	follow := fs.Bool("follow", false, "after the newest records (oldest first), print new ones as they come, until interrupted")
	limit := fs.Int("limit", 20, "how many records, newest first")
	method := fs.String("method", "", "only this method")
	outcome := fs.String("outcome", "", "only this outcome (ok or a code)")
	keyid := fs.String("keyid", "", "only this token")
	views := fs.Bool("views", false, "include the app's own refresh reads (the GUI re-reading what it shows), left out by default")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *verify && *follow {
		fs.Usage()
		return errUsage
	}
	if *verify {
		out, err := call(ctx, c, mcpserver.MethodAuditVerify, mcpserver.NoArgs{})
		if err != nil {
			return err
		}
		if *asJSON {
			// --json has always printed "problem", empty for a good
			// chain, where the method's own JSON leaves it out.
			c.printJSON(struct {
				mcpserver.AuditVerifyResult
				Problem string `json:"problem"`
			}{out, out.Problem})
		}
		if !out.OK {
			return fmt.Errorf("audit chain BROKEN after %d good records: %s", out.Verification.Records, out.Problem)
		}
		if !*asJSON {
			c.printf("audit chain OK: %d records (%d of them app refreshes), last %s\n", out.Verification.Records, out.Verification.Views, store.AuditID(out.Verification.LastSeq))
		}
		return nil
	}
	f := store.AuditFilter{Method: *method, Outcome: *outcome, KeyID: *keyid, Limit: *limit, Views: *views}
	if *follow {
		return c.followAudit(ctx, f, *asJSON)
	}
	out, err := call(ctx, c, mcpserver.MethodAuditQuery, f)
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	// In team mode each record names the instance the call was made on.
	team := slices.ContainsFunc(out.Records, func(r store.AuditRecord) bool { return r.Instance != "" })
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	head := "ID\tTIME\tTRANSPORT\tKEYID\tMETHOD\tREPO\tOUTCOME\tDURATION"
	if team {
		head += "\tINSTANCE"
	}
	fmt.Fprintln(tw, head)
	for _, r := range out.Records {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", r.ID, r.Time.Local().Format("2006-01-02 15:04:05"), r.Transport, orDash(r.KeyID), cell(r.Method, 0), cell(orDash(r.Repository), 0), cell(r.Outcome, 0), time.Duration(r.DurationMicros)*time.Microsecond)
		if team {
			fmt.Fprintf(tw, "\t%s", orDash(r.Instance))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
