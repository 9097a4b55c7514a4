package cli

// The work commands (create, list, get, cancel, requeue) and answer.

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

func runWork(ctx context.Context, c *cli, args []string) error {
	return c.dispatch(ctx, args, c.workUsage, map[string]func(context.Context, *cli, []string) error{
		"create": workCreate,
		"list":   workList,
		"get":    workGet,
		"show":   workGet,
		// work_conflicts.go
		"conflicts": workConflicts,
		"rebase":    workRebase,
		"cancel": func(ctx context.Context, c *cli, args []string) error {
			return workMove(ctx, c, "cancel", mcpserver.MethodWorkCancel, args)
		},
		"requeue": func(ctx context.Context, c *cli, args []string) error {
			return workMove(ctx, c, "requeue", mcpserver.MethodWorkRequeue, args)
		},
		"review-by": workReviewBy,
	})
}

func (c *cli) workUsage() {
	fmt.Fprint(c.env.Stderr, `Usage: switchboard work COMMAND
  create --repo ID --title T [--instructions TEXT | --instructions-file F | -]
         [--artifact NAME[:KIND]]... [--scope GLOB]... [--priority N]
         [--max-attempts N] [--review] [--json]
                             queue a packet; its id is printed on its own line
  list [--repo ID] [--state S] [--limit N] [--after PKT] [--json]
                             packets, newest first
  get PKT [--json]           a packet with its history and artifacts, and
                             whether it still applies to its target branch
                             (show is the same)
  conflicts PKT [--send-back] [--json]
                             the hunks where a packet's commits conflict
                             with its target branch; --send-back sends it
                             back to its agent with them, keeping its attempt
  rebase PKT [--json]        replay a done or in-review packet's commits onto
                             its target branch's tip, onto a new branch
                             BRANCH-rebased, which it then lands from; the
                             agent's branch and worktree are not touched
  cancel PKT [--reason R]    cancel a packet that has not ended
  requeue PKT [--reason R]   put a failed, cancelled or leased packet back in
                             the queue, its attempts reset
  review-by PKT SESSION|--none
                             make a session the packet's reviewer (the one
                             session that may judge it), or none
`)
}

// artifactFlags collects repeated --artifact NAME[:KIND] values.
type artifactFlags []store.ExpectedArtifact

func (a *artifactFlags) String() string { return "" }
func (a *artifactFlags) Set(v string) error {
	name, kind, _ := strings.Cut(v, ":")
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("artifact %q has no name", v)
	}
	*a = append(*a, store.ExpectedArtifact{Name: name, Kind: kind})
	return nil
}

// listFlags collects a repeated flag's values.
type listFlags []string

func (l *listFlags) String() string     { return "" }
func (l *listFlags) Set(v string) error { *l = append(*l, v); return nil }

