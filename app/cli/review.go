package cli

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

const reviewUsage = "review PKT --approve|--request-changes|--reject [--note TEXT]... [--comment PATH:LINE[:old|new]=TEXT]... [--json]"

// runReview gives a verdict on a packet in review, or on a done one whose
// changes have not landed: approve, request changes (back to the queue,
// for the session that made them, with the notes and line comments), or
// reject. It prints the packet and its new state; a refusal exits non-zero
// with its code.
func runReview(ctx context.Context, c *cli, args []string) error {
	fs := c.newFlags("review", reviewUsage)
	approve := fs.Bool("approve", false, "approve: a packet in review is done (land it with switchboard land)")
	requestChanges := fs.Bool("request-changes", false, "send it back to the queue with the notes and comments")
	reject := fs.Bool("reject", false, "reject it: it fails, its worktree is kept for you to discard")
	var notes listFlags
	fs.Var(&notes, "note", "the review's notes (repeat for more lines)")
	var comments commentFlags
	fs.Var(&comments, "comment", "a line comment: PATH:LINE[:old|new]=TEXT, PATH as the diff names it, new (the packet's side) by default; LINE 0 is the whole file")
	asJSON := fs.Bool("json", false, "print the packet as JSON")
	if err := parse(fs, interleave(fs, args)); err != nil {
		return err
	}
	var verdict store.Verdict
	n := 0
	for v, set := range map[store.Verdict]bool{store.VerdictApprove: *approve, store.VerdictRequestChanges: *requestChanges, store.VerdictReject: *reject} {
		if set {
			verdict = v
			n++
		}
	}
	if fs.NArg() != 1 || n != 1 {
		if n != 1 {
			fmt.Fprintln(c.env.Stderr, "switchboard review: give one of --approve, --request-changes, --reject")
		}
		fs.Usage()
		return errUsage
	}
	out, err := call(ctx, c, mcpserver.MethodReviewVerdict, mcpserver.VerdictArgs{
		PacketID: fs.Arg(0), Verdict: verdict, Notes: strings.Join(notes, "\n"), Comments: comments,
	})
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(out)
	}
	p := out.Packet
	c.printf("%s %s\n", p.ID, p.State)
	switch {
	case verdict == store.VerdictRequestChanges && p.HeldFor() != "":
		fmt.Fprintf(c.env.Stderr, "Sent back with %d line comments, for session %s while it runs.\n", len(comments), p.HeldFor())
	case verdict == store.VerdictRequestChanges:
		fmt.Fprintf(c.env.Stderr, "Sent back to the queue with %d line comments.\n", len(comments))
	case verdict == store.VerdictApprove && p.Changes != nil && p.Landed == nil:
		fmt.Fprintf(c.env.Stderr, "Approved; land it with: switchboard land %s\n", p.ID)
	}
	return nil
}

// commentFlags collects repeated --comment PATH:LINE[:SIDE]=TEXT values.
type commentFlags []store.ReviewComment

// commentHead is what comes before a comment's "=": the path, the line and
// perhaps the side. The path may hold ":" and "=", and the text anything:
// the comment's text starts after the first "=" that ends a head.
var commentHead = regexp.MustCompile(`^(.+):([0-9]+)(?::(old|new))?$`)

func (cf *commentFlags) String() string { return "" }
func (cf *commentFlags) Set(v string) error {
	for i := 0; i < len(v); i++ {
		if v[i] != '=' {
			continue
		}
		m := commentHead.FindStringSubmatch(v[:i])
		if m == nil {
			continue
		}
		line, err := strconv.Atoi(m[2])
		if err != nil {
			return fmt.Errorf("comment %q: line %s: %w", v, m[2], err)
		}
		text := v[i+1:]
		if strings.TrimSpace(text) == "" {
			return fmt.Errorf("comment %q has no text", v)
		}
		*cf = append(*cf, store.ReviewComment{Path: m[1], Line: line, Side: m[3], Text: text})
		return nil
	}
	return fmt.Errorf("comment %q: want PATH:LINE[:old|new]=TEXT", v)
}
