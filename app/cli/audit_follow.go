package cli

// audit --follow: the newest records, then each new one as it is written.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

const (
	// followInterval is how often audit --follow asks for new records.
	followInterval = 500 * time.Millisecond
	// followPage is how many records one poll asks for; a full page is
	// followed at once by the next.
	followPage = 1000
)

// followAudit is audit --follow: the newest page of records matching f,
// oldest first so the newest comes last, then every new matching record as
// it is written, until ctx ends (an interrupt), which is success.
//
// It pages by the audit log's sequence: each poll goes on after the newest
// sequence the last one saw (audit.query says which), or after the last
// record of a full page. Each audit.query is itself audited, after its
// read (it is Slow), so its own record comes after what it saw; the
// follower remembers its own records and never prints them, and a filter
// that matches little does not make each poll read the whole log again.
//
// Without a running Switchboard the CLI opens the database itself; it lets
// go of it between polls, so that meanwhile Switchboard can start (it needs
// the database's lock), and the next poll goes over the socket.
func (c *cli) followAudit(ctx context.Context, f store.AuditFilter, asJSON bool) error {
	show := c.auditLinePrinter(asJSON)
	recs, own, upto, err := c.auditQuery(ctx, f)
	if err != nil {
		return err
	}
	slices.Reverse(recs)
	for i := range recs {
		show(&recs[i])
	}
	c.letGoOfDatabase()

	tick := time.NewTicker(followInterval)
	defer tick.Stop()
	f.Limit = followPage
	lost := false
	// mine holds our own records that a later poll can still return.
	mine := map[uint64]bool{own: true}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		for {
			f.AfterSeq = upto
			recs, own, seen, err := c.auditQuery(ctx, f)
			if ctx.Err() != nil {
				return nil
			}
			var denied *errDenied
			if errors.As(err, &denied) {
				return err
			}
			if err != nil {
				// Switchboard stopped or is starting: say so once, look
				// for it again at the next tick.
				if !lost {
					fmt.Fprintf(c.env.Stderr, "switchboard audit: %v; trying again\n", err)
					lost = true
				}
				c.disconnect()
				break
			}
			if lost {
				fmt.Fprintln(c.env.Stderr, "switchboard audit: following again")
				lost = false
			}
			for i := range recs {
				if !mine[recs[i].Seq] {
					show(&recs[i])
				}
			}
			// Our own record is newer than what the query read: a later
			// poll may return it, and must not print it.
			mine[own] = true
			full := len(recs) == f.Limit
			if full {
				// More may wait: go on after the last one printed.
				upto = recs[len(recs)-1].Seq
			} else {
				upto = max(upto, seen)
			}
			maps.DeleteFunc(mine, func(seq uint64, _ bool) bool { return seq <= upto })
			if !full {
				break
			}
		}
		c.letGoOfDatabase()
	}
}

// auditQuery runs audit.query and returns the records, the sequence of the
// query's own audit record, and the log's newest sequence when the query
// read it. A Slow method's record is written after its read: records other
// calls committed in between have sequences between the two, so the next
// poll starts after what was seen, not after the query's own record.
func (c *cli) auditQuery(ctx context.Context, f store.AuditFilter) (recs []store.AuditRecord, own, seen uint64, err error) {
	out, auditID, err := callAudited(ctx, c, mcpserver.MethodAuditQuery, f)
	if err != nil {
		return nil, 0, 0, err
	}
	if own, err = auditSeq(auditID); err != nil {
		return nil, 0, 0, err
	}
	return out.Records, own, out.LastSeq, nil
}

// auditSeq is the sequence in an audit id (store.AuditID).
func auditSeq(id string) (uint64, error) {
	hex, ok := strings.CutPrefix(id, "aud_")
	seq, err := strconv.ParseUint(hex, 16, 64)
	if !ok || err != nil || seq == 0 {
		return 0, fmt.Errorf("audit.query answered with audit id %q, not aud_<hex>", id)
	}
	return seq, nil
}

// letGoOfDatabase closes the database when the CLI opened it itself (no
// Switchboard answered), so the next call connects afresh.
func (c *cli) letGoOfDatabase() {
	if _, local := c.caller.(localCaller); local {
		c.disconnect()
	}
}

// disconnect forgets the connection: the next call looks for a running
// Switchboard again.
func (c *cli) disconnect() {
	c.close()
	c.caller, c.closer = nil, nil
}

// auditLinePrinter returns what prints one record of audit --follow: a JSON
// line, or a table row in fixed columns (a tabwriter aligns only what it
// has seen, and rows here come one poll at a time). It prints the table's
// header first.
func (c *cli) auditLinePrinter(asJSON bool) func(*store.AuditRecord) {
	if asJSON {
		enc := json.NewEncoder(c.env.Stdout)
		return func(r *store.AuditRecord) { enc.Encode(r) }
	}
	const row = "%-20s  %-19s  %-9s  %-16s  %-22s  %-25s  %-14s  %s\n"
	c.printf(row, "ID", "TIME", "TRANSPORT", "KEYID", "METHOD", "REPO", "OUTCOME", "DURATION")
	return func(r *store.AuditRecord) {
		// An MCP client chooses the method name of a call refused for
		// naming no tool: it is printed made safe.
		c.printf(row, r.ID, r.Time.Local().Format("2006-01-02 15:04:05"), cell(r.Transport, 0), orDash(cell(r.KeyID, 0)),
			cell(r.Method, 60), orDash(cell(r.Repository, 0)), cell(r.Outcome, 0), time.Duration(r.DurationMicros)*time.Microsecond)
	}
}
