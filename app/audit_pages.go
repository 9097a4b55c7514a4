package app

// The Audit window's paging, in plain Go: which page holds a row, the pages
// a filtered view has found, and the pages kept in memory. No widget here,
// so it is tested on its own.

import (
	"container/list"
	"sort"

	"github.com/switchboard-dev/switchboard/store"
)

const (
	// auditPageSize is how many rows one page holds: one audit.query for
	// the whole log, where a page is a range of positions (seqs, gap-free,
	// or with the app's refreshes hidden the shown records' ranks).
	auditPageSize = 200
	// auditFirstPage is the first page of a filtered view: a screen's
	// worth of rows.
	auditFirstPage = 40
	// auditScanBatch is the most records one audit.query returns; with a
	// filter the store cannot apply (free text, "!ok", time bounds) the
	// window reads this many and filters them itself.
	auditScanBatch = 1000
	// auditScanCalls bounds the calls one fetch makes while looking for
	// matches of a rare filter: every call is itself audited, so a scan
	// goes on only while its "loading…" row is on screen.
	auditScanCalls = 20
	// auditCachePages is how many pages stay in memory (an LRU): a few
	// screens' worth around where the person has been.
	auditCachePages = 64
)

// auditSpan is one page of a filtered view: the first count matches below
// seq before. Its records can be dropped from the cache and read again.
type auditSpan struct {
	key    int
	before uint64
	count  int
}

// auditView is what the table shows: a snapshot of the log under a query.
// Its fields are on the Fyne goroutine only.
type auditView struct {
	gen   int // bumped on every new view; late results of an old one are dropped
	q     auditQuery
	whole bool
	ready bool // the first read (top, time bounds) is done
	// top is the newest seq in the view; floor the oldest allowed. In the
	// whole log with the refreshes hidden, top is the newest shown
	// record's rank (auditView.pos), topSeq its seq, and hidden how many
	// refreshes the log held besides the shown records.
	top, floor     uint64
	topSeq, hidden uint64
	// Filtered views: the pages found so far, newest first, their first
	// rows, where the next page starts and whether there is one.
	spans   []*auditSpan
	offsets []int
	rows    int
	next    uint64
	done    bool
	nextKey int
	err     error
}

// auditCache is an LRU of pages, by page key (an aligned seq range of the
// whole log, or a span of a filtered view). On the Fyne goroutine only.
type auditCache struct {
	max   int
	order *list.List // of int keys, most recent first
	pages map[int]*list.Element
	recs  map[int][]store.AuditRecord
}

func newAuditCache(max int) *auditCache {
	return &auditCache{max: max, order: list.New(), pages: map[int]*list.Element{}, recs: map[int][]store.AuditRecord{}}
}

