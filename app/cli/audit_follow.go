package cli

// audit --follow: the newest records, then each new one as it is written.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
// It pages by the audit log's sequence. Each audit.query is itself audited,
// in the transaction that ran the query, so the query's own record (the
// audit_id of the answer) is newer than everything the query saw and older
// than everything it did not: it is exactly where the next poll starts. The
// follower's own queries are thus never printed, and a filter that matches
// little does not make each poll read the whole log again.
//
// Without a running Switchboard the CLI opens the database itself; it lets
// go of it between polls, so that meanwhile Switchboard can start (it needs
// the database's lock), and the next poll goes over the socket.
func (c *cli) followAudit(ctx context.Context, f store.AuditFilter, asJSON bool) error {
	show := c.auditLinePrinter(asJSON)
	recs, upto, err := c.auditQuery(ctx, f)
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
	// mine holds our own records that a later poll of this round can
	// still return: those of polls that came back with a full page.
	mine := map[uint64]bool{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		for {
			f.AfterSeq = upto
			recs, own, err := c.auditQuery(ctx, f)
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
			if len(recs) < f.Limit {
				upto = own
				clear(mine)
				break
			}
			// A full page: more may wait before our own record, which the
			// next poll will return.
			upto = recs[len(recs)-1].Seq
			mine[own] = true
		}
		c.letGoOfDatabase()
	}
}

// auditQuery runs audit.query and returns the records and the sequence of
// the query's own audit record.
func (c *cli) auditQuery(ctx context.Context, f store.AuditFilter) ([]store.AuditRecord, uint64, error) {
	out, auditID, err := callAudited(ctx, c, mcpserver.MethodAuditQuery, f)
	if err != nil {
		return nil, 0, err
	}
	own, err := auditSeq(auditID)
	if err != nil {
		return nil, 0, err
	}
	return out.Records, own, nil
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
