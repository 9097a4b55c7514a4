package main

// The audit rows: a log of a million real, hash-chained audit records
// (appended through store.Tx.AppendAudit in transactions of 50,000, like
// app's BenchmarkAuditMillion builds its log, with the same mix: one record
// in ten a work.list, one in a hundred a capability_missing denial), then
// over MCP (tools/call audit_query, the client token over loopback HTTP):
// the first page, two filtered pages, and an export of the newest records
// (100,000 by default: over MCP the whole million would take a minute here)
// page by page into a JSONL file. Beside each, the same read straight from the
// store in this process (QueryAudit in a read transaction), the floor under
// MCP's transport, authorization and audit record.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// auditFillBatch is how many records one fill transaction appends.
const auditFillBatch = 50_000

// auditQueryTime is how long each query is repeated, after a warm-up.
const auditQueryTime = time.Second

// auditExportPage is the page size of the export: audit.query's maximum.
const auditExportPage = 1000

// auditResult is what the audit rows measured.
type auditResult struct {
	records int           // records filled
	fill    time.Duration // filling them
	// exported is how many of the newest records the export reads.
	exported int
	queries  []auditQueryResult
	// export is the whole log read over MCP into a JSONL file; store the
	// same read straight from the store.
	export, exportStore exportResult
}

// auditQueryResult is one query, repeated, over MCP and on the store.
type auditQueryResult struct {
	name         string
	filter       store.AuditFilter
	matched      int // records on the page
	mcp, onStore []time.Duration
}

type exportResult struct {
	records int
	elapsed time.Duration
}

func (e exportResult) rate() float64 { return float64(e.records) / e.elapsed.Seconds() }

// syntheticAuditRecord is the i-th record of the big log, as app's
// syntheticRecord makes it.
func syntheticAuditRecord(i int) store.AuditRecord {
	r := store.AuditRecord{Transport: "mcp", KeyID: fmt.Sprintf("k_%04d", i%7), Method: "status", Outcome: "ok", DurationMicros: int64(i % 900)}
	if i%10 == 3 {
		r.Method = "work.list"
	}
	if i%100 == 42 {
		r.Outcome = "capability_missing"
	}
	return r
}

// fillAudit appends n chained records to the store at path, one second
// apart ending now.
func fillAudit(path string, n int) (time.Duration, error) {
	db, err := store.Open(path, store.Options{})
	if err != nil {
		return 0, err
	}
	begin := time.Now()
	first := begin.Add(-time.Duration(n) * time.Second)
	for done := 0; done < n; done += auditFillBatch {
		err := db.Update(context.Background(), func(tx *store.Tx) error {
			for i := done; i < n && i < done+auditFillBatch; i++ {
				r := syntheticAuditRecord(i)
				r.Time = first.Add(time.Duration(i) * time.Second)
				if err := tx.AppendAudit(&r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			db.Close()
			return 0, fmt.Errorf("fill the audit log: %w", err)
		}
	}
	took := time.Since(begin)
	return took, db.Close()
}

// measureAudit builds the log in dir and runs the queries and the export.
func measureAudit(ctx context.Context, dir string, log *slog.Logger, n, exported int) (auditResult, error) {
	path := filepath.Join(dir, "audit.db")
	fmt.Fprintf(os.Stderr, "mcpbench: audit: appending %d records…\n", n)
	fill, err := fillAudit(path, n)
	if err != nil {
		return auditResult{}, err
	}
	res := auditResult{records: n, fill: fill, exported: exported}
	t, err := startSwitchboard(path, log)
	if err != nil {
		return auditResult{}, err
	}
	defer t.close()
	client := newClient(1)
	defer client.CloseIdleConnections()
	c := &wfClient{client: client, t: t}

	fmt.Fprintf(os.Stderr, "mcpbench: audit: queries…\n")
	for _, q := range []struct {
		name string
		f    store.AuditFilter
	}{
		{"first page", store.AuditFilter{}},
		{"method=work.list", store.AuditFilter{Method: "work.list"}},
		{"outcome=capability_missing", store.AuditFilter{Outcome: "capability_missing"}},
	} {
		r := auditQueryResult{name: q.name, filter: q.f}
		overMCP := func() error {
			var page mcpserver.AuditRecords
			if err := c.call(ctx, "audit_query", q.f, &page); err != nil {
				return err
			}
			r.matched = len(page.Records)
			return nil
		}
		onStore := func() error {
			return t.db.View(ctx, func(tx *store.Tx) error {
				_, err := tx.QueryAudit(q.f)
				return err
			})
		}
		if r.mcp, err = repeat(overMCP); err != nil {
			return auditResult{}, fmt.Errorf("audit_query %s: %w", q.name, err)
		}
		if r.onStore, err = repeat(onStore); err != nil {
			return auditResult{}, fmt.Errorf("QueryAudit %s: %w", q.name, err)
		}
		res.queries = append(res.queries, r)
	}

	fmt.Fprintf(os.Stderr, "mcpbench: audit: export over MCP and from the store…\n")
	if res.export, err = exportAudit(filepath.Join(dir, "export-mcp.jsonl"), exported, func(f store.AuditFilter) ([]store.AuditRecord, error) {
		var page mcpserver.AuditRecords
		err := c.call(ctx, "audit_query", f, &page)
		return page.Records, err
	}); err != nil {
		return auditResult{}, fmt.Errorf("export over MCP: %w", err)
	}
	if res.exportStore, err = exportAudit(filepath.Join(dir, "export-store.jsonl"), exported, func(f store.AuditFilter) (recs []store.AuditRecord, err error) {
		err = t.db.View(ctx, func(tx *store.Tx) error {
			recs, err = tx.QueryAudit(f)
			return err
		})
		return recs, err
	}); err != nil {
		return auditResult{}, fmt.Errorf("export from the store: %w", err)
	}
	return res, nil
}

// repeat runs fn three times to warm up, then for auditQueryTime (at least
// ten times), and returns the latencies.
func repeat(fn func() error) ([]time.Duration, error) {
	for range 3 {
		if err := fn(); err != nil {
			return nil, err
		}
	}
	var lat []time.Duration
	for end := time.Now().Add(auditQueryTime); len(lat) < 10 || time.Now().Before(end); {
		t0 := time.Now()
		if err := fn(); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, nil
}

// exportAudit reads the log newest first, in pages of auditExportPage
// through page, until it has at least want records (or the log ends), and
// writes them to path as JSONL, as the Audit window's export does.
func exportAudit(path string, want int, page func(store.AuditFilter) ([]store.AuditRecord, error)) (exportResult, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return exportResult{}, err
	}
	defer os.Remove(path)
	begin := time.Now()
	n, err := writePages(f, want, page)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return exportResult{records: n, elapsed: time.Since(begin)}, err
}

func writePages(w io.Writer, want int, page func(store.AuditFilter) ([]store.AuditRecord, error)) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	n := 0
	var before uint64 // 0: from the newest
	for n < want {
		recs, err := page(store.AuditFilter{BeforeSeq: before, Limit: auditExportPage})
		if err != nil {
			return n, err
		}
		if len(recs) == 0 {
			break
		}
		for i := range recs {
			if err := enc.Encode(&recs[i]); err != nil {
				return n, err
			}
		}
		n += len(recs)
		before = recs[len(recs)-1].Seq
		if before <= 1 {
			break
		}
	}
	return n, bw.Flush()
}
