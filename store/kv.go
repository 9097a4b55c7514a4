package store

// The ordered key-value engine the store is written against: named buckets
// of byte keys kept in order, cursors that seek and step both ways, and a
// sequence per bucket. docs/team-mode.md says why the store keeps this
// shape for PostgreSQL too.
//
// The types are small values, not interfaces or pointers: a key handed to
// an interface's method escapes to the heap (the compiler cannot see that
// the engine does not keep it), and so does a wrapper returned by pointer
// from a function too big to inline; either costs every lookup an
// allocation. As values the compiler sees through them to bbolt's own
// code, and keys, buckets and cursors stay on the stack as they did when
// the store called bbolt directly.

import (
	bolt "go.etcd.io/bbolt"
)

// kvTx is one transaction of the engine: bbolt's or PostgreSQL's
// (kv_pg.go), whichever the DB opened.
type kvTx struct {
	bolt *bolt.Tx
	pg   *pgTx
}

// Bucket returns the bucket named name; see kvBucket.Missing.
func (t kvTx) Bucket(name []byte) kvBucket {
	if t.pg != nil {
		return kvBucket{pg: t.pg.bucket(name)}
	}
	return kvBucket{bolt: t.bolt.Bucket(name)}
}

func (t kvTx) CreateBucket(name []byte) (kvBucket, error) {
	if t.pg != nil {
		b, err := t.pg.alterBucket(name, true, false)
		return kvBucket{pg: b}, err
	}
	b, err := t.bolt.CreateBucket(name)
	return kvBucket{bolt: b}, err
}

func (t kvTx) CreateBucketIfNotExists(name []byte) (kvBucket, error) {
	if t.pg != nil {
		b, err := t.pg.alterBucket(name, true, true)
		return kvBucket{pg: b}, err
	}
	b, err := t.bolt.CreateBucketIfNotExists(name)
	return kvBucket{bolt: b}, err
}

func (t kvTx) DeleteBucket(name []byte) error {
	if t.pg != nil {
		_, err := t.pg.alterBucket(name, false, false)
		return err
	}
	return t.bolt.DeleteBucket(name)
}

func (t kvTx) Writable() bool {
	if t.pg != nil {
		return t.pg.writable
	}
	return t.bolt.Writable()
}

// kvBucket is one bucket, a value that costs nothing to copy. A value Get
// returns is valid until the transaction ends and must not be changed.
type kvBucket struct {
	bolt *bolt.Bucket
	pg   *pgBucket
}

// Missing reports that the bucket asked for does not exist.
func (b kvBucket) Missing() bool { return b.bolt == nil && b.pg == nil }

func (b kvBucket) Get(key []byte) []byte {
	if b.pg != nil {
		return b.pg.get(key)
	}
	return b.bolt.Get(key)
}

func (b kvBucket) Put(key, value []byte) error {
	if b.pg != nil {
		return b.pg.put(key, value)
	}
	return b.bolt.Put(key, value)
}

func (b kvBucket) Delete(key []byte) error {
	if b.pg != nil {
		return b.pg.delete(key)
	}
	return b.bolt.Delete(key)
}

func (b kvBucket) Cursor() kvCursor {
	if b.pg != nil {
		return kvCursor{pg: b.pg.cursor()}
	}
	return kvCursor{bolt: b.bolt.Cursor()}
}

func (b kvBucket) ForEach(fn func(k, v []byte) error) error {
	if b.pg != nil {
		return b.pg.forEach(fn)
	}
	return b.bolt.ForEach(fn)
}

func (b kvBucket) NextSequence() (uint64, error) {
	if b.pg != nil {
		return b.pg.nextSequence()
	}
	return b.bolt.NextSequence()
}

func (b kvBucket) Sequence() uint64 {
	if b.pg != nil {
		return b.pg.sequence()
	}
	return b.bolt.Sequence()
}

func (b kvBucket) SetSequence(n uint64) error {
	if b.pg != nil {
		return b.pg.setSequence(n)
	}
	return b.bolt.SetSequence(n)
}

// Bucket is a bucket nested in this one: only the schema before the trace
// log had any (migrate_trace.go reads them once), and PostgreSQL, which
// never held that schema, has none.
func (b kvBucket) Bucket(name []byte) kvBucket {
	if b.pg != nil {
		return kvBucket{}
	}
	return kvBucket{bolt: b.bolt.Bucket(name)}
}

// Appending says the bucket is written at its end only (its keys are
// increasing sequences), so bbolt may pack its pages full (see
// appendFill).
func (b kvBucket) Appending() {
	if b.bolt != nil {
		b.bolt.FillPercent = appendFill
	}
}

// kvCursor walks a bucket in key order. A nil key means the walk has left
// the bucket.
type kvCursor struct {
	bolt *bolt.Cursor
	pg   *pgCursor
}

func (c kvCursor) First() (key, value []byte) {
	if c.pg != nil {
		return c.pg.first()
	}
	return c.bolt.First()
}

func (c kvCursor) Last() (key, value []byte) {
	if c.pg != nil {
		return c.pg.last()
	}
	return c.bolt.Last()
}

func (c kvCursor) Next() (key, value []byte) {
	if c.pg != nil {
		return c.pg.next()
	}
	return c.bolt.Next()
}

func (c kvCursor) Prev() (key, value []byte) {
	if c.pg != nil {
		return c.pg.prev()
	}
	return c.bolt.Prev()
}

// Seek moves to the first key at or after seek.
func (c kvCursor) Seek(seek []byte) (key, value []byte) {
	if c.pg != nil {
		return c.pg.seek(seek)
	}
	return c.bolt.Seek(seek)
}