func workCreate(ctx context.Context, c *cli, args []string) error {
	const usage = "work create --repo ID --title T [--instructions TEXT | --instructions-file F | -] [flags]"
	fs := c.newFlags("work create", usage)
	repo := fs.String("repo", "", "the repository `ID` (required)")
	title := fs.String("title", "", "a one-line title (required)")
	instructions := fs.String("instructions", "", "what the agent is to do")
	instructionsFile := fs.String("instructions-file", "", "read the instructions from `FILE` (- for standard input, as is a lone -)")
	priority := fs.Int("priority", 0, "higher is claimed first")
	maxAttempts := fs.Int("max-attempts", 0, "claims before the packet fails (default 3)")
	review := fs.Bool("review", false, "completing sends the packet to review instead of done")
	asJSON := fs.Bool("json", false, "print the packet as JSON")
	var artifacts artifactFlags
	fs.Var(&artifacts, "artifact", "an expected artifact, `NAME[:KIND]` (repeatable)")
	var scope listFlags
	fs.Var(&scope, "scope", "a `GLOB`, relative to the repository, that changed files and path artifacts must match (repeatable; none: changes may touch any file, artifacts inline only)")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	set := setFlags(fs)
	misuse := func(msg string) error {
		fmt.Fprintln(c.env.Stderr, "switchboard work create: "+msg)
		fs.Usage()
		return errUsage
	}
	switch {
	case fs.NArg() > 1 || fs.NArg() == 1 && fs.Arg(0) != "-":
		return misuse("the only argument is -, to read the instructions from standard input")
	case *repo == "" || strings.TrimSpace(*title) == "":
		return misuse("--repo and --title are required")
	case set["max-attempts"] && *maxAttempts < 1:
		// Left to the server, 0 would silently mean the default.
		return misuse("--max-attempts must be at least 1")
	}
	sources := 0
	for _, s := range []bool{set["instructions"], set["instructions-file"], fs.NArg() == 1} {
		if s {
			sources++
		}
	}
	if sources > 1 {
		return misuse("give the instructions one way: --instructions, --instructions-file or -")
	}
	text := *instructions
	switch {
	case fs.NArg() == 1:
		*instructionsFile = "-"
		fallthrough
	case set["instructions-file"]:
		b, err := readInput(*instructionsFile)
		if err != nil {
			return err
		}
		text = b
	}
	in := mcpserver.WorkCreateArgs{
		RepositoryID:      *repo,
		Title:             *title,
		Instructions:      text,
		ExpectedArtifacts: artifacts,
		WriteScope:        scope,
		Priority:          *priority,
		MaxAttempts:       *maxAttempts,
		ReviewRequired:    *review,
	}
	out, err := call(ctx, c, mcpserver.MethodWorkCreate, in)
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	c.printf("%s\n", out.Packet.ID)
	return nil
}

func workList(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("work list", "work list [--repo ID] [--state S] [--limit N] [--after PKT] [--json]")
	repo := fs.String("repo", "", "only this repository")
	state := fs.String("state", "", "only this state: "+strings.Join(stateNames(), ", "))
	limit := fs.Int("limit", 0, "how many packets, newest first (default 100, at most 1000)")
	after := fs.String("after", "", "go on after this packet `ID` (the last of the previous page)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		fs.Usage()
		return errUsage
	case *state != "" && !store.PacketState(*state).Valid():
		fmt.Fprintf(c.env.Stderr, "switchboard work list: no state %q: one of %s\n", *state, strings.Join(stateNames(), ", "))
		return errUsage
	case *limit < 0:
		fmt.Fprintln(c.env.Stderr, "switchboard work list: --limit must not be negative")
		return errUsage
	}
	f := store.PacketFilter{RepositoryID: *repo, State: store.PacketState(*state), Limit: *limit, After: *after}
	out, err := call(ctx, c, mcpserver.MethodWorkList, f)
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tPRI\tATTEMPT\tREPO\tTITLE\tUPDATED")
	for _, p := range out.Packets {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d/%d\t%s\t%s\t%s\n", p.ID, p.State, p.Priority, p.Attempt, p.MaxAttempts,
			p.RepositoryID, cell(p.Title, 60), fmtTime(&p.UpdatedAt))
	}
	return tw.Flush()
}

func stateNames() []string {
	var out []string
	for _, s := range store.PacketStates() {
		out = append(out, string(s))
	}
	return out
}

func workGet(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("work get", "work get PKT [--json]")
	asJSON := fs.Bool("json", false, "print the packet and its artifacts as JSON")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	out, err := call(ctx, c, mcpserver.MethodWorkGet, mcpserver.WorkGetArgs{PacketID: fs.Arg(0)})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	c.printPacket(&out.Packet, out.Artifacts)
	c.printConflicts(out.Packet.ID, out.Conflicts)
	return nil
}

