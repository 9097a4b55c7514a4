package app

// The Audit window's page reads: off the Fyne goroutine, a few at a time,
// their results applied through do.

import (
	"slices"

	"github.com/switchboard-dev/switchboard/store"
)

const (
	// auditFetchers bounds the page reads in flight while the person
	// drags the scroll bar across a million rows, and auditPendingMax
	// the pages waiting for one.
	auditFetchers   = 4
	auditPendingMax = 8
)

// record returns row i's record, asking for its page when it is not in
// memory.
func (w *auditWindow) record(i int) (*store.AuditRecord, bool) {
	r, miss := w.view.record(w.cache, i)
	switch miss.read {
	case readPage:
		w.fetchPage(miss.key)
	case readSpan:
		w.fetchSpan(miss.span)
	case readNext:
		w.fetchNext()
	}
	return r, r != nil
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
		gen, f := w.view.gen, w.view.pageFilter(key)
		go func() {
			res, err := w.src.query(f)
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
					v.addSpan(w.cache, &auditSpan{before: recs[0].Seq + 1, count: len(recs)}, recs, false)
					v.top = max(v.top, recs[0].Seq)
				}
				v.next, v.done = next, done
			}
			w.showCount()
			w.list.Refresh()
		})
	}()
}
