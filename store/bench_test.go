package store

import (
	"context"
	"fmt"
	"testing"
)

// One Update (one fsync'd commit) per record, as the registry does per call.
func BenchmarkAppendAudit(b *testing.B) {
	db := openTestDB(b, Options{})
	i := 0
	for b.Loop() {
		r := sampleRecord(i)
		if err := db.Update(context.Background(), func(tx *Tx) error { return tx.AppendAudit(r) }); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// Many records per Update, as the registry's group commit writes them when
// calls arrive during a commit. This measures the per-record work (finding
// the previous hash, hashing, encoding), so fsync is off: BenchmarkAppendAudit
// measures it, and here it would only be noise. One op is one Update;
// ns/record divides it out.
func BenchmarkAppendAuditGrouped(b *testing.B) {
	const perUpdate = 64
	db := openTestDB(b, Options{})
	skipSync(db)
	i := 0
	for b.Loop() {
		if err := db.Update(context.Background(), func(tx *Tx) error {
			for range perUpdate {
				if err := tx.AppendAudit(sampleRecord(i)); err != nil {
					return err
				}
				i++
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/record")
}

// benchTokens creates n tokens with the given grants and returns the raw
// form of the last one.
func benchTokens(b *testing.B, db *DB, n int, grants []Grant) (Token, string) {
	b.Helper()
	var tok Token
	var raw string
	mustUpdate(b, db, func(tx *Tx) error {
		for i := range n {
			var err error
			tok, raw, err = tx.CreateToken(TokenSpec{Label: fmt.Sprint("t", i), Grants: grants})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return tok, raw
}

// clientGrants is what the client token holds: every agent capability on
// every repository.
func clientGrants() []Grant {
	var gs []Grant
	for _, c := range AgentCapabilities() {
		gs = append(gs, Grant{Capability: c, Repositories: []string{AllRepositories}})
	}
	return gs
}

// TokenByKeyID in a read-only transaction, as the registry re-checks the
// caller's token on every call; the token is shaped like the client token.
func BenchmarkTokenByKeyID(b *testing.B) {
	db := openTestDB(b, Options{})
	tok, _ := benchTokens(b, db, 100, clientGrants())
	for b.Loop() {
		if err := db.View(context.Background(), func(tx *Tx) error {
			_, err := tx.TokenByKeyID(tok.KeyID)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// Tokens lists every token, as Counts does for status.
func BenchmarkTokens(b *testing.B) {
	db := openTestDB(b, Options{})
	benchTokens(b, db, 100, clientGrants())
	for b.Loop() {
		if err := db.View(context.Background(), func(tx *Tx) error {
			toks, err := tx.Tokens()
			if err == nil && len(toks) != 100 {
				err = fmt.Errorf("%d tokens", len(toks))
			}
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// Authenticate in a read-only transaction, among a realistic number of
// tokens.
func BenchmarkAuthenticate(b *testing.B) {
	db := openTestDB(b, Options{})
	var raw string
	mustUpdate(b, db, func(tx *Tx) error {
		for i := range 100 {
			_, r, err := tx.CreateToken(TokenSpec{Label: fmt.Sprint("t", i), Grants: []Grant{{Capability: CapWorkClaim, Repositories: []string{"*"}}}})
			if err != nil {
				return err
			}
			raw = r
		}
		return nil
	})
	for b.Loop() {
		if err := db.View(context.Background(), func(tx *Tx) error {
			_, err := tx.Authenticate(raw)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// Newest-first page of 100 from a 20 000-record log, and a filtered one.
func BenchmarkQueryAudit(b *testing.B) {
	db := openTestDB(b, Options{})
	mustUpdate(b, db, func(tx *Tx) error {
		for i := range 20000 {
			if err := tx.AppendAudit(sampleRecord(i)); err != nil {
				return err
			}
		}
		return nil
	})
	for _, f := range []AuditFilter{{Limit: 100}, {Limit: 100, Outcome: "lease_lost", BeforeSeq: 10000}} {
		b.Run(fmt.Sprintf("outcome=%q", f.Outcome), func(b *testing.B) {
			for b.Loop() {
				if err := db.View(context.Background(), func(tx *Tx) error {
					rs, err := tx.QueryAudit(f)
					if err == nil && len(rs) != 100 {
						err = fmt.Errorf("%d records", len(rs))
					}
					return err
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A group commit of heartbeats from 8 sessions, as the registry writes it
// when 16 agents report at once: per session a report, two trace events
// (the call and the report) and an audit record, in one fsync'd Update.
// pages/commit is what the commit writes; every page is a pwrite and
// part of the fsync, so it is the commit's cost on disk.
func BenchmarkHeartbeatBatch(b *testing.B) {
	const sessions = 8
	db := openTestDB(b, Options{})
	var ids []string
	mustUpdate(b, db, func(tx *Tx) error {
		for range sessions {
			s, err := tx.CreateSession(SessionSpec{Kind: SessionExternal})
			if err != nil {
				return err
			}
			ids = append(ids, s.ID)
		}
		return nil
	})
	// Grow the logs first: a fresh bucket's pages are not the steady state.
	heartbeats := func() error {
		return db.Update(context.Background(), func(tx *Tx) error {
			for i, id := range ids {
				if _, _, err := tx.AddReport(id, ReportHeartbeat, "working", ""); err != nil {
					return err
				}
				for _, typ := range []TraceType{TraceToolCall, TraceReport} {
					if _, err := tx.AppendTrace(id, TraceEvent{Type: typ, Method: "session.report"}); err != nil {
						return err
					}
				}
				if err := tx.AppendAudit(sampleRecord(i)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	for range 500 {
		if err := heartbeats(); err != nil {
			b.Fatal(err)
		}
	}
	before := db.bolt.Stats().TxStats
	for b.Loop() {
		if err := heartbeats(); err != nil {
			b.Fatal(err)
		}
	}
	after := db.bolt.Stats().TxStats
	b.ReportMetric(float64(after.GetWrite()-before.GetWrite())/float64(b.N), "pages/commit")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*sessions), "ns/heartbeat")
}
