package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// sampleRecord is the i-th record of a test log: fields vary so filters
// have something to select.
func sampleRecord(i int) *AuditRecord {
	transports := []string{"mcp", "mcp-sse", "mcp-stdio", "rpc", "gui", "supervisor"}
	methods := []string{"status", "work.await_packet", "work.complete", "audit.query"}
	outcomes := []string{"ok", "ok", "capability_missing", "token_invalid", "lease_lost"}
	r := &AuditRecord{
		Transport:      transports[i%len(transports)],
		Method:         methods[i%len(methods)],
		Outcome:        outcomes[i%len(outcomes)],
		DurationMicros: int64(i * 17),
		ArgsDigest:     ArgsDigest(fmt.Appendf(nil, `{"i":%d}`, i)),
	}
	if i%3 != 0 {
		r.KeyID = fmt.Sprintf("%016x", i%3)
	}
	if i%2 == 0 {
		r.SessionID = fmt.Sprintf("ses_%d", i%4)
		r.Repository = fmt.Sprintf("repo_%d", i%5)
	}
	return r
}

// appendN appends n sample records, one Update each, and returns them as
// stored.
func appendN(t testing.TB, db *DB, n int) []AuditRecord {
	t.Helper()
	out := make([]AuditRecord, 0, n)
	for i := range n {
		r := sampleRecord(i)
		mustUpdate(t, db, func(tx *Tx) error { return tx.AppendAudit(r) })
		out = append(out, *r)
	}
	return out
}

func verify(db *DB) (AuditVerification, error) {
	var v AuditVerification
	err := db.View(context.Background(), func(tx *Tx) error {
		var err error
		v, err = tx.VerifyAudit()
		return err
	})
	return v, err
}

func TestAppendAudit(t *testing.T) {
	clock := newFakeClock()
	db := openTestDB(t, Options{Now: clock.Now})

	if v, err := verify(db); err != nil || v != (AuditVerification{}) {
		t.Fatalf("VerifyAudit on an empty log = %+v, %v", v, err)
	}

	explicit := time.Date(2025, 12, 31, 23, 0, 0, 123, time.FixedZone("X", -3*3600))
	var recs []AuditRecord
	for i := range 5 {
		r := sampleRecord(i)
		// Whatever the caller puts in these is replaced.
		r.Seq, r.ID, r.PrevHash, r.Hash = 99, "aud_forged", "forged", "forged"
		if i == 2 {
			r.Time = explicit
		}
		mustUpdate(t, db, func(tx *Tx) error { return tx.AppendAudit(r) })
		recs = append(recs, *r)
		clock.Add(time.Second)
	}
	prev := ""
	for i, r := range recs {
		seq := uint64(i + 1)
		if r.Seq != seq || r.ID != AuditID(seq) || r.ID != fmt.Sprintf("aud_%016x", seq) {
			t.Errorf("record %d: seq %d id %q", i, r.Seq, r.ID)
		}
		if r.PrevHash != prev {
			t.Errorf("record %d: prev_hash %q, want %q", i, r.PrevHash, prev)
		}
		if r.Hash != chainHash(&r) || len(r.Hash) != 64 {
			t.Errorf("record %d: hash %q does not cover it", i, r.Hash)
		}
		if r.Time.Location() != time.UTC {
			t.Errorf("record %d: time %v not UTC", i, r.Time)
		}
		wantTime := clock.Now().Add(time.Duration(i-5) * time.Second)
		if i == 2 {
			wantTime = explicit
		}
		if !r.Time.Equal(wantTime) {
			t.Errorf("record %d: time %v, want %v", i, r.Time, wantTime)
		}
		prev = r.Hash
	}

	// What was returned is what was stored.
	mustView(t, db, func(tx *Tx) error {
		got, err := tx.QueryAudit(AuditFilter{AfterSeq: 0, Limit: 10})
		if err != nil {
			return err
		}
		slices.Reverse(got)
		for i := range recs {
			if !equalRecord(got[i], recs[i]) {
				t.Errorf("stored record %d = %+v, returned %+v", i, got[i], recs[i])
			}
		}
		return nil
	})

	v, err := verify(db)
	if err != nil {
		t.Fatalf("VerifyAudit: %v", err)
	}
	if v.Records != 5 || v.LastSeq != 5 || v.LastHash != recs[4].Hash {
		t.Errorf("VerifyAudit = %+v", v)
	}
}

