package store

// The audit log's view class: the GUI's own background refresh reads,
// chained like every other record but left out of the default query.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// ViewTransport is the transport of the GUI's background refresh reads
// (mcpserver.TransportGUIView): a window re-reading what it shows on a timer
// or after a change. An idle tray with two windows open writes dozens of
// them a minute, which would bury what happened.
//
// The store knows this one transport name because the class is read from
// fields the hash covers: no one can move a record in or out of the default
// view without breaking the chain.
const ViewTransport = "gui-view"

// IsView reports whether r is a view: a refresh read that succeeded. A view
// that was refused or failed stays in the default query, since it is
// something to look at (a mislabelled write refused over the view
// transport, a window whose reads fail).
func (r *AuditRecord) IsView() bool { return r.Transport == ViewTransport && r.Outcome == "ok" }

// bucketAuditShown indexes the records the default query shows (every one
// but the views) by their rank among them: key n is the n-th shown record,
// its value that record's seq. The query walks the index and never reads
// the views it skips. It indexes the shown records, not the views, because
// the default query is the one that must stay fast, and a log is mostly
// views while a GUI is open. The ranks are dense, so the shown records can
// be paged by position (AuditFilter.BeforeRank) as the whole log is by
// seq: the Audit window scrolls anywhere in them with one read.
var bucketAuditShown = []byte("audit_shown")

// indexShown gives seq the next rank in the index of shown records.
func indexShown(tx kvTx, seq uint64) error {
	b := tx.Bucket(bucketAuditShown)
	b.Appending()
	rank, err := b.NextSequence()
	if err != nil {
		return fmt.Errorf("rank audit record %d: %w", seq, err)
	}
	if err := b.Put(u64(rank), u64(seq)); err != nil {
		return fmt.Errorf("index audit record %d: %w", seq, err)
	}
	return nil
}

// migrateAuditShown builds the index of shown records from the log: every
// record written before it existed is indexed unless it is a view (none
// should be: the view transport came with the index). It reads only the
// two fields IsView needs, and is frozen here as schema 6 wrote it.
func migrateAuditShown(tx kvTx) error {
	if _, err := tx.CreateBucketIfNotExists(bucketAuditShown); err != nil {
		return fmt.Errorf("create bucket %s: %w", bucketAuditShown, err)
	}
	c := tx.Bucket(bucketAudit).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var r struct {
			Transport string `json:"transport"`
			Outcome   string `json:"outcome"`
		}
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("decode audit record %x: %w", k, err)
		}
		if r.Transport == ViewTransport && r.Outcome == "ok" {
			continue
		}
		if len(k) != 8 {
			return fmt.Errorf("audit key %x is not a sequence number", k)
		}
		if err := indexShown(tx, binary.BigEndian.Uint64(k)); err != nil {
			return err
		}
	}
	return nil
}

// auditCursor walks audit records in sequence order: every record, or
// through the index only the shown ones. Its methods return a record's seq
// key and JSON like a bbolt cursor over the log; rank is the shown rank of
// the record last returned through the index.
type auditCursor struct {
	c    kvCursor
	idx  kvBucket // set when c walks the index
	log  kvCursor // the records the index names, looked up by seq
	rank uint64
	err  error // an index entry that names no record
}

func newAuditCursor(tx kvTx, views bool) *auditCursor {
	log := tx.Bucket(bucketAudit)
	if views {
		return &auditCursor{c: log.Cursor()}
	}
	idx := tx.Bucket(bucketAuditShown)
	// One cursor for the lookups: Bucket.Get would make one for each.
	return &auditCursor{c: idx.Cursor(), idx: idx, log: log.Cursor()}
}

func (a *auditCursor) record(k, v []byte) ([]byte, []byte) {
	if k == nil || a.idx.Missing() {
		return k, v
	}
	if len(k) != 8 || len(v) != 8 {
		a.err = fmt.Errorf("the index of shown audit records has an entry %x that is no rank and seq: %w", k, ErrAuditChain)
		return nil, nil
	}
	a.rank = binary.BigEndian.Uint64(k)
	seq := v
	if k, v = a.log.Seek(seq); !bytes.Equal(k, seq) {
		a.err = fmt.Errorf("the index of shown audit records names record %x, which is not in the log: %w", seq, ErrAuditChain)
		return nil, nil
	}
	return seq, v
}

