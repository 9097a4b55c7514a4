package store

// The audit log's view class: the GUI's own background refresh reads,
// chained like every other record but left out of the default query.

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
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
// but the views), key for key with the audit bucket, so that the query
// walks the index and never reads the views it skips. It indexes the shown
// records, not the views, because the default query is the one that must
// stay fast, and a log is mostly views while a GUI is open.
var bucketAuditShown = []byte("audit_shown")

// indexShown records seq in the index of shown records.
func indexShown(tx *bolt.Tx, seq uint64) error {
	b := tx.Bucket(bucketAuditShown)
	b.FillPercent = appendFill
	if err := b.Put(u64(seq), nil); err != nil {
		return fmt.Errorf("index audit record %d: %w", seq, err)
	}
	return nil
}

// migrateAuditShown builds the index of shown records from the log: every
// record written before it existed is indexed unless it is a view (none
// should be: the view transport came with the index). It reads only the
// two fields IsView needs, and is frozen here as schema 6 wrote it.
func migrateAuditShown(tx *bolt.Tx) error {
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
// through the index only the shown ones. Its methods return a record's key
// and JSON like a bbolt cursor's.
type auditCursor struct {
	c   *bolt.Cursor
	log *bolt.Bucket // set when c walks the index: the records are here
	err error        // an index key that names no record
}

func newAuditCursor(tx *bolt.Tx, views bool) *auditCursor {
	log := tx.Bucket(bucketAudit)
	if views {
		return &auditCursor{c: log.Cursor()}
	}
	return &auditCursor{c: tx.Bucket(bucketAuditShown).Cursor(), log: log}
}

func (a *auditCursor) record(k, v []byte) ([]byte, []byte) {
	if k == nil || a.log == nil {
		return k, v
	}
	if v = a.log.Get(k); v == nil {
		a.err = fmt.Errorf("the index of shown audit records names record %x, which is not in the log: %w", k, ErrAuditChain)
		return nil, nil
	}
	return k, v
}

func (a *auditCursor) Last() ([]byte, []byte)         { return a.record(a.c.Last()) }
func (a *auditCursor) Next() ([]byte, []byte)         { return a.record(a.c.Next()) }
func (a *auditCursor) Prev() ([]byte, []byte)         { return a.record(a.c.Prev()) }
func (a *auditCursor) Seek(k []byte) ([]byte, []byte) { return a.record(a.c.Seek(k)) }

// shownChecker checks, record by record in sequence order, that the index
// of shown records holds exactly the records that are not views.
type shownChecker struct {
	c *bolt.Cursor
	k []byte // the index's next key not yet matched to a record
}

func newShownChecker(tx *bolt.Tx) *shownChecker {
	s := &shownChecker{c: tx.Bucket(bucketAuditShown).Cursor()}
	s.k, _ = s.c.First()
	return s
}

// check takes the record with sequence seq, which every earlier record
// preceded.
func (s *shownChecker) check(seq uint64, r *AuditRecord) error {
	if s.k != nil && (len(s.k) != 8 || binary.BigEndian.Uint64(s.k) < seq) {
		return fmt.Errorf("the index of shown records names record %x, which is not in the log: %w", s.k, ErrAuditChain)
	}
	indexed := s.k != nil && binary.BigEndian.Uint64(s.k) == seq
	switch {
	case indexed && r.IsView():
		return fmt.Errorf("record %d: a view, but indexed as shown: %w", seq, ErrAuditChain)
	case !indexed && !r.IsView():
		return fmt.Errorf("record %d: missing from the index of shown records (the default view would hide it): %w", seq, ErrAuditChain)
	}
	if indexed {
		s.k, _ = s.c.Next()
	}
	return nil
}

// end is called after the last record: no index key may be left over.
func (s *shownChecker) end() error {
	if s.k != nil {
		return fmt.Errorf("the index of shown records names record %x, after the end of the log: %w", s.k, ErrAuditChain)
	}
	return nil
}
