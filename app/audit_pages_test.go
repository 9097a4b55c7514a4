package app

import (
	"fmt"
	"slices"
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

func TestAuditCacheEvicts(t *testing.T) {
	c := newAuditCache(2)
	c.put(1, nil)
	c.put(2, nil)
	c.get(1)
	c.put(3, nil)
	if _, ok := c.get(2); ok {
		t.Error("least recently used page kept")
	}
	if _, ok := c.get(1); !ok {
		t.Error("recently used page dropped")
	}
}

// auditRecs are records newest to oldest, seqs newest down to oldest.
func auditRecs(newest, oldest uint64) []store.AuditRecord {
	var recs []store.AuditRecord
	for seq := newest; seq >= oldest && seq > 0; seq-- {
		recs = append(recs, store.AuditRecord{Seq: seq})
	}
	return recs
}

// checkAuditRecord checks what v.record(c, row) returns: the record of seq
// wantSeq (0: none) and what to read.
func checkAuditRecord(t *testing.T, name string, v *auditView, c *auditCache, row int, wantSeq uint64, want auditMiss) {
	t.Helper()
	r, miss := v.record(c, row)
	var seq uint64
	if r != nil {
		seq = r.Seq
	}
	if seq != wantSeq || miss != want {
		t.Errorf("%s: record(%d) = seq %d, %+v; want seq %d, %+v", name, row, seq, miss, wantSeq, want)
	}
}

func TestAuditViewLength(t *testing.T) {
	for _, tc := range []struct {
		name string
		view auditView
		want int
	}{
		{"not read yet", auditView{whole: true, top: 450}, 0},
		{"whole log", auditView{ready: true, whole: true, top: 450}, 450},
		{"empty log", auditView{ready: true, whole: true}, 0},
		{"filtered, all found", auditView{ready: true, rows: 7, done: true}, 7},
		{"filtered, more may match", auditView{ready: true, rows: 7}, 8},
		{"filtered, nothing found yet", auditView{ready: true}, 1},
	} {
		if got := tc.view.length(); got != tc.want {
			t.Errorf("%s: length() = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// In the whole log row i is seq top-i, on the page of its seq.
func TestAuditViewRecordWhole(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ready   bool
		top     uint64
		row     int
		wantSeq uint64 // 0: no record
		want    auditMiss
	}{
		{"newest row", true, 450, 0, 450, auditMiss{}},
		{"oldest row of the newest page", true, 450, 49, 401, auditMiss{}},
		{"newest row of a full page", true, 450, 50, 400, auditMiss{}},
		{"oldest row of a full page", true, 450, 249, 201, auditMiss{}},
		{"page not in memory", true, 450, 250, 0, auditMiss{read: readPage, key: 0}},
		{"oldest row, page not in memory", true, 450, 449, 0, auditMiss{read: readPage, key: 0}},
		{"past the end", true, 450, 450, 0, auditMiss{}},
		{"negative row", true, 450, -1, 0, auditMiss{}},
		{"not read yet", false, 450, 0, 0, auditMiss{}},
		// The tail raised top; the newest page in memory is from before.
		{"newer than its page in memory", true, 452, 0, 0, auditMiss{}},
		{"older rows of that page", true, 452, 2, 450, auditMiss{}},
	} {
		// With the refreshes shown, positions are seqs; hidden, they are
		// the shown records' ranks, whose seqs have gaps (here seq is
		// three times the rank).
		for _, views := range []bool{true, false} {
			c := newAuditCache(auditCachePages)
			put := func(key int, recs []store.AuditRecord) {
				for i := range recs {
					if !views {
						recs[i].Rank, recs[i].Seq = recs[i].Seq, 3*recs[i].Seq
					}
				}
				c.put(key, recs)
			}
			put(2, auditRecs(450, 401))
			put(1, auditRecs(400, 201))
			v := auditView{ready: tc.ready, whole: true, top: tc.top, q: auditQuery{filter: store.AuditFilter{Views: views}}}
			want := tc.wantSeq
			if !views {
				want *= 3
			}
			checkAuditRecord(t, fmt.Sprintf("%s (views %v)", tc.name, views), &v, c, tc.row, want, tc.want)
		}
	}
}

// The whole log's pages are read by seq with the refreshes, by rank
// without.
func TestAuditViewPageFilter(t *testing.T) {
	shown := auditView{}
	if f := shown.pageFilter(2); f != (store.AuditFilter{BeforeRank: 601, Limit: auditPageSize}) {
		t.Errorf("page 2 without views: %+v", f)
	}
	all := auditView{q: auditQuery{filter: store.AuditFilter{Views: true}}}
	if f := all.pageFilter(0); f != (store.AuditFilter{BeforeSeq: 201, Limit: auditPageSize, Views: true}) {
		t.Errorf("page 0 with views: %+v", f)
	}
}

// A filtered view's rows are its spans' records in order: a span the tail
// found first, then the ones scrolling found, oldest last.
func TestAuditViewRecordFiltered(t *testing.T) {
	c := newAuditCache(auditCachePages)
	v := auditView{ready: true}
	older := &auditSpan{before: 91, count: 3}
	oldest := &auditSpan{before: 61, count: 2}
	newer := &auditSpan{before: 96, count: 1}
	v.addSpan(c, older, []store.AuditRecord{{Seq: 90}, {Seq: 80}, {Seq: 70}}, false)
	v.addSpan(c, oldest, []store.AuditRecord{{Seq: 60}, {Seq: 50}}, false)
	v.addSpan(c, &auditSpan{before: 99}, nil, true) // nothing new: no span
	v.addSpan(c, newer, []store.AuditRecord{{Seq: 95}}, true)
	if v.rows != 6 || !slices.Equal(v.offsets, []int{0, 1, 4}) || v.nextKey != 3 {
		t.Fatalf("rows %d, offsets %v, next key %d; want 6, [0 1 4], 3", v.rows, v.offsets, v.nextKey)
	}
	c.drop(oldest.key)

	for _, tc := range []struct {
		name    string
		row     int
		wantSeq uint64 // 0: no record
		want    auditMiss
	}{
		{"the tail's span", 0, 95, auditMiss{}},
		{"first of the first page", 1, 90, auditMiss{}},
		{"last of the first page", 3, 70, auditMiss{}},
		{"a page the cache dropped", 4, 0, auditMiss{read: readSpan, span: oldest}},
		{"its last row", 5, 0, auditMiss{read: readSpan, span: oldest}},
		{"the loading row", 6, 0, auditMiss{read: readNext}},
		{"negative row", -1, 0, auditMiss{}},
	} {
		checkAuditRecord(t, tc.name, &v, c, tc.row, tc.wantSeq, tc.want)
	}
}

// putWholePages keeps only the pages recs hold from their newest seq down
// to their oldest.
func TestAuditPutWholePages(t *testing.T) {
	for _, tc := range []struct {
		name string
		recs []store.AuditRecord
		want map[int][2]uint64 // page key: its newest and oldest seq
	}{
		{"every page whole", auditRecs(450, 1), map[int][2]uint64{2: {450, 401}, 1: {400, 201}, 0: {200, 1}}},
		{"oldest page cut", auditRecs(450, 150), map[int][2]uint64{2: {450, 401}, 1: {400, 201}}},
		{"newest page cut", auditRecs(450, 420), map[int][2]uint64{}},
		{"from a page's top", auditRecs(400, 201), map[int][2]uint64{1: {400, 201}}},
		{"nothing", nil, map[int][2]uint64{}},
	} {
		c := newAuditCache(auditCachePages)
		c.putWholePages(&auditView{q: auditQuery{filter: store.AuditFilter{Views: true}}}, tc.recs)
		if c.order.Len() != len(tc.want) {
			t.Errorf("%s: %d pages kept, want %d", tc.name, c.order.Len(), len(tc.want))
		}
		for key, span := range tc.want {
			recs, ok := c.get(key)
			if !ok || len(recs) == 0 || recs[0].Seq != span[0] || recs[len(recs)-1].Seq != span[1] || len(recs) != int(span[0]-span[1]+1) {
				t.Errorf("%s: page %d = %d records, want %d..%d", tc.name, key, len(recs), span[0], span[1])
			}
		}
	}
}
