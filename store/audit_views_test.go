package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// rankOf is seq's rank among the shown records of all, 0 for a view.
func rankOf(all []AuditRecord, seq uint64) uint64 {
	var rank uint64
	for i := range all {
		if !all[i].IsView() {
			rank++
		}
		if all[i].Seq == seq {
			if all[i].IsView() {
				return 0
			}
			return rank
		}
	}
	return 0
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
				views := tc.f.Views || tc.f.Transport == ViewTransport
				if r.IsView() && !views {
					t.Errorf("record %d is a view", r.Seq)
				}
				if w := rankOf(all, r.Seq); !views && r.Rank != w {
					t.Errorf("record %d has rank %d, want %d", r.Seq, r.Rank, w)
				}
			}
		})
	}

	// The shown records paged by rank: a page of Limit below a rank is the
	// records of the ranks just below it, whatever gaps their seqs have.
	shownSeqs := want(all, AuditFilter{Limit: 1000})
	slices.Reverse(shownSeqs) // shownSeqs[i] has rank i+1
	for _, tc := range []struct {
		before uint64
		limit  int
	}{{1, 5}, {2, 5}, {7, 3}, {uint64(shown), 4}, {uint64(shown) + 1, 4}, {uint64(shown) + 50, 2}, {11, 1000}} {
		page := query(t, db, AuditFilter{BeforeRank: tc.before, Limit: tc.limit})
		var wantSeqs []uint64
		for rank := min(tc.before-1, uint64(shown)); rank >= 1 && len(wantSeqs) < tc.limit; rank-- {
			wantSeqs = append(wantSeqs, shownSeqs[rank-1])
		}
		if got := seqs(page); !slices.Equal(got, wantSeqs) {
			t.Errorf("BeforeRank %d, Limit %d: %v, want %v", tc.before, tc.limit, got, wantSeqs)
		}
		for i, r := range page {
			if want := min(tc.before-1, uint64(shown)) - uint64(i); r.Rank != want {
				t.Errorf("BeforeRank %d: record %d has rank %d, want %d", tc.before, r.Seq, r.Rank, want)
			}
		}
	}
	for _, f := range []AuditFilter{{BeforeRank: 3, Views: true}, {BeforeRank: 3, BeforeSeq: 9}, {BeforeRank: 3, AfterSeq: 1}, {BeforeRank: 3, Transport: ViewTransport}} {
		err := db.View(context.Background(), func(tx *Tx) error { _, err := tx.QueryAudit(f); return err })
		if code := CodeOf(err); code != CodeInvalidArgument {
			t.Errorf("QueryAudit(%+v) = %v, want %s", f, err, CodeInvalidArgument)
		}
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
	// and 10: failed views): ranks 1 to 6 name seqs 1, 4, 6, 7, 10, 11.
	// The other six are views.
	for _, tc := range []struct {
		name string
		edit func(b kvBucket)
	}{
		{"a shown record taken out of the index", func(b kvBucket) { b.Delete(u64(4)) }},
		{"a failed view taken out of the index", func(b kvBucket) { b.Delete(u64(3)) }},
		{"the first record taken out", func(b kvBucket) { b.Delete(u64(1)) }},
		{"the last shown record taken out", func(b kvBucket) { b.Delete(u64(6)) }},
		{"a view indexed as shown", func(b kvBucket) { b.Put(u64(3), u64(5)) }},
		{"a view indexed besides", func(b kvBucket) { b.Put(u64(7), u64(12)); b.SetSequence(7) }},
		{"two ranks swapped", func(b kvBucket) { b.Put(u64(2), u64(6)); b.Put(u64(3), u64(4)) }},
		{"a rank skipped", func(b kvBucket) { b.Delete(u64(6)); b.Put(u64(7), u64(11)); b.SetSequence(7) }},
		{"a record indexed twice", func(b kvBucket) { b.Put(u64(7), u64(11)); b.SetSequence(7) }},
		{"an index entry past the end", func(b kvBucket) { b.Put(u64(7), u64(n+1)); b.SetSequence(7) }},
		{"the next rank reset", func(b kvBucket) { b.SetSequence(2) }},
		{"an index entry that is no rank", func(b kvBucket) { b.Put([]byte("x"), u64(1)) }},
		{"an index entry that names no seq", func(b kvBucket) { b.Put(u64(2), []byte("x")) }},
		{"the index emptied", func(b kvBucket) {
			for rank := range uint64(6) {
				b.Delete(u64(rank + 1))
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
		tx.tx.Bucket(bucketAuditShown).Put(u64(3), u64(40))
	})
	err := db.View(context.Background(), func(tx *Tx) error {
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

// A log written with a GUI open, 300,000 records of which two in three are
// the app's refreshes: a page of the default view (through the index of
// shown records) beside the same page with the views (the whole log), and
// the ways the default view is paged: by rank anywhere, by seq (a binary
// search over the ranks), a filter that matches nothing (the index walked
// to its end, reading the 100,000 shown records, beside all 300,000).
//
//	go test -run '^$' -bench QueryAuditViews ./store/
func BenchmarkQueryAuditViews(b *testing.B) {
	db := openTestDB(b, Options{})
	const n = 300_000
	for done := 0; done < n; done += 50_000 {
		mustUpdate(b, db, func(tx *Tx) error {
			for i := done; i < done+50_000; i++ {
				if err := tx.AppendAudit(viewRecord(i)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	for _, tc := range []struct {
		name string
		f    AuditFilter
		want int
	}{
		{"newest 100 shown", AuditFilter{Limit: 100}, 100},
		{"newest 100 with views (baseline)", AuditFilter{Limit: 100, Views: true}, 100},
		{"100 shown below rank 50000", AuditFilter{Limit: 100, BeforeRank: 50_000}, 100},
		{"100 shown below seq 150000", AuditFilter{Limit: 100, BeforeSeq: 150_000}, 100},
		{"100 with views below seq 150000 (baseline)", AuditFilter{Limit: 100, BeforeSeq: 150_000, Views: true}, 100},
		{"a method no record has, shown", AuditFilter{Limit: 100, Method: "nothing"}, 0},
		{"a method no record has, with views (baseline)", AuditFilter{Limit: 100, Method: "nothing", Views: true}, 0},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if err := db.View(context.Background(), func(tx *Tx) error {
					rs, err := tx.QueryAudit(tc.f)
					if err == nil && len(rs) != tc.want {
						err = fmt.Errorf("%d records, want %d", len(rs), tc.want)
					}
					return err
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