// printPacket writes a packet for a person. Everything an agent wrote (a
// summary, artifact names and paths) goes through cell or block, so it
// cannot move the cursor or recolour the terminal.
func (c *cli) printPacket(p *store.Packet, arts []store.Artifact) {
	field := func(name, value string) { c.printf("%-13s %s\n", name+":", value) }
	field("Packet", p.ID)
	field("Title", cell(p.Title, 0))
	field("Repository", p.RepositoryID)
	field("State", string(p.State))
	field("Priority", strconv.Itoa(p.Priority))
	field("Attempt", fmt.Sprintf("%d of %d", p.Attempt, p.MaxAttempts))
	if p.ReviewRequired {
		field("Review", "required")
	} else {
		field("Review", "not required")
	}
	if p.Reviewer != "" {
		field("Reviewer", "session "+p.Reviewer)
	}
	field("Created", fmtTime(&p.CreatedAt))
	field("Updated", fmtTime(&p.UpdatedAt))
	if l := p.Lease; l != nil {
		field("Lease", fmt.Sprintf("%s, session %s, until %s", l.ID, cell(l.SessionID, 0), fmtTime(&l.ExpiresAt)))
	}
	if len(p.WriteScope) == 0 {
		field("Write scope", "none (changes may touch any file; artifacts inline only)")
	} else {
		field("Write scope", cell(strings.Join(p.WriteScope, " "), 0))
	}
	if p.Summary != "" {
		c.printf("Summary:\n%s", block(p.Summary))
	}
	c.printChanges(p)
	field("Usage", packetUsageText(p.Usage))
	if r := p.Review; r != nil {
		field("Verdict", fmt.Sprintf("%s by %s, %s", r.Verdict, cell(cmp.Or(r.By, "-"), 0), fmtTime(&r.At)))
	}
	if p.ReviewNotes != "" {
		c.printf("Review notes:\n%s", block(p.ReviewNotes))
	}
	if r := p.Review; r != nil && len(r.Comments) > 0 {
		c.printf("Line comments:\n")
		for _, cm := range r.Comments {
			where := cell(cm.Path, 0)
			if cm.Line > 0 {
				where += fmt.Sprintf(":%d (%s)", cm.Line, cm.Side)
			}
			text := strings.TrimSuffix(block(cm.Text), "\n")
			c.printf("  %s\n  %s\n", where, strings.ReplaceAll(text, "\n", "\n  "))
		}
	}
	if p.Instructions != "" {
		c.printf("Instructions:\n%s", block(p.Instructions))
	}
	published := map[string]bool{}
	for _, a := range arts {
		published[a.Name] = true
	}
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	if len(p.ExpectedArtifacts) > 0 {
		fmt.Fprintln(tw, "Expected artifacts:")
		for _, e := range p.ExpectedArtifacts {
			state := "missing"
			if published[e.Name] {
				state = "published"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", cell(e.Name, 0), orDash(cell(e.Kind, 0)), state)
		}
	}
	fmt.Fprintln(tw, "History:")
	for _, h := range p.History {
		from := string(h.From)
		if from == "" {
			from = "(new)"
		}
		who := ""
		if h.SessionID != "" {
			who = "session " + cell(h.SessionID, 0)
		}
		fmt.Fprintf(tw, "  %s\t%s -> %s\t%s\t%s\n", fmtTime(&h.At), from, h.To, cell(h.Reason, 80), who)
	}
	tw.Flush()
	if len(arts) == 0 {
		c.printf("Artifacts:    none\n")
		return
	}
	c.printf("Artifacts:\n")
	tw = tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tKIND\tWHERE\tSIZE\tSHA256\tSESSION\tCREATED")
	for _, a := range arts {
		where := "inline"
		if a.Path != "" {
			where = cell(a.Path, 0)
		}
		sum := a.SHA256
		if len(sum) > 12 {
			sum = sum[:12]
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\t%s\t%s\n", cell(a.Name, 0), orDash(cell(a.Kind, 0)), where, a.Size,
			cell(sum, 0), cell(a.SessionID, 0), fmtTime(&a.CreatedAt))
	}
	tw.Flush()
}

// workMove cancels or requeues a packet: verb is the subcommand, name its
// method.
func workMove(ctx context.Context, c *cli, verb string, name mcpserver.Name[mcpserver.PacketRef, mcpserver.PacketResult], args []string) error {
	fs := c.newFlags("work "+verb, "work "+verb+" PKT [--reason R] [--json]")
	reason := fs.String("reason", "", "why, for the packet's history")
	asJSON := fs.Bool("json", false, "print the packet as JSON")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	out, err := call(ctx, c, name, mcpserver.PacketRef{PacketID: fs.Arg(0), Reason: *reason})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	c.printf("%s %s\n", out.Packet.ID, out.Packet.State)
	return nil
}

func runAnswer(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("answer", "answer [--json] QUESTION_ID TEXT...")
	asJSON := fs.Bool("json", false, "print the answered question as JSON")
	fs.Usage = func() {
		fmt.Fprint(c.env.Stderr, `Usage: switchboard answer [--json] QUESTION_ID TEXT...
       switchboard answer [--json] QUESTION_ID -      (the answer from standard input)
Everything after QUESTION_ID is the answer, joined by spaces: flags go before it.
`)
		fs.PrintDefaults()
	}
	// No interleave: "--force" in an answer is a word of the answer.
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return errUsage
	}
	id, words := fs.Arg(0), fs.Args()[1:]
	text := strings.Join(words, " ")
	if len(words) == 1 && words[0] == "-" {
		b, err := readInput("-")
		if err != nil {
			return err
		}
		text = strings.TrimRight(b, "\r\n")
	}
	out, err := call(ctx, c, mcpserver.MethodSessionAnswer, mcpserver.AnswerArgs{QuestionID: id, Answer: text})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	c.printf("%s answered\n", out.Question.ID)
	return nil
}

