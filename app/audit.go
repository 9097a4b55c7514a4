package app

import (
	"bufio"
	"container/list"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Audit window labels, also what the tests tap.
const (
	titleAudit       = "Switchboard — Audit"
	labelApply       = "Apply"
	labelClear       = "Clear"
	labelVerify      = "Verify"
	labelExportJSONL = "Export JSONL…"
	labelExportCSV   = "Export CSV…"
	labelCopyJSON    = "Copy as JSON"
	labelLoadingRow  = "loading…"
	labelNoRecord    = "Select a record."
	labelVerifying   = "Verifying the hash chain…"
)

const (
	// auditPageSize is how many rows one page holds: one audit.query for
	// the whole log, where seqs are gap-free and a page is a seq range.
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
	// auditFetchers bounds the page reads in flight while the person
	// drags the scroll bar across a million rows, and auditPendingMax
	// the pages waiting for one.
	auditFetchers   = 4
	auditPendingMax = 8
	// auditTailEvery throttles the live tail: a busy agent must not make
	// the window read the log for each of its calls.
	auditTailEvery = 500 * time.Millisecond
	// auditExportBatch is the page size of an export.
	auditExportBatch = auditScanBatch
)

// outcomeNotOK is the outcome filter that matches every denial and error.
const outcomeNotOK = "!ok"

// auditQuery is what the filters at the top of the window ask for.
type auditQuery struct {
	// filter holds the fields the store filters on; its paging fields
	// are set per call.
	filter store.AuditFilter
	// notOK keeps records whose outcome is not "ok".
	notOK bool
	// text is matched, lower case, against every field of a record.
	text string
	// from and to bound the records' times; zero is open.
	from, to time.Time
}

// whole reports whether q selects the whole log: then row i is seq top-i
// and any page is one call away, wherever the person scrolls.
func (q auditQuery) whole() bool {
	return q.filter == (store.AuditFilter{}) && !q.notOK && q.text == "" && q.from.IsZero() && q.to.IsZero()
}

// clientSide reports whether q filters on something the store cannot.
func (q auditQuery) clientSide() bool { return q.notOK || q.text != "" }

// matchClient applies the parts of q the store does not.
func (q auditQuery) matchClient(r *store.AuditRecord) bool {
	if q.notOK && r.Outcome == "ok" {
		return false
	}
	if q.text == "" {
		return true
	}
	for _, f := range []string{r.ID, r.Method, r.Outcome, r.Transport, r.KeyID, r.SessionID, r.Repository, r.ArgsDigest, r.Hash, r.PrevHash, r.Time.Local().Format(auditTimeLayout)} {
		if strings.Contains(strings.ToLower(f), q.text) {
			return true
		}
	}
	return false
}

const auditTimeLayout = "2006-01-02 15:04:05"

// parseAuditTime reads a time bound: "2026-11-30 14:00", "2026-11-30",
// RFC 3339, "now", or relative to now: "-1h", "-30m", "-2d".
func parseAuditTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return time.Time{}, nil
	case s == "now":
		return now, nil
	case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
		if days, ok := strings.CutSuffix(s, "d"); ok {
			n, err := strconv.Atoi(days)
			if err != nil {
				return time.Time{}, fmt.Errorf("time %q: %w", s, err)
			}
			return now.AddDate(0, 0, n), nil
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return time.Time{}, fmt.Errorf("time %q: %w", s, err)
		}
		return now.Add(d), nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("time %q: use 2026-11-30 14:00, 2026-11-30, or -1h, -30m, -2d", s)
}

// auditSource reads the log through the registry; its methods run off the
// Fyne goroutine.
type auditSource struct{ g *gui }

