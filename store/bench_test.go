package store

import (
	"fmt"
	"testing"
)

// One Update (one fsync'd commit) per record, as the registry does per call.
func BenchmarkAppendAudit(b *testing.B) {
	db := openTestDB(b, Options{})
	i := 0
	for b.Loop() {
		r := sampleRecord(i)
		if err := db.Update(func(tx *Tx) error { return tx.AppendAudit(r) }); err != nil {
			b.Fatal(err)
		}
		i++
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
		if err := db.View(func(tx *Tx) error {
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
				if err := db.View(func(tx *Tx) error {
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