// maxInput bounds what readInput reads: far above anything the store takes
// (which refuses the excess with a clear reason), low enough that a wrong
// file cannot fill memory.
const maxInput = 16 << 20

// readInput reads a file, or standard input for "-".
func readInput(name string) (string, error) {
	var r io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	switch {
	case err != nil:
		return "", err
	case len(b) > maxInput:
		return "", fmt.Errorf("%s is over %d MiB", inputName(name), maxInput>>20)
	case !utf8.Valid(b):
		return "", fmt.Errorf("%s is not UTF-8 text", inputName(name))
	}
	return string(b), nil
}

func inputName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

// interleave is reorder for a FlagSet it can ask: a boolean flag takes no
// value, so "--review PKT" keeps PKT a positional argument, and a lone "-"
// (standard input) is a positional argument. The "--" it puts before the
// positional arguments keeps one that starts with a dash from being read as
// a flag.
func interleave(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case a == "-" || !strings.HasPrefix(a, "-"):
			pos = append(pos, a)
		default:
			flags = append(flags, a)
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !hasValue && !isBoolFlag(fs, name) && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
		}
	}
	return append(append(flags, "--"), pos...)
}

func isBoolFlag(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		return true // unknown (or -h): parse refuses it, taking nothing with it
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// setFlags names the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// printChanges writes what a packet changed in git and where it landed, or
// that it has no commit range: an agent started by hand works in the
// person's own folder, and its packet lands nothing.
func (c *cli) printChanges(p *store.Packet) {
	field := func(name, value string) { c.printf("%-13s %s\n", name+":", value) }
	ch := p.Changes
	if ch == nil {
		if p.State == store.PacketDone {
			field("Changes", "no commit range (the agent worked outside a worktree of its own); nothing to land")
		}
		return
	}
	field("Changes", fmt.Sprintf("%d files, +%d -%d, %s..%s on %s (session %s)", ch.Files, ch.Added, ch.Deleted,
		shortHash(ch.From), shortHash(ch.To), cell(ch.Branch, 0), cell(ch.SessionID, 0)))
	l := p.Landed
	switch {
	case l == nil:
		field("Landed", "not yet, onto "+cell(ch.BaseBranch, 0))
	case l.URL != "":
		field("Landed", fmt.Sprintf("%s by %s, %s", cell(l.URL, 0), l.Mode, fmtTime(&l.At)))
	default:
		field("Landed", fmt.Sprintf("%s by %s, %s", shortHash(l.Commit), l.Mode, fmtTime(&l.At)))
	}
}

// shortHash is a commit's first 12 hex digits, as people quote them.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