// query runs audit.query. It is gui.call without the JSON round trip of
// the result: a page of a thousand records would be encoded and decoded
// again for nothing.
func (s auditSource) query(f store.AuditFilter) (mcpserver.AuditRecords, error) {
	args, err := json.Marshal(f)
	if err != nil {
		return mcpserver.AuditRecords{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res := s.g.core.Registry().Invoke(ctx, mcpserver.Operator, mcpserver.TransportGUI, "audit.query", args)
	if res.Err != nil {
		return mcpserver.AuditRecords{}, res.Err
	}
	if recs, ok := res.Value.(mcpserver.AuditRecords); ok {
		return recs, nil
	}
	var out mcpserver.AuditRecords
	err = s.g.call("audit.query", f, &out)
	return out, err
}

// newest returns the newest record's seq, 0 for an empty log.
func (s auditSource) newest() (uint64, error) {
	res, err := s.query(store.AuditFilter{Limit: 1})
	if err != nil {
		return 0, err
	}
	if len(res.Records) == 0 {
		return 0, nil
	}
	return res.Records[0].Seq, nil
}

// at returns the record with sequence seq (the log has no gaps).
func (s auditSource) at(seq uint64) (store.AuditRecord, error) {
	res, err := s.query(store.AuditFilter{BeforeSeq: seq + 1, Limit: 1})
	if err != nil {
		return store.AuditRecord{}, err
	}
	if len(res.Records) == 0 || res.Records[0].Seq != seq {
		return store.AuditRecord{}, fmt.Errorf("audit record %d is missing", seq)
	}
	return res.Records[0], nil
}

// firstAtOrAfter returns the smallest seq in [1, top] whose record is at or
// after t, or top+1 when none is: records are appended in time order, so
// a binary search finds it in about 20 calls over a million records.
func (s auditSource) firstAtOrAfter(t time.Time, top uint64) (uint64, error) {
	lo, hi := uint64(1), top+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		r, err := s.at(mid)
		if err != nil {
			return 0, err
		}
		if r.Time.Before(t) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// bounds turns q's time range into the seqs it covers, [floor, top], given
// the log's newest seq.
func (s auditSource) bounds(q auditQuery, newest uint64) (floor, top uint64, err error) {
	floor, top = 1, newest
	if !q.from.IsZero() {
		if floor, err = s.firstAtOrAfter(q.from, newest); err != nil {
			return 0, 0, err
		}
	}
	if !q.to.IsZero() {
		after, err := s.firstAtOrAfter(q.to.Add(time.Nanosecond), newest)
		if err != nil {
			return 0, 0, err
		}
		top = after - 1
	}
	return floor, top, nil
}

// scan reads the records matching q below seq before and at or above seq
// floor, newest first, until it has want of them, the log ends, or it has
// made maxCalls calls (0: no bound). next is where the following scan
// starts (its before); done says nothing older matches.
func (s auditSource) scan(q auditQuery, before, floor uint64, want, maxCalls int) (recs []store.AuditRecord, next uint64, done bool, err error) {
	next = before
	for calls := 0; maxCalls == 0 || calls < maxCalls; calls++ {
		if next <= floor {
			return recs, next, true, nil
		}
		f := q.filter
		f.BeforeSeq = next
		f.Limit = want - len(recs)
		if q.clientSide() || !q.from.IsZero() {
			// The store cannot stop at floor or apply the rest: read a
			// full batch and judge each record here.
			f.Limit = auditScanBatch
		}
		f.Limit = min(f.Limit, auditScanBatch)
		res, err := s.query(f)
		if err != nil {
			return recs, next, false, err
		}
		for i := range res.Records {
			r := &res.Records[i]
			if r.Seq < floor {
				return recs, floor, true, nil
			}
			next = r.Seq
			if q.matchClient(r) {
				recs = append(recs, *r)
				if len(recs) == want {
					return recs, next, next <= floor, nil
				}
			}
		}
		if len(res.Records) < f.Limit {
			return recs, next, true, nil
		}
	}
	return recs, next, false, nil
}

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
	// top is the newest seq in the view; floor the oldest allowed.
	top, floor uint64
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

// auditWindow is the Audit window: the audit log with filters, a detail
// pane, the hash chain's status and export.
type auditWindow struct {
	g   *gui
	win fyne.Window
	src auditSource

	// On the Fyne goroutine only.
	view     auditView
	cache    *auditCache
	inflight map[int]bool // page keys being read or waiting; -1 is the next filtered page
	pending  []int        // whole-log pages waiting for a reader, newest last
	reading  int          // whole-log page reads running
	selected *store.AuditRecord

	method, outcome, keyID, session, transport, repository *widget.SelectEntry
	from, to, text                                         *widget.Entry

	applyBtn *widget.Button
	bottom   *fyne.Container // the status line: count, export progress, chain
	header   *fyne.Container
	list     *widget.List
	count    *widget.Label
	chain    *widget.Label
	export   *widget.Label
	detail   *widget.Label
	copy     *widget.Button
	verify   *widget.Button
	exportJ  *widget.Button
	exportC  *widget.Button

	// mu serializes the results of the window's goroutines (see do).
	mu          sync.Mutex
	fetchers    chan struct{}
	stopRefresh chan struct{}
	closeOnce   sync.Once
	// firstRows is closed when the current view's first rows are painted;
	// the benchmark waits on it. On the Fyne goroutine only.
	firstRows chan struct{}
	// now is the clock of relative time filters and of how long a
	// verification took; time.Now, a fixed time in the golden-image tests.
	now func() time.Time
}

// auditColumns are the table's columns and their relative widths, which
// are their widths in pixels at the window's usual size (1280 wide, the
// table 975 of it): there the time, method, outcome (a denial's code too),
// transport, duration and audit id show whole, and the key, session and
// repository ids, which the detail pane shows whole, end in an ellipsis.
var auditColumns = []struct {
	title string
	width float32
}{
	{"Time", 150}, {"Method", 122}, {"Outcome", 160}, {"Transport", 86}, {"Key", 96},
	{"Session", 98}, {"Repository", 97}, {"Duration", 80}, {"Audit id", 86},
}

// columnsLayout lays its objects out side by side, each column's share of
// the width in proportion to its width in auditColumns, so the header and
// every row line up, and the table fits its pane without a horizontal
// scroll bar (cells truncate with an ellipsis).
type columnsLayout struct{}

func auditColumnsWidth() float32 {
	total := float32(0)
	for _, c := range auditColumns {
		total += c.width
	}
	return total
}

func (columnsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	scale := size.Width / auditColumnsWidth()
	x := float32(0)
	for i, o := range objs {
		w := auditColumns[i].width * scale
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(w, size.Height))
		x += w
	}
}

func (columnsLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(auditColumnsWidth()/2, h)
}

// do runs fn on the Fyne goroutine, holding w.mu. The real driver runs
// every fyne.Do on one goroutine; the test driver runs it on the caller's,
// and the lock keeps the window's state consistent there too.
func (w *auditWindow) do(fn func()) {
	fyne.Do(func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		select {
		case <-w.stopRefresh:
			// Closed: a late page or verification has nowhere to go.
			return
		default:
		}
		fn()
	})
}

// showAudit opens the Audit window, or brings it forward.
func (g *gui) showAudit() {
	if g.audit == nil {
		g.audit = newAuditWindow(g)
	}
	g.audit.win.Show()
	g.audit.win.RequestFocus()
}

func newAuditWindow(g *gui) *auditWindow {
	w := &auditWindow{
		g: g, win: g.app.NewWindow(titleAudit), src: auditSource{g},
		cache: newAuditCache(auditCachePages), inflight: map[int]bool{},
		fetchers: make(chan struct{}, auditFetchers), stopRefresh: make(chan struct{}),
		now: time.Now,
	}
	// The goroutines started below apply their results only once the
	// window is built.
	w.mu.Lock()
	defer w.mu.Unlock()
	sel := func(hint string, options ...string) *widget.SelectEntry {
		e := widget.NewSelectEntry(options)
		e.SetPlaceHolder(hint)
		e.OnSubmitted = func(string) { w.apply() }
		return e
	}
	entry := func(hint string) *widget.Entry {
		e := widget.NewEntry()
		e.SetPlaceHolder(hint)
		e.OnSubmitted = func(string) { w.apply() }
		return e
	}
	var methods []string
	for _, m := range g.core.Registry().Methods() {
		methods = append(methods, m.Name)
	}
	w.method = sel("method", methods...)
	w.outcome = sel("outcome", "ok", outcomeNotOK)
	w.keyID = sel("key id")
	w.session = sel("session")
	w.transport = sel("transport", string(mcpserver.TransportGUI), string(mcpserver.TransportRPC), string(mcpserver.TransportMCP),
		string(mcpserver.TransportMCPSSE), string(mcpserver.TransportMCPStdio), string(mcpserver.TransportSupervisor))
	w.repository = sel("repository")
	w.from = entry("from: 2026-11-30 14:00 or -1h")
	w.to = entry("to")
	w.text = entry("text in any field")
	w.applyBtn = widget.NewButtonWithIcon(labelApply, theme.SearchIcon(), w.apply)
	w.applyBtn.Importance = widget.HighImportance
	clear := widget.NewButton(labelClear, w.clearFilters)
	filters := container.NewVBox(
		container.NewGridWithColumns(6, w.method, w.outcome, w.keyID, w.session, w.transport, w.repository),
		container.NewBorder(nil, nil, nil, container.NewHBox(w.applyBtn, clear),
			container.NewGridWithColumns(3, w.from, w.to, w.text)))

	heads := make([]fyne.CanvasObject, len(auditColumns))
	for i, c := range auditColumns {
		h := widget.NewLabelWithStyle(c.title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		h.Truncation = fyne.TextTruncateEllipsis
		heads[i] = h
	}
	w.header = container.New(columnsLayout{}, heads...)
	w.list = widget.NewList(w.length, w.createRow, w.updateRow)
	w.list.OnSelected = w.selectRow
	table := container.NewBorder(w.header, nil, nil, nil, w.list)

	w.detail = widget.NewLabel(labelNoRecord)
	w.detail.TextStyle.Monospace = true
	w.detail.Selectable = true
	w.detail.Wrapping = fyne.TextWrapBreak
	w.copy = widget.NewButtonWithIcon(labelCopyJSON, theme.ContentCopyIcon(), w.copyJSON)
	w.copy.Disable()
	side := container.NewBorder(
		widget.NewLabelWithStyle("Record", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewHBox(w.copy), nil, nil, container.NewVScroll(w.detail))

	w.count = widget.NewLabel("")
	w.chain = widget.NewLabel("")
	w.chain.Truncation = fyne.TextTruncateEllipsis
	w.export = widget.NewLabel("")
	w.verify = widget.NewButtonWithIcon(labelVerify, theme.ConfirmIcon(), w.runVerify)
	w.exportJ = widget.NewButtonWithIcon(labelExportJSONL, theme.DocumentSaveIcon(), func() { w.pickExport("jsonl") })
	w.exportC = widget.NewButtonWithIcon(labelExportCSV, theme.DocumentSaveIcon(), func() { w.pickExport("csv") })
	w.bottom = container.NewBorder(nil, nil, container.NewHBox(w.count, w.export),
		container.NewHBox(w.verify, w.exportJ, w.exportC), w.chain)

	split := container.NewHSplit(table, side)
	split.SetOffset(0.77)
	w.win.SetContent(container.NewBorder(filters, w.bottom, nil, nil, split))
	w.win.Resize(fyne.NewSize(1280, 760))
	w.win.SetOnClosed(func() {
		w.closeOnce.Do(func() { close(w.stopRefresh) })
		if g.audit == w {
			g.audit = nil
		}
	})
	w.open(auditQuery{})
	w.runVerify()
	// Subscribed here, not in the goroutine: a change committed before
	// the goroutine first ran would be missed.
	go w.tailLoop(g.core.Registry().Changed())
	return w
}

// readQuery reads the filters.
func (w *auditWindow) readQuery() (auditQuery, error) {
	var q auditQuery
	q.filter = store.AuditFilter{
		Method:     strings.TrimSpace(w.method.Text),
		Outcome:    strings.TrimSpace(w.outcome.Text),
		KeyID:      strings.TrimSpace(w.keyID.Text),
		SessionID:  strings.TrimSpace(w.session.Text),
		Transport:  strings.TrimSpace(w.transport.Text),
		Repository: strings.TrimSpace(w.repository.Text),
	}
	if q.filter.Outcome == outcomeNotOK {
		q.filter.Outcome, q.notOK = "", true
	}
	q.text = strings.ToLower(strings.TrimSpace(w.text.Text))
	now := w.now()
	var err error
	if q.from, err = parseAuditTime(w.from.Text, now); err != nil {
		return q, err
	}
	if q.to, err = parseAuditTime(w.to.Text, now); err != nil {
		return q, err
	}
	return q, nil
}

func (w *auditWindow) apply() {
	q, err := w.readQuery()
	if err != nil {
		w.setStatus(w.count, err.Error())
		return
	}
	w.open(q)
}

func (w *auditWindow) clearFilters() {
	for _, e := range []*widget.SelectEntry{w.method, w.outcome, w.keyID, w.session, w.transport, w.repository} {
		e.SetText("")
	}
	for _, e := range []*widget.Entry{w.from, w.to, w.text} {
		e.SetText("")
	}
	w.open(auditQuery{})
}

// open starts a new view of the log under q: it finds the newest record
// and the time range's seqs off the Fyne goroutine, then shows the rows.
func (w *auditWindow) open(q auditQuery) {
	gen := w.view.gen + 1
	w.view = auditView{gen: gen, q: q, whole: q.whole()}
	w.cache = newAuditCache(auditCachePages)
	w.inflight = map[int]bool{}
	w.pending = nil
	w.firstRows = make(chan struct{})
	w.setStatus(w.count, "reading…")
	w.list.UnselectAll()
	w.list.ScrollToTop()
	w.list.Refresh()
	go func() {
		var first []store.AuditRecord
		floor, top, next := uint64(1), uint64(0), uint64(0)
		var err error
		switch {
		case q.whole():
			// The newest two pages in one call: they give the row count
			// and the first screen together.
			var res mcpserver.AuditRecords
			if res, err = w.src.query(store.AuditFilter{Limit: 2 * auditPageSize}); err == nil && len(res.Records) > 0 {
				first, top = res.Records, res.Records[0].Seq
			}
		case q.from.IsZero() && q.to.IsZero():
			// Scan from the newest record on; the first page found sets
			// the view's top.
			next = math.MaxUint64
		default:
			var newest uint64
			if newest, err = w.src.newest(); err == nil {
				floor, top, err = w.src.bounds(q, newest)
			}
			next = top + 1
		}
		w.do(func() {
			if w.view.gen != gen {
				return
			}
			v := &w.view
			v.ready, v.err = true, err
			v.top, v.floor, v.next = top, floor, next
			v.done = err != nil || (!v.whole && next <= floor)
			if v.whole {
				w.cacheWholePages(first)
			}
			w.showCount()
			w.list.Refresh()
		})
	}()
}

// cacheWholePages keeps the complete pages of the whole log among recs,
// which run newest first without a gap: a page is complete when recs reach
// its oldest seq (the newest page is complete from the view's top down).
func (w *auditWindow) cacheWholePages(recs []store.AuditRecord) {
	for len(recs) > 0 {
		key := int((recs[0].Seq - 1) / auditPageSize)
		bottom := uint64(key)*auditPageSize + 1
		n := int(recs[0].Seq-bottom) + 1
		if n > len(recs) {
			return
		}
		w.cache.put(key, recs[:n:n])
		recs = recs[n:]
	}
}

// length is the list's row count: the whole log's size, or the rows found
// so far and one "loading…" row while older ones may match.
func (w *auditWindow) length() int {
	v := &w.view
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

func (w *auditWindow) showCount() {
	v := &w.view
	switch {
	case !v.ready:
		w.setStatus(w.count, "reading…")
	case v.err != nil:
		w.setStatus(w.count, "Could not read the log: "+v.err.Error())
	case v.whole:
		w.setStatus(w.count, plural(int(v.top), "record"))
	case v.done:
		w.setStatus(w.count, plural(v.rows, "matching record"))
	default:
		w.setStatus(w.count, fmt.Sprintf("%d+ matching records (scanned down to %s)", v.rows, store.AuditID(v.next)))
	}
}

// setStatus sets one label of the status line and lays the line out again:
// a label that grows does not move its neighbours by itself.
func (w *auditWindow) setStatus(l *widget.Label, text string) {
	if l.Text == text {
		return
	}
	l.SetText(text)
	w.bottom.Refresh()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func (w *auditWindow) createRow() fyne.CanvasObject {
	cells := make([]fyne.CanvasObject, len(auditColumns))
	for i := range cells {
		l := widget.NewLabel("")
		l.Truncation = fyne.TextTruncateEllipsis
		cells[i] = l
	}
	return container.New(columnsLayout{}, cells...)
}

func (w *auditWindow) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	cells := o.(*fyne.Container).Objects
	r, ok := w.record(i)
	for j, c := range cells {
		text, imp := "", widget.MediumImportance
		switch {
		case !ok && j == 0:
			text, imp = labelLoadingRow, widget.LowImportance
		case !ok:
		case j == 0:
			text = r.Time.Local().Format(auditTimeLayout)
		case j == 1:
			text = r.Method
		case j == 2 && r.Outcome == "ok":
			text = "✓ ok"
		case j == 2:
			text, imp = "✕ "+r.Outcome, widget.DangerImportance
		case j == 3:
			text = r.Transport
		case j == 4:
			text = r.KeyID
		case j == 5:
			text = r.SessionID
		case j == 6:
			text = r.Repository
		case j == 7:
			text = auditDuration(r.DurationMicros)
		case j == 8:
			text = shortAuditID(r)
		}
		// The list updates every visible row whenever a page arrives;
		// a label refreshed with the same text is laid out again for
		// nothing.
		if l := c.(*widget.Label); l.Text != text || l.Importance != imp {
			l.Importance = imp
			l.SetText(text)
		}
	}
	if ok && w.firstRows != nil {
		close(w.firstRows)
		w.firstRows = nil
	}
}

// record returns row i's record, asking for its page when it is not in
// memory.
func (w *auditWindow) record(i int) (*store.AuditRecord, bool) {
	v := &w.view
	if !v.ready || i < 0 {
		return nil, false
	}
	if v.whole {
		if uint64(i) >= v.top {
			return nil, false
		}
		seq := v.top - uint64(i)
		key := int((seq - 1) / auditPageSize)
		recs, ok := w.cache.get(key)
		if !ok {
			w.fetchPage(key)
			return nil, false
		}
		if len(recs) == 0 || recs[0].Seq < seq {
			return nil, false
		}
		j := int(recs[0].Seq - seq)
		if j >= len(recs) {
			return nil, false
		}
		return &recs[j], true
	}
	if i >= v.rows {
		w.fetchNext()
		return nil, false
	}
	n := sort.Search(len(v.offsets), func(k int) bool { return v.offsets[k] > i }) - 1
	sp := v.spans[n]
	recs, ok := w.cache.get(sp.key)
	if !ok {
		w.fetchSpan(sp)
		return nil, false
	}
	j := i - v.offsets[n]
	if j >= len(recs) {
		return nil, false
	}
	return &recs[j], true
}

// fetchPage reads page key of the whole log off the Fyne goroutine.
func (w *auditWindow) fetchPage(key int) {
	if w.inflight[key] {
		return
	}
	w.inflight[key] = true
	w.pending = append(w.pending, key)
	if len(w.pending) > auditPendingMax {
		// Dragging the scroll bar across the log asks for page after
		// page: forget the oldest asks, which are off screen by now (a
		// page still on screen is asked for again at the next refresh).
		delete(w.inflight, w.pending[0])
		w.pending = slices.Delete(w.pending, 0, 1)
	}
	w.pumpPages()
}

// pumpPages starts reads of the pages asked for most recently, up to
// auditFetchers at a time.
func (w *auditWindow) pumpPages() {
	for w.reading < auditFetchers && len(w.pending) > 0 {
		key := w.pending[len(w.pending)-1]
		w.pending = w.pending[:len(w.pending)-1]
		w.reading++
		gen := w.view.gen
		go func() {
			res, err := w.src.query(store.AuditFilter{BeforeSeq: uint64(key+1)*auditPageSize + 1, Limit: auditPageSize})
			w.do(func() {
				w.reading--
				defer w.pumpPages()
				if w.view.gen != gen {
					return
				}
				delete(w.inflight, key)
				if err != nil {
					w.g.log.Warn("audit: read page", "err", err)
					return
				}
				w.cache.put(key, res.Records)
				w.list.Refresh()
			})
		}()
	}
}

// fetchSpan reads again a filtered page that the cache dropped.
func (w *auditWindow) fetchSpan(sp *auditSpan) {
	if w.inflight[sp.key] {
		return
	}
	w.inflight[sp.key] = true
	gen, q, floor := w.view.gen, w.view.q, w.view.floor
	go func() {
		w.fetchers <- struct{}{}
		defer func() { <-w.fetchers }()
		recs, _, _, err := w.src.scan(q, sp.before, floor, sp.count, 0)
		w.do(func() {
			if w.view.gen != gen {
				return
			}
			delete(w.inflight, sp.key)
			if err != nil {
				w.g.log.Warn("audit: read page", "err", err)
				return
			}
			w.cache.put(sp.key, recs)
			w.list.Refresh()
		})
	}()
}

// fetchNext reads the next older page of a filtered view: the person has
// scrolled to its end.
func (w *auditWindow) fetchNext() {
	const key = -1
	v := &w.view
	if v.done || w.inflight[key] {
		return
	}
	w.inflight[key] = true
	gen, q, floor, before := v.gen, v.q, v.floor, v.next
	want := auditPageSize
	if v.rows == 0 {
		// A screen's worth first: with a rare filter, the first rows
		// show after a fraction of the scan a full page needs.
		want = auditFirstPage
	}
	go func() {
		recs, next, done, err := w.src.scan(q, before, floor, want, auditScanCalls)
		w.do(func() {
			if w.view.gen != gen {
				return
			}
			delete(w.inflight, key)
			v := &w.view
			if err != nil {
				v.err, v.done = err, true
			} else {
				if len(recs) > 0 {
					// Nothing between the first match and before
					// matches: the span reads back the same from just
					// above its first record, whatever was appended
					// since.
					w.addSpan(&auditSpan{before: recs[0].Seq + 1, count: len(recs)}, recs, false)
					v.top = max(v.top, recs[0].Seq)
				}
				v.next, v.done = next, done
			}
			w.showCount()
			w.list.Refresh()
		})
	}()
}

// addSpan adds a page to a filtered view: at the end, or at the front for
// records the live tail found.
func (w *auditWindow) addSpan(sp *auditSpan, recs []store.AuditRecord, front bool) {
	v := &w.view
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
	w.cache.put(sp.key, recs)
}

func (w *auditWindow) selectRow(i widget.ListItemID) {
	r, ok := w.record(i)
	if !ok {
		return
	}
	rec := *r
	w.selected = &rec
	w.detail.SetText(auditDetail(rec))
	w.copy.Enable()
}

// shortAuditID is r's id without the leading zeros of its number, which
// take most of the column; the detail pane shows it whole.
func shortAuditID(r *store.AuditRecord) string {
	return "aud_" + strconv.FormatUint(r.Seq, 16)
}

// auditDuration is a call's duration as the table shows it: to three
// figures, so it fits its column (the detail pane has it whole).
func auditDuration(us int64) string {
	d := time.Duration(us) * time.Microsecond
	switch {
	case d >= 100*time.Second:
		d = d.Round(time.Second)
	case d >= 10*time.Second:
		d = d.Round(100 * time.Millisecond)
	case d >= time.Second:
		d = d.Round(10 * time.Millisecond)
	case d >= 100*time.Millisecond:
		d = d.Round(time.Millisecond)
	case d >= 10*time.Millisecond:
		d = d.Round(100 * time.Microsecond)
	case d >= time.Millisecond:
		d = d.Round(10 * time.Microsecond)
	}
	return d.String()
}

// auditDetail is every field of r: a name, and under it the value. The
// pane is narrow, and a value beside its name would wrap under the names
// (a hash always does).
func auditDetail(r store.AuditRecord) string {
	var b strings.Builder
	line := func(k, v string) {
		if v == "" {
			v = "—"
		}
		fmt.Fprintf(&b, "%s\n  %s\n", k, v)
	}
	line("audit id", r.ID)
	line("seq", strconv.FormatUint(r.Seq, 10))
	line("time", r.Time.Local().Format("2006-01-02 15:04:05.000 MST"))
	line("time (UTC)", r.Time.UTC().Format(time.RFC3339Nano))
	line("method", r.Method)
	line("outcome", r.Outcome)
	line("transport", r.Transport)
	line("key id", r.KeyID)
	line("session", r.SessionID)
	line("repository", r.Repository)
	line("duration", (time.Duration(r.DurationMicros) * time.Microsecond).String())
	line("args digest", r.ArgsDigest)
	line("prev hash", r.PrevHash)
	line("hash", r.Hash)
	return b.String()
}

func (w *auditWindow) copyJSON() {
	if w.selected == nil {
		return
	}
	b, err := json.MarshalIndent(w.selected, "", "  ")
	if err != nil {
		return
	}
	w.g.app.Clipboard().SetContent(string(b))
}

// runVerify checks the hash chain off the Fyne goroutine.
func (w *auditWindow) runVerify() {
	w.chain.Importance = widget.MediumImportance
	w.chain.SetText(labelVerifying)
	w.verify.Disable()
	finished := make(chan struct{})
	start := w.now()
	go func() {
		// The check reports no progress of its own: say at least that
		// it still runs, once a second.
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-finished:
				return
			case <-w.stopRefresh:
				return
			case <-t.C:
				secs := int(w.now().Sub(start).Seconds())
				w.do(func() {
					if strings.HasPrefix(w.chain.Text, labelVerifying) {
						w.chain.SetText(fmt.Sprintf("%s %d s", labelVerifying, secs))
					}
				})
			}
		}
	}()
	go func() {
		v, err := w.verifyAuditChain()
		took := w.now().Sub(start).Round(time.Millisecond)
		close(finished)
		w.do(func() {
			w.verify.Enable()
			if err != nil {
				w.chain.Importance = widget.DangerImportance
				w.chain.SetText(fmt.Sprintf("Hash chain NOT verified after %d good records: %v", v.Records, err))
				return
			}
			w.chain.Importance = widget.SuccessImportance
			w.chain.SetText(fmt.Sprintf("Hash chain verified: %d records, last hash %s (%s)", v.Records, v.LastHash, took))
		})
	}()
}

// verifyAuditChain checks the whole hash chain through audit.verify: an
// audited call like any other, whose long read runs outside the shared
// write transaction (it is a Slow method), so agents are not held up.
func (w *auditWindow) verifyAuditChain() (store.AuditVerification, error) {
	var out mcpserver.AuditVerifyResult
	if err := w.g.call("audit.verify", mcpserver.NoArgs{}, &out); err != nil {
		return store.AuditVerification{}, err
	}
	if !out.OK {
		return out.Verification, errors.New(out.Problem)
	}
	return out.Verification, nil
}

// tailLoop follows the log while the window is open: when the registry says
// a change committed (at most every auditTailEvery), and the person looks
// at the newest records, the new ones are added at the top.
func (w *auditWindow) tailLoop(ch <-chan struct{}) {
	reg := w.g.core.Registry()
	for {
		select {
		case <-w.stopRefresh:
			return
		case <-ch:
		}
		select {
		case <-w.stopRefresh:
			return
		case <-time.After(auditTailEvery):
		}
		// Subscribe before reading, so a change after the read is not
		// missed.
		ch = reg.Changed()
		done := make(chan struct{})
		w.do(func() { w.tail(done) })
		select {
		case <-w.stopRefresh:
			return
		case <-done:
		}
	}
}

// tail adds the records newer than the view's top, when the person is at
// the top and the view has no upper time bound. done is closed when it has
// finished.
func (w *auditWindow) tail(done chan struct{}) {
	v := &w.view
	if !v.ready || v.err != nil || !v.q.to.IsZero() || w.list.GetScrollOffset() > 0 ||
		(!v.whole && v.top == 0 && !v.done) {
		// A filtered view with no match yet is still scanning the old
		// records: what the tail found, the scan might find again.
		close(done)
		return
	}
	gen, q, top, whole := v.gen, v.q, v.top, v.whole
	go func() {
		defer close(done)
		if whole {
			newest, err := w.src.newest()
			if err != nil || newest <= top {
				return
			}
			w.do(func() {
				if w.view.gen != gen {
					return
				}
				// The newest page was partial; it is not any more.
				if top > 0 {
					w.cache.drop(int((top - 1) / auditPageSize))
				}
				w.view.top = newest
				// The rows moved down: a highlight would now mark
				// another record than the one in the detail pane.
				w.list.UnselectAll()
				w.showCount()
				w.list.Refresh()
			})
			return
		}
		f := q.filter
		f.AfterSeq, f.Limit = top, auditScanBatch
		res, err := w.src.query(f)
		if err != nil || len(res.Records) == 0 {
			return
		}
		if top == 0 {
			// The view matched nothing: every match is new, but
			// without AfterSeq they come newest first.
			slices.Reverse(res.Records)
		}
		newTop := res.Records[len(res.Records)-1].Seq
		var recs []store.AuditRecord
		for i := len(res.Records) - 1; i >= 0; i-- {
			if q.matchClient(&res.Records[i]) {
				recs = append(recs, res.Records[i])
			}
		}
		w.do(func() {
			if w.view.gen != gen {
				return
			}
			w.addSpan(&auditSpan{before: newTop + 1, count: len(recs)}, recs, true)
			w.view.top = newTop
			if len(recs) > 0 {
				w.list.UnselectAll()
			}
			w.showCount()
			w.list.Refresh()
		})
	}()
}

// pickExport asks for a file and exports the current view into it.
func (w *auditWindow) pickExport(format string) {
	q, top, floor := w.view.q, w.view.top, w.view.floor
	if !w.view.ready {
		return
	}
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil || wc == nil {
			return
		}
		path := wc.URI().Path()
		wc.Close()
		w.setStatus(w.export, "exporting…")
		w.exportJ.Disable()
		w.exportC.Disable()
		go func() {
			n, err := exportAudit(w.src, q, top, floor, path, format, func(n int) {
				w.do(func() { w.setStatus(w.export, fmt.Sprintf("exporting… %d records", n)) })
			})
			w.do(func() {
				w.exportJ.Enable()
				w.exportC.Enable()
				if err != nil {
					w.setStatus(w.export, "")
					dialog.ShowError(err, w.win)
					return
				}
				w.setStatus(w.export, fmt.Sprintf("exported %s to %s", plural(n, "record"), path))
			})
		}()
	}, w.win)
	d.SetFileName("switchboard-audit." + format)
	d.Show()
}

