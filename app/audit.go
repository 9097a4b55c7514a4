package app

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// Audit window labels, also what the tests tap.
const (
	titleAudit         = "Switchboard — Audit"
	labelApply         = "Apply"
	labelClear         = "Clear"
	labelVerify        = "Verify"
	labelShowRefreshes = "Show the app's refreshes"
	labelExportJSONL   = "Export JSONL…"
	labelExportCSV     = "Export CSV…"
	labelCopyJSON      = "Copy as JSON"
	labelLoadingRow    = "loading…"
	labelNoRecord      = "Select a record."
	labelVerifying     = "Verifying the hash chain…"
)

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
	// methodNames maps the method filter's options, in words, to the
	// methods' names.
	methodNames    map[string]string
	from, to, text *widget.Entry
	// refreshes shows the app's own refresh reads (store.AuditRecord.IsView),
	// which the log keeps apart and the window leaves out by default.
	refreshes *widget.Check

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
		g: g, win: g.app.NewWindow(titleAudit), src: auditSource{g, mcpserver.TransportGUIView},
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
	w.methodNames = map[string]string{}
	for _, m := range g.core.Registry().Methods() {
		words := methodWords(m.Name)
		w.methodNames[words] = m.Name
		methods = append(methods, words)
	}
	slices.Sort(methods)
	w.method = sel("method", methods...)
	w.outcome = sel("outcome", "ok", outcomeNotOK)
	w.keyID = sel("key id")
	w.session = sel("session")
	w.transport = sel("transport", string(mcpserver.TransportGUI), string(mcpserver.TransportRPC), string(mcpserver.TransportMCP),
		string(mcpserver.TransportMCPSSE), string(mcpserver.TransportMCPStdio), string(mcpserver.TransportSupervisor), string(mcpserver.TransportHook),
		string(mcpserver.TransportGUIView))
	w.repository = sel("repository")
	w.from = entry("from: 2026-11-30 14:00 or -1h")
	w.to = entry("to")
	w.text = entry("text in any field")
	w.refreshes = widget.NewCheck(labelShowRefreshes, func(bool) { w.apply() })
	w.applyBtn = widget.NewButtonWithIcon(labelApply, theme.SearchIcon(), w.apply)
	w.applyBtn.Importance = widget.HighImportance
	clear := widget.NewButton(labelClear, w.clearFilters)
	filters := container.NewVBox(
		container.NewGridWithColumns(6, w.method, w.outcome, w.keyID, w.session, w.transport, w.repository),
		container.NewBorder(nil, nil, nil, container.NewHBox(w.refreshes, w.applyBtn, clear),
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
	w.verify = widget.NewButtonWithIcon(labelVerify, theme.ConfirmIcon(), func() { w.runVerify(mcpserver.TransportGUI) })
	w.exportJ = widget.NewButtonWithIcon(labelExportJSONL, theme.DocumentSaveIcon(), func() { w.pickExport("jsonl") })
	w.exportC = widget.NewButtonWithIcon(labelExportCSV, theme.DocumentSaveIcon(), func() { w.pickExport("csv") })
	w.bottom = container.NewBorder(nil, nil, container.NewHBox(w.count, w.export),
		container.NewHBox(w.verify, w.exportJ, w.exportC), w.chain)

	split := container.NewHSplit(table, side)
	split.SetOffset(0.77)
	w.win.SetContent(container.NewBorder(filters, w.bottom, nil, nil, split))
	g.place(w.win, windowAudit, func() {
		w.closeOnce.Do(func() { close(w.stopRefresh) })
		if g.audit == w {
			g.audit = nil
		}
	})
	w.open(auditQuery{})
	// The check as the window opens is the window's own doing, a view;
	// the Verify button is the person's.
	w.runVerify(mcpserver.TransportGUIView)
	// Subscribed here, not in the goroutine: a change committed before
	// the goroutine first ran would be missed.
	go w.tailLoop(g.core.Registry().Changed())
	return w
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
		floor, top, next, lastSeq := uint64(1), uint64(0), uint64(0), uint64(0)
		var err error
		switch {
		case q.whole():
			// The newest two pages in one call: they give the row count
			// and the first screen together.
			var res mcpserver.AuditRecords
			if res, err = w.src.query(store.AuditFilter{Limit: 2 * auditPageSize, Views: q.filter.Views}); err == nil && len(res.Records) > 0 {
				first = res.Records
			}
			lastSeq = res.LastSeq
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
				if len(first) > 0 {
					v.setWholeTop(&first[0], lastSeq)
				}
				w.cache.putWholePages(v, first)
			}
			w.showCount()
			w.list.Refresh()
		})
	}()
}

// length is the list's row count (auditView.length).
func (w *auditWindow) length() int { return w.view.length() }

func (w *auditWindow) showCount() {
	v := &w.view
	switch {
	case !v.ready:
		w.setStatus(w.count, "reading…")
	case v.err != nil:
		w.setStatus(w.count, "Could not read the log: "+v.err.Error())
	case v.whole && v.q.filter.Views:
		w.setStatus(w.count, plural(int(v.top), "record"))
	case v.whole:
		hidden := fmt.Sprintf("%d app refreshes hidden", v.hidden)
		if v.hidden == 1 {
			hidden = "1 app refresh hidden"
		}
		w.setStatus(w.count, plural(int(v.top), "record")+" · "+hidden)
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
