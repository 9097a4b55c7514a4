package app

// How the Audit window reads the log: through the registry, by sequence,
// off the Fyne goroutine.

import (
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// auditSource reads the log through the registry over transport t: the
// window's own reads as it shows and follows the log are views (see view),
// an export the person asked for is not. Its methods run off the Fyne
// goroutine.
type auditSource struct {
	g *gui
	t mcpserver.Transport
}

// query runs audit.query. The result is the handler's own value: a page
// of a thousand records is not encoded and decoded again.
func (s auditSource) query(f store.AuditFilter) (mcpserver.AuditRecords, error) {
	return call(s.g, s.t, mcpserver.MethodAuditQuery, f)
}

// newest returns the newest record, views included: its seq, 0 for an
// empty log.
func (s auditSource) newest() (uint64, error) {
	r, _, err := s.newestIn(true)
	return r.Seq, err
}

// newestIn returns the newest record of the whole log, with the app's
// refreshes (views) or without, and the log's newest seq when it was read;
// a zero record for an empty log.
func (s auditSource) newestIn(views bool) (store.AuditRecord, uint64, error) {
	res, err := s.query(store.AuditFilter{Limit: 1, Views: views})
	if err != nil || len(res.Records) == 0 {
		return store.AuditRecord{}, res.LastSeq, err
	}
	return res.Records[0], res.LastSeq, nil
}

// at returns the record with sequence seq (the log, views included, has no
// gaps).
func (s auditSource) at(seq uint64) (store.AuditRecord, error) {
	res, err := s.query(store.AuditFilter{BeforeSeq: seq + 1, Limit: 1, Views: true})
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