// csvText defuses a field a spreadsheet would run as a formula. A denied
// call records the method name the caller sent, whatever it was, so a
// stranger could otherwise plant "=HYPERLINK(…)" in an export.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

var auditCSVHeader = []string{"seq", "id", "time", "transport", "keyid", "session_id", "method", "repository_id", "outcome", "duration_us", "args_digest", "prev_hash", "hash"}

// exportAudit writes the records of q with seqs in [floor, top], newest
// first, to path as JSON lines ("jsonl") or CSV ("csv"), readable by the
// owner only. It reads the log in pages and reports the count after each.
// A top of 0 exports up to the newest record.
func exportAudit(src auditSource, q auditQuery, top, floor uint64, path, format string, progress func(int)) (n int, err error) {
	if format != "jsonl" && format != "csv" {
		return 0, fmt.Errorf("export format %q: want jsonl or csv", format)
	}
	if top == 0 {
		newest, err := src.newest()
		if err != nil {
			return 0, err
		}
		if floor, top, err = src.bounds(q, newest); err != nil {
			return 0, err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	// The file dialog may have created it with the default mode first.
	if err := f.Chmod(0o600); err != nil {
		return 0, fmt.Errorf("make %s owner-only: %w", path, err)
	}
	bw := bufio.NewWriter(f)
	var cw *csv.Writer
	enc := json.NewEncoder(bw)
	if format == "csv" {
		cw = csv.NewWriter(bw)
		if err := cw.Write(auditCSVHeader); err != nil {
			return 0, err
		}
	}
	before := top + 1
	for done := false; !done; {
		var recs []store.AuditRecord
		recs, before, done, err = src.scan(q, before, max(floor, 1), auditExportBatch, 0)
		if err != nil {
			return n, err
		}
		for _, r := range recs {
			if cw != nil {
				err = cw.Write([]string{strconv.FormatUint(r.Seq, 10), r.ID, r.Time.UTC().Format(time.RFC3339Nano),
					csvText(r.Transport), csvText(r.KeyID), csvText(r.SessionID), csvText(r.Method), csvText(r.Repository), csvText(r.Outcome),
					strconv.FormatInt(r.DurationMicros, 10), r.ArgsDigest, r.PrevHash, r.Hash})
			} else {
				err = enc.Encode(r)
			}
			if err != nil {
				return n, err
			}
		}
		n += len(recs)
		if progress != nil {
			progress(n)
		}
	}
	if cw != nil {
		cw.Flush()
		if err := cw.Error(); err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}
