package store

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// viewRecord is the i-th record of a log that is mostly views, as with a
// GUI open: two records in three are refresh reads, one of those in five
// failed (and so stays shown), the rest are sampleRecord's mix.
func viewRecord(i int) *AuditRecord {
	r := sampleRecord(i)
	if i%3 != 0 {
		r.Transport = ViewTransport
		r.Method = "session.list"
		r.Outcome = "ok"
		if i%5 == 0 {
			r.Outcome = "not_found"
		}
	}
	return r
}

func appendViews(t testing.TB, db *DB, n int) []AuditRecord {
	t.Helper()
	out := make([]AuditRecord, 0, n)
	mustUpdate(t, db, func(tx *Tx) error {
		for i := range n {
			r := viewRecord(i)
			if err := tx.AppendAudit(r); err != nil {
				return err
			}
			out = append(out, *r)
		}
		return nil
	})
	return out
}

// want is what QueryAudit must answer, worked out over every record without
// the index: the oracle the index is checked against.
func want(all []AuditRecord, f AuditFilter) []uint64 {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	views := f.Views || f.Transport == ViewTransport
	var out []uint64
	pick := func(r *AuditRecord) bool {
		if (!views && r.IsView()) || !f.match(r) {
			return true
		}
		out = append(out, r.Seq)
		return len(out) < limit
	}
	if f.AfterSeq > 0 {
		for i := range all {
			r := &all[i]
			if r.Seq <= f.AfterSeq || (f.BeforeSeq > 0 && r.Seq >= f.BeforeSeq) {
				continue
			}
			if !pick(r) {
				break
			}
		}
		return out
	}
	for i := len(all) - 1; i >= 0; i-- {
		r := &all[i]
		if f.BeforeSeq > 0 && r.Seq >= f.BeforeSeq {
			continue
		}
		if !pick(r) {
			break
		}
	}
	return out
}

func TestQueryAuditViews(t *testing.T) {
	db := openTestDB(t, Options{})
	all := appendViews(t, db, 90)
	shown := 0
	for i := range all {
		if !all[i].IsView() {
			shown++
		}
	}
	if shown == 0 || shown == len(all) {
		t.Fatalf("setup: %d of %d shown", shown, len(all))
	}
	for _, tc := range []struct {
		name string
		f    AuditFilter
	}{
		{"default", AuditFilter{Limit: 1000}},
		{"with views", AuditFilter{Limit: 1000, Views: true}},
		{"newest 7", AuditFilter{Limit: 7}},
		{"newest 7 with views", AuditFilter{Limit: 7, Views: true}},
		{"before a view", AuditFilter{BeforeSeq: 50, Limit: 5}}, // seq 50 is i=49, a view
		{"before a shown record", AuditFilter{BeforeSeq: 49, Limit: 5}},
		{"after a view", AuditFilter{AfterSeq: 41, Limit: 5}},
		{"after with views", AuditFilter{AfterSeq: 41, Limit: 5, Views: true}},
		{"window", AuditFilter{AfterSeq: 10, BeforeSeq: 30, Limit: 1000}},
		{"window of views only", AuditFilter{AfterSeq: 2, BeforeSeq: 4}},
		{"failed views stay shown", AuditFilter{Outcome: "not_found", Limit: 1000}},
		{"the view transport asks for views", AuditFilter{Transport: ViewTransport, Limit: 1000}},
		{"method of views, default", AuditFilter{Method: "session.list", Limit: 1000}},
		{"method of views, with views", AuditFilter{Method: "session.list", Views: true, Limit: 1000}},
		{"other filters", AuditFilter{Transport: "gui", Limit: 1000}},
		{"past the end", AuditFilter{AfterSeq: 90}},
		{"before the start", AuditFilter{BeforeSeq: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := seqs(query(t, db, tc.f))
			if w := want(all, tc.f); !slices.Equal(got, w) {
				t.Errorf("QueryAudit(%+v) = %v, want %v", tc.f, got, w)
			}
			for _, r := range query(t, db, tc.f) {
				if r.IsView() && !tc.f.Views && tc.f.Transport != ViewTransport {
					t.Errorf("record %d is a view", r.Seq)
				}
			}
		})
	}

	// Paging both ways across the gaps the views leave, a few at a time,
	// finds every shown record once, in order.
	for _, views := range []bool{false, true} {
		var back []uint64
		for before := uint64(0); ; {
			page := query(t, db, AuditFilter{BeforeSeq: before, Limit: 4, Views: views})
			if len(page) == 0 {
				break
			}
			back = append(back, seqs(page)...)
			before = page[len(page)-1].Seq
		}
		// Forwards from the oldest (AfterSeq 0 means unset).
		fwd := []uint64{back[len(back)-1]}
		for after := fwd[0]; ; {
			page := query(t, db, AuditFilter{AfterSeq: after, Limit: 4, Views: views})
			if len(page) == 0 {
				break
			}
			fwd = append(fwd, seqs(page)...)
			after = page[len(page)-1].Seq
		}
		all := want(all, AuditFilter{Limit: 1000, Views: views})
		if !slices.Equal(back, all) {
			t.Errorf("views %v: paging backwards gave %v, want %v", views, back, all)
		}
		slices.Reverse(fwd)
		if !slices.Equal(fwd, all) {
			t.Errorf("views %v: paging forwards gave %v reversed, want %v", views, fwd, all)
		}
	}

	v, err := verify(db)
	if err != nil || v.Records != len(all) || v.Views != len(all)-shown {
		t.Errorf("VerifyAudit = %+v, %v; want %d records, %d views", v, err, len(all), len(all)-shown)
	}
}