func (c *auditCache) get(key int) ([]store.AuditRecord, bool) {
	e, ok := c.pages[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return c.recs[key], true
}

func (c *auditCache) put(key int, recs []store.AuditRecord) {
	if e, ok := c.pages[key]; ok {
		c.order.MoveToFront(e)
	} else {
		c.pages[key] = c.order.PushFront(key)
	}
	c.recs[key] = recs
	for c.order.Len() > c.max {
		e := c.order.Back()
		k := e.Value.(int)
		c.order.Remove(e)
		delete(c.pages, k)
		delete(c.recs, k)
	}
}

func (c *auditCache) drop(key int) {
	if e, ok := c.pages[key]; ok {
		c.order.Remove(e)
		delete(c.pages, key)
		delete(c.recs, key)
	}
}

// pos is r's position in the whole log: its seq, or with the app's
// refreshes hidden its rank among the shown records. Either runs without
// a gap, so row i of the whole log is position top-i.
func (v *auditView) pos(r *store.AuditRecord) uint64 {
	if v.q.filter.Views {
		return r.Seq
	}
	return r.Rank
}

// setWholeTop makes r, the newest record read of the whole log, the view's
// top, when the log's newest seq was lastSeq.
func (v *auditView) setWholeTop(r *store.AuditRecord, lastSeq uint64) {
	v.top, v.topSeq = v.pos(r), r.Seq
	if !v.q.filter.Views {
		// Every record up to lastSeq was either shown (and ranked up to
		// top) or a refresh.
		v.hidden = lastSeq - v.top
	}
}

// pageFilter reads page key of the whole log.
func (v *auditView) pageFilter(key int) store.AuditFilter {
	below := uint64(key+1)*auditPageSize + 1
	if v.q.filter.Views {
		return store.AuditFilter{BeforeSeq: below, Limit: auditPageSize, Views: true}
	}
	return store.AuditFilter{BeforeRank: below, Limit: auditPageSize}
}

// putWholePages keeps the complete pages of the whole log among recs,
// which run newest first without a gap in their positions: a page is
// complete when recs reach its oldest position (the newest page is
// complete from the view's top down).
func (c *auditCache) putWholePages(v *auditView, recs []store.AuditRecord) {
	for len(recs) > 0 {
		top := v.pos(&recs[0])
		key := int((top - 1) / auditPageSize)
		bottom := uint64(key)*auditPageSize + 1
		n := int(top-bottom) + 1
		if n > len(recs) {
			return
		}
		c.put(key, recs[:n:n])
		recs = recs[n:]
	}
}

// length is the view's row count: the whole log's size, or the rows found
// so far and one "loading…" row while older ones may match.
func (v *auditView) length() int {
	switch {
	case !v.ready:
		return 0
	case v.whole:
		return int(v.top)
	case v.done:
		return v.rows
	}
	return v.rows + 1
}

// auditRead is what a row needs read before it can show.
type auditRead int

const (
	readNothing auditRead = iota // the row is in memory, or has no record
	readPage                     // the whole log's page auditMiss.key
	readSpan                     // the filtered page auditMiss.span, which the cache dropped
	readNext                     // the next older page of a filtered view
)

// auditMiss is what to read for a row whose page is not in memory.
type auditMiss struct {
	read auditRead
	key  int
	span *auditSpan
}

// record returns row i's record when its page is in c, and otherwise what
// to read for it.
func (v *auditView) record(c *auditCache, i int) (*store.AuditRecord, auditMiss) {
	if !v.ready || i < 0 {
		return nil, auditMiss{}
	}
	if v.whole {
		if uint64(i) >= v.top {
			return nil, auditMiss{}
		}
		pos := v.top - uint64(i)
		key := int((pos - 1) / auditPageSize)
		recs, ok := c.get(key)
		if !ok {
			return nil, auditMiss{read: readPage, key: key}
		}
		if len(recs) == 0 || v.pos(&recs[0]) < pos {
			return nil, auditMiss{}
		}
		j := int(v.pos(&recs[0]) - pos)
		if j >= len(recs) {
			return nil, auditMiss{}
		}
		return &recs[j], auditMiss{}
	}
	if i >= v.rows {
		return nil, auditMiss{read: readNext}
	}
	n := sort.Search(len(v.offsets), func(k int) bool { return v.offsets[k] > i }) - 1
	sp := v.spans[n]
	recs, ok := c.get(sp.key)
	if !ok {
		return nil, auditMiss{read: readSpan, span: sp}
	}
	j := i - v.offsets[n]
	if j >= len(recs) {
		return nil, auditMiss{}
	}
	return &recs[j], auditMiss{}
}

// addSpan adds a page to a filtered view, its records to c: at the end, or
// at the front for records the live tail found.
func (v *auditView) addSpan(c *auditCache, sp *auditSpan, recs []store.AuditRecord, front bool) {
	if sp.count == 0 {
		return
	}
	sp.key = v.nextKey
	v.nextKey++
	if front {
		v.spans = append([]*auditSpan{sp}, v.spans...)
	} else {
		v.spans = append(v.spans, sp)
	}
	v.offsets = v.offsets[:0]
	v.rows = 0
	for _, s := range v.spans {
		v.offsets = append(v.offsets, v.rows)
		v.rows += s.count
	}
	c.put(sp.key, recs)
}
