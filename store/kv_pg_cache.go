package store

// What one instance knows of the shared database between transactions. A
// key's value is read from PostgreSQL once and then answered from memory:
// every write transaction moves a clock (sb_clock) under the writer lock,
// and the cache holds the database as of one tick of it. A transaction
// that finds the clock where this instance's cache is uses it; one that
// finds it further on (another instance wrote) moves the cache on by the
// change log (kv_pg_changes.go), or, when the log cannot say what changed,
// starts it again from the tick it reads at.

import (
	"sync"
	"time"
)

// pgMaxCached bounds the values an instance keeps; past it the cache is
// dropped and fills again with what is in use.
const pgMaxCached = 100_000

type pgKey struct{ bucket, key string }

type pgCache struct {
	mu sync.Mutex
	// at is the clock the values are as of; 0: they are as of nothing.
	at   uint64
	vals map[pgKey]pgValue
	// seqs is every bucket and its sequence as of at; nil: not known. It
	// is shared with transactions, so never changed in place.
	seqs map[string]uint64
	// held is the buckets held whole (kv_pg_held.go), as of at; it goes
	// whenever vals does.
	held map[string]*pgHeldKeys
	// seen is when the server last showed its clock at at: a commit
	// there, a read of the clock, a catch-up to it.
	seen time.Time
}

// pgPeekFresh is how recently the server must have shown the clock where
// the cache is for DB.Peek to answer from it alone.
const pgPeekFresh = time.Second

// recent returns what buckets does, if the server showed the clock where
// the cache is within the last d; nil if not.
func (c *pgCache) recent(d time.Duration) (uint64, map[string]uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == 0 || time.Since(c.seen) >= d {
		return 0, nil
	}
	return c.at, c.seqs
}

// confirm records that the server showed its clock at tick at.
func (c *pgCache) confirm(at uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at != 0 && c.at == at {
		c.seen = time.Now()
	}
}

// buckets returns the clock the cache is as of and every bucket as of it,
// nil if it does not know them.
func (c *pgCache) buckets() (uint64, map[string]uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == 0 {
		return 0, nil
	}
	return c.at, c.seqs
}

// restart makes the cache as of tick at, with seqs the buckets then and
// no values, if it is as of an earlier tick that it could not catch up
// from (or of nothing): a read as of at, which knows seqs, fills it from
// there. It never moves the cache back.
func (c *pgCache) restart(at uint64, seqs map[string]uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at > c.at || (at == c.at && c.seqs == nil) {
		c.at, c.vals, c.seqs, c.held = at, nil, seqs, nil
		c.seen = time.Now()
	}
}

// get returns key's value as of clock tick at, when the cache holds it.
func (c *pgCache) get(at uint64, bucket, key string) (pgValue, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at == 0 || c.at != at {
		return pgValue{}, false
	}
	v, ok := c.vals[pgKey{bucket, key}]
	if !ok {
		// A bucket held whole has every key it holds in vals.
		if h := c.held[bucket]; h != nil && !h.tooBig {
			return pgValue{}, true
		}
	}
	return v, ok
}

// put keeps key's value, read at tick at, if the cache is as of it.
func (c *pgCache) put(at uint64, bucket, key string, v pgValue) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at == 0 || c.at != at {
		return
	}
	c.keep(pgKey{bucket, key}, v)
}

func (c *pgCache) keep(k pgKey, v pgValue) {
	if c.vals == nil || len(c.vals) >= pgMaxCached {
		c.vals, c.held = map[pgKey]pgValue{}, nil
	}
	c.vals[k] = v
	if c.held != nil {
		c.keepHeld(k, v)
	}
}

// committed records a write transaction that committed as tick at: what it
// read and wrote is the database as of at, since it saw the database as
// of the tick before (it held the writer lock, or committed only if the
// clock was still there). The rest of the cache stays if it was as of
// that tick, or as of at already (a read caught it up by this very
// commit's entry in the change log); drop says it may not (a bucket was
// dropped). A cache that is further on already is left as it is.
func (c *pgCache) committed(at uint64, t *pgTx, drop bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at > at && !drop {
		return
	}
	if drop || (c.at != at-1 && c.at != at) {
		c.vals, c.held = nil, nil
	}
	c.at, c.seen = at, time.Now()
	c.seqs = t.seqsAfter()
	for _, b := range t.buckets {
		for k, v := range b.known {
			c.keep(pgKey{b.name, k}, v)
		}
	}
}

// forget makes the cache as of nothing: a commit whose outcome is unknown
// (the connection broke during it) may or may not have changed what it
// holds.
func (c *pgCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at, c.vals, c.seqs, c.held = 0, nil, nil, nil
}
