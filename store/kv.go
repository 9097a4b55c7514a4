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

// kvTx is one transaction of the engine.
type kvTx struct{ bolt *bolt.Tx }

// Bucket returns the bucket named name; see kvBucket.Missing.
func (t kvTx) Bucket(name []byte) kvBucket { return kvBucket{t.bolt.Bucket(name)} }

func (t kvTx) CreateBucket(name []byte) (kvBucket, error) {
	b, err := t.bolt.CreateBucket(name)
	return kvBucket{b}, err
}

func (t kvTx) CreateBucketIfNotExists(name []byte) (kvBucket, error) {
	b, err := t.bolt.CreateBucketIfNotExists(name)
	return kvBucket{b}, err
}

func (t kvTx) DeleteBucket(name []byte) error { return t.bolt.DeleteBucket(name) }
func (t kvTx) Writable() bool                 { return t.bolt.Writable() }

// kvBucket is one bucket, a value that costs nothing to copy. A value Get
// returns is valid until the transaction ends and must not be changed.
type kvBucket struct{ bolt *bolt.Bucket }

// Missing reports that the bucket asked for does not exist.
func (b kvBucket) Missing() bool { return b.bolt == nil }

func (b kvBucket) Get(key []byte) []byte                    { return b.bolt.Get(key) }
func (b kvBucket) Put(key, value []byte) error              { return b.bolt.Put(key, value) }
func (b kvBucket) Delete(key []byte) error                  { return b.bolt.Delete(key) }
func (b kvBucket) Cursor() kvCursor                         { return kvCursor{b.bolt.Cursor()} }
func (b kvBucket) ForEach(fn func(k, v []byte) error) error { return b.bolt.ForEach(fn) }
func (b kvBucket) NextSequence() (uint64, error)            { return b.bolt.NextSequence() }
func (b kvBucket) Sequence() uint64                         { return b.bolt.Sequence() }
func (b kvBucket) SetSequence(n uint64) error               { return b.bolt.SetSequence(n) }

// Bucket is a bucket nested in this one: only the schema before the trace
// log had any (migrate_trace.go reads them once).
func (b kvBucket) Bucket(name []byte) kvBucket { return kvBucket{b.bolt.Bucket(name)} }

// Appending says the bucket is written at its end only (its keys are
// increasing sequences), so pages may be packed full (see appendFill).
func (b kvBucket) Appending() { b.bolt.FillPercent = appendFill }

// kvCursor walks a bucket in key order. A nil key means the walk has left
// the bucket.
type kvCursor struct{ bolt *bolt.Cursor }

func (c kvCursor) First() (key, value []byte) { return c.bolt.First() }
func (c kvCursor) Last() (key, value []byte)  { return c.bolt.Last() }
func (c kvCursor) Next() (key, value []byte)  { return c.bolt.Next() }
func (c kvCursor) Prev() (key, value []byte)  { return c.bolt.Prev() }

// Seek moves to the first key at or after seek.
func (c kvCursor) Seek(seek []byte) (key, value []byte) { return c.bolt.Seek(seek) }