// equalRecord compares records as they are stored: Rank says where a query
// found one, and is not part of it.
func equalRecord(a, b AuditRecord) bool {
	ta, tb := a.Time, b.Time
	a.Time, b.Time = time.Time{}, time.Time{}
	a.Rank, b.Rank = 0, 0
	return a == b && ta.Equal(tb)
}

func TestAppendAuditRolledBackLeavesNoGap(t *testing.T) {
	db := openTestDB(t, Options{})
	appendN(t, db, 3)
	boom := errors.New("boom")
	err := db.Update(context.Background(), func(tx *Tx) error {
		if err := tx.AppendAudit(sampleRecord(3)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	r := sampleRecord(4)
	mustUpdate(t, db, func(tx *Tx) error { return tx.AppendAudit(r) })
	if r.Seq != 4 {
		t.Errorf("after a rolled-back append, next seq = %d, want 4", r.Seq)
	}
	if v, err := verify(db); err != nil || v.Records != 4 {
		t.Errorf("VerifyAudit = %+v, %v", v, err)
	}
}

func TestAppendAuditManyInOneUpdate(t *testing.T) {
	db := openTestDB(t, Options{})
	mustUpdate(t, db, func(tx *Tx) error {
		for i := range 50 {
			if err := tx.AppendAudit(sampleRecord(i)); err != nil {
				return err
			}
		}
		// The chain is already whole inside the transaction.
		v, err := tx.VerifyAudit()
		if err != nil || v.Records != 50 {
			t.Errorf("VerifyAudit inside Update = %+v, %v", v, err)
		}
		return nil
	})
	if v, err := verify(db); err != nil || v.Records != 50 || v.LastSeq != 50 {
		t.Errorf("VerifyAudit = %+v, %v", v, err)
	}
}

// tamper edits the stored log directly, as someone with the file would.
func tamper(t *testing.T, db *DB, fn func(t *testing.T, tx *Tx, recs map[uint64]AuditRecord)) {
	t.Helper()
	mustUpdate(t, db, func(tx *Tx) error {
		recs := map[uint64]AuditRecord{}
		tx.tx.Bucket(bucketAudit).ForEach(func(k, v []byte) error {
			var r AuditRecord
			if err := json.Unmarshal(v, &r); err != nil {
				t.Fatal(err)
			}
			recs[r.Seq] = r
			return nil
		})
		fn(t, tx, recs)
		return nil
	})
}

func putRaw(t *testing.T, tx *Tx, seq uint64, r AuditRecord) {
	t.Helper()
	v, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.tx.Bucket(bucketAudit).Put(u64(seq), v); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyAuditDetectsTampering(t *testing.T) {
	const n, k = 12, 6
	type recs = map[uint64]AuditRecord
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, tx *Tx, r recs)
	}{
		{"outcome changed", func(t *testing.T, tx *Tx, r recs) {
			rec := r[k]
			rec.Outcome = "ok"
			if r[k].Outcome == "ok" {
				rec.Outcome = "capability_missing"
			}
			putRaw(t, tx, k, rec)
		}},
		{"method changed", func(t *testing.T, tx *Tx, r recs) {
			rec := r[k]
			rec.Method += "x"
			putRaw(t, tx, k, rec)
		}},
		{"time changed", func(t *testing.T, tx *Tx, r recs) {
			rec := r[k]
			rec.Time = rec.Time.Add(time.Nanosecond)
			putRaw(t, tx, k, rec)
		}},
		{"keyid removed", func(t *testing.T, tx *Tx, r recs) {
			rec := r[k-1] // i=k-1 has a key id: (k-1)%3 != 0
			if rec.KeyID == "" {
				t.Fatal("setup: record has no key id")
			}
			rec.KeyID = ""
			putRaw(t, tx, k-1, rec)
		}},
		{"outcome changed and its hash recomputed", func(t *testing.T, tx *Tx, r recs) {
			rec := r[k]
			rec.Outcome = "forged"
			rec.Hash = chainHash(&rec)
			putRaw(t, tx, k, rec)
		}},
		{"record deleted in the middle", func(t *testing.T, tx *Tx, r recs) {
			tx.tx.Bucket(bucketAudit).Delete(u64(k))
		}},
		{"first record deleted", func(t *testing.T, tx *Tx, r recs) {
			tx.tx.Bucket(bucketAudit).Delete(u64(1))
		}},
		{"last record deleted", func(t *testing.T, tx *Tx, r recs) {
			tx.tx.Bucket(bucketAudit).Delete(u64(n))
		}},
		{"records deleted from the middle and renumbered", func(t *testing.T, tx *Tx, r recs) {
			b := tx.tx.Bucket(bucketAudit)
			for seq := uint64(k); seq <= n; seq++ {
				b.Delete(u64(seq))
			}
			for seq := uint64(k + 1); seq <= n; seq++ {
				rec := r[seq]
				rec.Seq = seq - 1
				rec.ID = AuditID(seq - 1)
				putRaw(t, tx, seq-1, rec)
			}
		}},
		{"prev_hash changed", func(t *testing.T, tx *Tx, r recs) {
			rec := r[k]
			rec.PrevHash = r[k-2].Hash
			putRaw(t, tx, k, rec)
		}},
		{"prev_hash changed and hash recomputed", func(t *testing.T, tx *Tx, r recs) {
			rec := r[k]
			rec.PrevHash = strings.Repeat("0", 64)
			rec.Hash = chainHash(&rec)
			putRaw(t, tx, k, rec)
		}},
		{"hash changed", func(t *testing.T, tx *Tx, r recs) {
			rec := r[k]
			rec.Hash = strings.Repeat("a", 64)
			putRaw(t, tx, k, rec)
		}},
		{"two records swapped", func(t *testing.T, tx *Tx, r recs) {
			putRaw(t, tx, k, r[k+1])
			putRaw(t, tx, k+1, r[k])
		}},
		{"two records swapped with seq and id rewritten", func(t *testing.T, tx *Tx, r recs) {
			a, b := r[k], r[k+1]
			a.Seq, b.Seq = b.Seq, a.Seq
			a.ID, b.ID = b.ID, a.ID
			putRaw(t, tx, k, b)
			putRaw(t, tx, k+1, a)
		}},
		{"record duplicated over its successor", func(t *testing.T, tx *Tx, r recs) {
			putRaw(t, tx, k+1, r[k])
		}},
		{"seq field changed", func(t *testing.T, tx *Tx, r recs) {
			rec := r[k]
			rec.Seq++
			putRaw(t, tx, k, rec)
		}},
		{"record appended out of sequence", func(t *testing.T, tx *Tx, r recs) {
			rec := r[n]
			rec.Seq = n + 2
			rec.ID = AuditID(n + 2)
			rec.PrevHash = r[n].Hash
			rec.Hash = chainHash(&rec)
			putRaw(t, tx, n+2, rec)
		}},
		{"value is not JSON", func(t *testing.T, tx *Tx, r recs) {
			tx.tx.Bucket(bucketAudit).Put(u64(k), []byte("not json"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDB(t, Options{})
			appendN(t, db, n)
			if v, err := verify(db); err != nil || v.Records != n {
				t.Fatalf("before tampering: %+v, %v", v, err)
			}
			tamper(t, db, tc.edit)
			v, err := verify(db)
			if !errors.Is(err, ErrAuditChain) {
				t.Fatalf("VerifyAudit after tampering = %+v, %v; want ErrAuditChain", v, err)
			}
		})
	}
}

func TestChainInputIsUnambiguous(t *testing.T) {
	base := AuditRecord{
		PrevHash: "p", Seq: 7, ID: "aud_7", Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Transport: "mcp", KeyID: "k", SessionID: "s", Method: "m", Repository: "r",
		Outcome: "ok", DurationMicros: 5, ArgsDigest: "d",
	}
	with := func(edit func(*AuditRecord)) AuditRecord {
		r := base
		edit(&r)
		return r
	}
	for _, tc := range []struct {
		name string
		a, b AuditRecord
	}{
		{"transport|keyid", with(func(r *AuditRecord) { r.Transport, r.KeyID = "mcpx", "" }), with(func(r *AuditRecord) { r.Transport, r.KeyID = "mcp", "x" })},
		{"keyid|session", with(func(r *AuditRecord) { r.KeyID, r.SessionID = "ab", "c" }), with(func(r *AuditRecord) { r.KeyID, r.SessionID = "a", "bc" })},
		{"session|method", with(func(r *AuditRecord) { r.SessionID, r.Method = "ses_1s", "tatus" }), with(func(r *AuditRecord) { r.SessionID, r.Method = "ses_1", "status" })},
		{"method|repository", with(func(r *AuditRecord) { r.Method, r.Repository = "work.getr", "epo_1" }), with(func(r *AuditRecord) { r.Method, r.Repository = "work.get", "repo_1" })},
		{"repository|outcome", with(func(r *AuditRecord) { r.Repository, r.Outcome = "repo_1o", "k" }), with(func(r *AuditRecord) { r.Repository, r.Outcome = "repo_1", "ok" })},
		{"outcome|duration", with(func(r *AuditRecord) { r.Outcome, r.DurationMicros = "ok1", 2 }), with(func(r *AuditRecord) { r.Outcome, r.DurationMicros = "ok", 12 })},
		{"duration|digest", with(func(r *AuditRecord) { r.DurationMicros, r.ArgsDigest = 12, "3" }), with(func(r *AuditRecord) { r.DurationMicros, r.ArgsDigest = 1, "23" })},
		{"prev|seq", with(func(r *AuditRecord) { r.PrevHash, r.Seq = "p1", 2 }), with(func(r *AuditRecord) { r.PrevHash, r.Seq = "p", 12 })},
		{"seq|id", with(func(r *AuditRecord) { r.Seq, r.ID = 12, "3" }), with(func(r *AuditRecord) { r.Seq, r.ID = 1, "23" })},
		{"empty vs separator-like content", with(func(r *AuditRecord) { r.KeyID, r.SessionID = "\x001:x", "" }), with(func(r *AuditRecord) { r.KeyID, r.SessionID = "", "x" })},
		{"field holding a whole encoded field", with(func(r *AuditRecord) { r.Method, r.Repository = "m\x001:r", "" }), with(func(r *AuditRecord) { r.Method, r.Repository = "m", "r" })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if string(chainInput(&tc.a)) == string(chainInput(&tc.b)) {
				t.Fatalf("same chain input for %+v and %+v", tc.a, tc.b)
			}
			if chainHash(&tc.a) == chainHash(&tc.b) {
				t.Fatal("same hash")
			}
		})
	}

	// Every field is covered: changing any one changes the hash.
	h := chainHash(&base)
	for name, edit := range map[string]func(*AuditRecord){
		"prev_hash": func(r *AuditRecord) { r.PrevHash += "x" },
		"seq":       func(r *AuditRecord) { r.Seq++ },
		"id":        func(r *AuditRecord) { r.ID += "x" },
		"time":      func(r *AuditRecord) { r.Time = r.Time.Add(time.Nanosecond) },
		"transport": func(r *AuditRecord) { r.Transport += "x" },
		"keyid":     func(r *AuditRecord) { r.KeyID += "x" },
		"session":   func(r *AuditRecord) { r.SessionID += "x" },
		"method":    func(r *AuditRecord) { r.Method += "x" },
		"repo":      func(r *AuditRecord) { r.Repository += "x" },
		"outcome":   func(r *AuditRecord) { r.Outcome += "x" },
		"duration":  func(r *AuditRecord) { r.DurationMicros++ },
		"digest":    func(r *AuditRecord) { r.ArgsDigest += "x" },
	} {
		r := with(edit)
		if chainHash(&r) == h {
			t.Errorf("changing %s does not change the hash", name)
		}
	}
	// The hash field itself and the time zone are not inputs.
	r := with(func(r *AuditRecord) { r.Hash = "anything"; r.Time = r.Time.In(time.FixedZone("X", 3600)) })
	if chainHash(&r) != h {
		t.Error("hash depends on the Hash field or on the time zone")
	}
}

// The chain input is a stored format: records written today must verify in
// every later release. This pins it byte for byte.
func TestChainInputGolden(t *testing.T) {
	r := AuditRecord{
		PrevHash: "ab", Seq: 12, ID: "aud_000000000000000c", Time: time.Date(2026, 2, 3, 4, 5, 6, 700, time.UTC),
		Transport: "mcp", KeyID: "0123456789abcdef", SessionID: "", Method: "work.ack", Repository: "repo_1",
		Outcome: "ok", DurationMicros: 1500, ArgsDigest: "sha256:0011223344556677",
	}
	want := "switchboard-audit-v1" +
		"\x002:ab" + "\x002:12" + "\x0020:aud_000000000000000c" + "\x0028:2026-02-03T04:05:06.0000007Z" +
		"\x003:mcp" + "\x0016:0123456789abcdef" + "\x000:" + "\x008:work.ack" + "\x006:repo_1" +
		"\x002:ok" + "\x004:1500" + "\x0023:sha256:0011223344556677"
	if got := string(chainInput(&r)); got != want {
		t.Fatalf("chainInput =\n%q\nwant\n%q", got, want)
	}
}

func TestArgsDigest(t *testing.T) {
	re := `^sha256:[0-9a-f]{16}$`
	for _, tc := range []struct {
		in    string
		empty bool
	}{{"", true}, {"  \n\t", true}, {"{}", false}, {`{"token":"sbt_x"}`, false}} {
		got := ArgsDigest([]byte(tc.in))
		if tc.empty != (got == "") {
			t.Errorf("ArgsDigest(%q) = %q", tc.in, got)
		}
		if !tc.empty && !matches(re, got) {
			t.Errorf("ArgsDigest(%q) = %q, want %s", tc.in, got, re)
		}
		if !tc.empty && strings.Contains(got, tc.in) {
			t.Errorf("digest carries its input")
		}
	}
	if ArgsDigest([]byte(`{"a":1}`)) == ArgsDigest([]byte(`{"a":2}`)) {
		t.Error("different arguments, same digest")
	}
}

func matches(re, s string) bool {
	ok, _ := regexp.MatchString(re, s)
	return ok
}

func query(t *testing.T, db *DB, f AuditFilter) []AuditRecord {
	t.Helper()
	var out []AuditRecord
	mustView(t, db, func(tx *Tx) error {
		var err error
		out, err = tx.QueryAudit(f)
		return err
	})
	return out
}

func seqs(rs []AuditRecord) []uint64 {
	out := make([]uint64, len(rs))
	for i, r := range rs {
		out[i] = r.Seq
	}
	return out
}

func seqRange(from, to uint64) []uint64 { // inclusive, either direction
	var out []uint64
	if from <= to {
		for s := from; s <= to; s++ {
			out = append(out, s)
		}
	} else {
		for s := from; s >= to; s-- {
			out = append(out, s)
		}
	}
	return out
}

func TestQueryAudit(t *testing.T) {
	const n = 40
	db := openTestDB(t, Options{})
	if got := query(t, db, AuditFilter{}); got == nil || len(got) != 0 {
		t.Errorf("QueryAudit on an empty log = %#v, want an empty non-nil slice", got)
	}
	all := appendN(t, db, n)
	want := func(f AuditFilter, newestFirst bool) []uint64 {
		var out []uint64
		for _, r := range all {
			if f.match(&r) && (f.AfterSeq == 0 || r.Seq > f.AfterSeq) && (f.BeforeSeq == 0 || r.Seq < f.BeforeSeq) {
				out = append(out, r.Seq)
			}
		}
		if newestFirst {
			slices.Reverse(out)
		}
		if f.Limit > 0 && len(out) > f.Limit {
			out = out[:f.Limit]
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		f      AuditFilter
		wanted []uint64 // nil: computed by want()
	}{
		{"all, newest first", AuditFilter{}, seqRange(n, 1)},
		{"limit", AuditFilter{Limit: 5}, seqRange(n, n-4)},
		{"negative limit is the default", AuditFilter{Limit: -1}, seqRange(n, 1)},
		{"before", AuditFilter{BeforeSeq: 10}, seqRange(9, 1)},
		{"before with limit", AuditFilter{BeforeSeq: 10, Limit: 3}, seqRange(9, 7)},
		{"before the first", AuditFilter{BeforeSeq: 1}, []uint64{}},
		{"before past the end", AuditFilter{BeforeSeq: n + 100}, seqRange(n, 1)},
		{"before max", AuditFilter{BeforeSeq: math.MaxUint64}, seqRange(n, 1)},
		{"after, oldest first", AuditFilter{AfterSeq: 30}, seqRange(31, n)},
		{"after with limit", AuditFilter{AfterSeq: 30, Limit: 4}, seqRange(31, 34)},
		{"after the last", AuditFilter{AfterSeq: n}, []uint64{}},
		{"after max", AuditFilter{AfterSeq: math.MaxUint64}, []uint64{}},
		{"after and before: a window", AuditFilter{AfterSeq: 10, BeforeSeq: 15}, seqRange(11, 14)},
		{"after and before: empty window", AuditFilter{AfterSeq: 10, BeforeSeq: 11}, []uint64{}},
		{"method", AuditFilter{Method: "work.complete"}, nil},
		{"outcome", AuditFilter{Outcome: "capability_missing"}, nil},
		{"keyid", AuditFilter{KeyID: fmt.Sprintf("%016x", 1)}, nil},
		{"session", AuditFilter{SessionID: "ses_2"}, nil},
		{"transport", AuditFilter{Transport: "rpc"}, nil},
		{"repository", AuditFilter{Repository: "repo_3"}, nil},
		{"combined", AuditFilter{Method: "status", Outcome: "ok", Transport: "mcp"}, nil},
		{"no match", AuditFilter{Method: "nope"}, []uint64{}},
		{"filter with limit", AuditFilter{Outcome: "ok", Limit: 3}, nil},
		{"filter before", AuditFilter{Outcome: "ok", BeforeSeq: 20}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exp := tc.wanted
			if exp == nil {
				exp = want(tc.f, tc.f.AfterSeq == 0)
				if len(exp) == 0 {
					t.Fatal("setup: filter selects nothing")
				}
			}
			got := query(t, db, tc.f)
			if !slices.Equal(seqs(got), exp) {
				t.Fatalf("QueryAudit(%+v) seqs = %v, want %v", tc.f, seqs(got), exp)
			}
			for _, r := range got {
				if !tc.f.match(&r) {
					t.Errorf("record %d does not match the filter", r.Seq)
				}
				if !equalRecord(r, all[r.Seq-1]) {
					t.Errorf("record %d = %+v, stored %+v", r.Seq, r, all[r.Seq-1])
				}
			}
		})
	}
}

// Paging with BeforeSeq (backwards) or AfterSeq (forwards) visits every
// matching record exactly once, whatever the page size.
func TestQueryAuditPaging(t *testing.T) {
	const n = 57
	db := openTestDB(t, Options{})
	all := appendN(t, db, n)
	for _, f := range []AuditFilter{{}, {Outcome: "ok"}, {Transport: "gui"}, {Method: "nope"}} {
		var wantAsc []uint64
		for _, r := range all {
			if f.match(&r) {
				wantAsc = append(wantAsc, r.Seq)
			}
		}
		for _, pageSize := range []int{1, 2, 7, 10, n, 1000} {
			t.Run(fmt.Sprintf("%+v/page%d", f, pageSize), func(t *testing.T) {
				// Backwards.
				var got []uint64
				cursor := uint64(0)
				for pages := 0; ; pages++ {
					if pages > n+1 {
						t.Fatal("paging does not end")
					}
					q := f
					q.BeforeSeq, q.Limit = cursor, pageSize
					page := query(t, db, q)
					if len(page) == 0 {
						break
					}
					if len(page) > pageSize {
						t.Fatalf("page of %d, limit %d", len(page), pageSize)
					}
					got = append(got, seqs(page)...)
					cursor = page[len(page)-1].Seq
				}
				wantDesc := slices.Clone(wantAsc)
				slices.Reverse(wantDesc)
				if !slices.Equal(got, wantDesc) && !(len(got) == 0 && len(wantDesc) == 0) {
					t.Errorf("backwards: %v, want %v", got, wantDesc)
				}

				// Forwards from a split point, and backwards from just
				// after it: together, every record exactly once. (AfterSeq
				// 0 means "not set", so forward paging starts after a
				// known record.)
				const split = n / 3
				var fwd []uint64
				cursor = split
				for pages := 0; ; pages++ {
					if pages > n+1 {
						t.Fatal("paging does not end")
					}
					q := f
					q.AfterSeq, q.Limit = cursor, pageSize
					page := query(t, db, q)
					if len(page) == 0 {
						break
					}
					if len(page) > pageSize {
						t.Fatalf("page of %d, limit %d", len(page), pageSize)
					}
					fwd = append(fwd, seqs(page)...)
					cursor = page[len(page)-1].Seq
				}
				var back []uint64
				cursor = split + 1
				for pages := 0; ; pages++ {
					if pages > n+1 {
						t.Fatal("paging does not end")
					}
					q := f
					q.BeforeSeq, q.Limit = cursor, pageSize
					page := query(t, db, q)
					if len(page) == 0 {
						break
					}
					back = append(back, seqs(page)...)
					cursor = page[len(page)-1].Seq
				}
				slices.Reverse(back)
				got = append(back, fwd...)
				if !slices.Equal(got, wantAsc) && !(len(got) == 0 && len(wantAsc) == 0) {
					t.Errorf("split at %d: backwards %v + forwards %v, want %v", split, back, fwd, wantAsc)
				}
			})
		}
	}
}

func TestQueryAuditLimits(t *testing.T) {
	db := openTestDB(t, Options{})
	mustUpdate(t, db, func(tx *Tx) error {
		for i := range 1100 {
			if err := tx.AppendAudit(sampleRecord(i)); err != nil {
				return err
			}
		}
		return nil
	})
	for _, tc := range []struct {
		f    AuditFilter
		want int
	}{
		{AuditFilter{}, 100},
		{AuditFilter{Limit: 0}, 100},
		{AuditFilter{Limit: 1}, 1},
		{AuditFilter{Limit: 999}, 999},
		{AuditFilter{Limit: 1000}, 1000},
		{AuditFilter{Limit: 1001}, 1000},
		{AuditFilter{Limit: math.MaxInt}, 1000},
		{AuditFilter{AfterSeq: 50, Limit: 5000}, 1000},
		{AuditFilter{AfterSeq: 1000, Limit: 5000}, 100},
	} {
		if got := len(query(t, db, tc.f)); got != tc.want {
			t.Errorf("QueryAudit(%+v) returned %d, want %d", tc.f, got, tc.want)
		}
	}
	if v, err := verify(db); err != nil || v.Records != 1100 {
		t.Errorf("VerifyAudit = %+v, %v", v, err)
	}
}
