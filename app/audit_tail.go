package app

// The Audit window's live tail: new records are added at the top as they
// are written.

import (
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// auditTailEvery throttles the live tail: a busy agent must not make the
// window read the log for each of its calls.
const auditTailEvery = 500 * time.Millisecond

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
			r, lastSeq, err := w.src.newestIn(q.filter.Views)
			if err != nil {
				return
			}
			var newest uint64
			w.do(func() {
				if w.view.gen != gen {
					return
				}
				if newest = w.view.pos(&r); newest <= top {
					// No new record to show; the count of the
					// refreshes hidden may have grown.
					if !q.filter.Views && newest > 0 {
						w.view.setWholeTop(&r, lastSeq)
						w.showCount()
					}
					return
				}
				// The newest page was partial; it is not any more.
				if top > 0 {
					w.cache.drop(int((top - 1) / auditPageSize))
				}
				w.view.setWholeTop(&r, lastSeq)
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
			w.view.addSpan(w.cache, &auditSpan{before: newTop + 1, count: len(recs)}, recs, true)
			w.view.top = newTop
			if len(recs) > 0 {
				w.list.UnselectAll()
			}
			w.showCount()
			w.list.Refresh()
		})
	}()
}