// The index of shown records is checked against the records themselves:
// an edit that would hide a record from the default view, or show a view,
// breaks the chain check.
func TestVerifyAuditChecksTheShownIndex(t *testing.T) {
	const n = 12
	// Records 1, 4, 7, 10 are shown (i%3 == 0), and so are 6 and 11 (i 5
	// and 10: failed views); the other six are views.
	for _, tc := range []struct {
		name string
		edit func(b *bolt.Bucket)
	}{
		{"a shown record taken out of the index", func(b *bolt.Bucket) { b.Delete(u64(7)) }},
		{"a failed view taken out of the index", func(b *bolt.Bucket) { b.Delete(u64(6)) }},
		{"the first record taken out", func(b *bolt.Bucket) { b.Delete(u64(1)) }},
		{"the last shown record taken out", func(b *bolt.Bucket) { b.Delete(u64(11)) }},
		{"a view indexed as shown", func(b *bolt.Bucket) { b.Put(u64(5), nil) }},
		{"an index entry past the end", func(b *bolt.Bucket) { b.Put(u64(n+1), nil) }},
		{"an index entry that is no sequence", func(b *bolt.Bucket) { b.Put([]byte("x"), nil) }},
		{"the index emptied", func(b *bolt.Bucket) {
			for _, seq := range []uint64{1, 4, 6, 7, 10, 11} {
				b.Delete(u64(seq))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDB(t, Options{})
			appendViews(t, db, n)
			if v, err := verify(db); err != nil || v.Records != n || v.Views != 6 {
				t.Fatalf("before tampering: %+v, %v", v, err)
			}
			tamper(t, db, func(t *testing.T, tx *Tx, _ map[uint64]AuditRecord) {
				tc.edit(tx.tx.Bucket(bucketAuditShown))
			})
			if v, err := verify(db); !errors.Is(err, ErrAuditChain) {
				t.Fatalf("VerifyAudit after tampering = %+v, %v; want ErrAuditChain", v, err)
			}
		})
	}
}

// An index entry whose record is gone makes the default query fail rather
// than skip it.
func TestQueryAuditIndexNamesMissingRecord(t *testing.T) {
	db := openTestDB(t, Options{})
	appendViews(t, db, 12)
	tamper(t, db, func(t *testing.T, tx *Tx, _ map[uint64]AuditRecord) {
		tx.tx.Bucket(bucketAuditShown).Put(u64(40), nil)
	})
	err := db.View(func(tx *Tx) error {
		_, err := tx.QueryAudit(AuditFilter{})
		return err
	})
	if !errors.Is(err, ErrAuditChain) {
		t.Fatalf("QueryAudit over a bad index: %v, want ErrAuditChain", err)
	}
}

// A database of schema 5 has a log and no index: opening it indexes every
// record, the chain still verifies, and the log goes on from where it was.
func TestMigrateAuditShown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := applyMigrations(b, migrations[:5]); err != nil {
		t.Fatal(err)
	}
	// Written as schema 5's AppendAudit did: the chained record under its
	// seq and nothing else.
	const n = 30
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	err = b.Update(func(tx *bolt.Tx) error {
		log := tx.Bucket(bucketAudit)
		prev := ""
		for i := range n {
			r := sampleRecord(i)
			seq, _ := log.NextSequence()
			r.Seq, r.ID, r.Time, r.PrevHash = seq, AuditID(seq), at.Add(time.Duration(i)*time.Second), prev
			r.Hash = chainHash(r)
			prev = r.Hash
			v, _ := json.Marshal(r)
			if err := log.Put(u64(seq), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if hasBucket(t, b, string(bucketAuditShown)) {
		t.Fatal("schema 5 has the index already")
	}
	b.Close()

	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := verify(db); err != nil || v.Records != n || v.Views != 0 {
		t.Fatalf("after the migration: VerifyAudit = %+v, %v", v, err)
	}
	if got := seqs(query(t, db, AuditFilter{Limit: 1000})); !slices.Equal(got, seqRange(n, 1)) {
		t.Errorf("default query after the migration = %v", got)
	}
	appendViews(t, db, 6) // i 0..5: 0, 3 and 5 (a failed view) shown
	if got := seqs(query(t, db, AuditFilter{Limit: 3})); !slices.Equal(got, []uint64{n + 6, n + 4, n + 1}) {
		t.Errorf("default query after new views = %v", got)
	}
	if v, err := verify(db); err != nil || v.Records != n+6 || v.Views != 3 {
		t.Errorf("VerifyAudit = %+v, %v", v, err)
	}
}