func (a *auditCursor) Last() ([]byte, []byte) { return a.record(a.c.Last()) }
func (a *auditCursor) Next() ([]byte, []byte) { return a.record(a.c.Next()) }
func (a *auditCursor) Prev() ([]byte, []byte) { return a.record(a.c.Prev()) }

// Seek moves to the first record whose seq is at least that of key. Through
// the index it is a binary search over the ranks, whose seqs ascend: about
// twenty reads of the index for a million shown records.
func (a *auditCursor) Seek(key []byte) ([]byte, []byte) {
	if a.idx.Missing() {
		return a.c.Seek(key)
	}
	seq := binary.BigEndian.Uint64(key)
	lo, hi := uint64(1), a.idx.Sequence()+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		v := a.idx.Get(u64(mid))
		if len(v) != 8 {
			a.err = fmt.Errorf("the index of shown audit records has no rank %d: %w", mid, ErrAuditChain)
			return nil, nil
		}
		if binary.BigEndian.Uint64(v) < seq {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return a.SeekRank(lo)
}

// SeekRank moves to the shown record of rank, or past the end; only
// through the index.
func (a *auditCursor) SeekRank(rank uint64) ([]byte, []byte) { return a.record(a.c.Seek(u64(rank))) }

// shownChecker checks, record by record in sequence order, that the index
// of shown records holds exactly the records that are not views, ranked
// 1, 2, 3 … in order.
type shownChecker struct {
	b    kvBucket
	c    kvCursor
	k, v []byte // the index's next entry not yet matched to a record
	rank uint64 // the rank that entry must have
}

func newShownChecker(tx kvTx) *shownChecker {
	b := tx.Bucket(bucketAuditShown)
	s := &shownChecker{b: b, c: b.Cursor(), rank: 1}
	s.k, s.v = s.c.First()
	return s
}

// check takes the record with sequence seq, which every earlier record
// preceded.
func (s *shownChecker) check(seq uint64, r *AuditRecord) error {
	if s.k != nil {
		switch {
		case len(s.k) != 8 || len(s.v) != 8:
			return fmt.Errorf("the index of shown records has an entry %x that is no rank and seq: %w", s.k, ErrAuditChain)
		case binary.BigEndian.Uint64(s.k) != s.rank:
			return fmt.Errorf("the index of shown records has rank %d where %d belongs: %w", binary.BigEndian.Uint64(s.k), s.rank, ErrAuditChain)
		case binary.BigEndian.Uint64(s.v) < seq:
			return fmt.Errorf("the index of shown records names record %d out of order or twice: %w", binary.BigEndian.Uint64(s.v), ErrAuditChain)
		}
	}
	indexed := s.k != nil && binary.BigEndian.Uint64(s.v) == seq
	switch {
	case indexed && r.IsView():
		return fmt.Errorf("record %d: a view, but indexed as shown: %w", seq, ErrAuditChain)
	case !indexed && !r.IsView():
		return fmt.Errorf("record %d: missing from the index of shown records (the default view would hide it): %w", seq, ErrAuditChain)
	}
	if indexed {
		s.k, s.v = s.c.Next()
		s.rank++
	}
	return nil
}

// end is called after the last record: no index entry may be left over,
// and the next rank given must follow the last.
func (s *shownChecker) end() error {
	if s.k != nil {
		return fmt.Errorf("the index of shown records names record %x, after the end of the log: %w", s.v, ErrAuditChain)
	}
	if n := s.b.Sequence(); n != s.rank-1 {
		return fmt.Errorf("the index of shown records ends at rank %d, but %d were given: %w", s.rank-1, n, ErrAuditChain)
	}
	return nil
}
