package store

// Buckets the instance cache holds whole, in key order: the small indexes
// a call walks with a cursor (the queue a claim scans, the leases by
// expiry and by session). Their cursors read memory, so that a claim
// makes no round trip before its commit, and an optimistic write
// (kv_pg_optimistic.go) runs in microseconds on its snapshot, which
// leaves another instance little time to commit in between.

import (
	"slices"
	"strings"
)

// pgHeldBuckets are the buckets held whole. Each is an index whose keys
// are few (one per queued or leased packet) and small.
var pgHeldBuckets = [][]byte{bucketPacketQueue, bucketLeaseExpiry, bucketLeasesBySession}

// pgMaxHeld bounds the keys of a held bucket: a bigger one is walked on
// the server, as any other.
const pgMaxHeld = 20_000

// pgHeldKeys is a held bucket's keys in order; every one has its value in
// the cache's vals. tooBig says the bucket had more than pgMaxHeld keys
// when it was loaded, and is not held.
type pgHeldKeys struct {
	keys   []string
	tooBig bool
}

// isHeld reports whether bucket is one the cache holds whole.
func isHeld(bucket string) bool {
	for _, b := range pgHeldBuckets {
		if string(b) == bucket {
			return true
		}
	}
	return false
}

// keepHeld follows a change of key in a held bucket in its keys. c.mu is
// held.
func (c *pgCache) keepHeld(k pgKey, v pgValue) {
	h := c.held[k.bucket]
	if h == nil || h.tooBig {
		return
	}
	i, found := slices.BinarySearch(h.keys, k.key)
	switch {
	case v.ok && !found:
		if len(h.keys) >= pgMaxHeld {
			h.keys, h.tooBig = nil, true
			return
		}
		h.keys = slices.Insert(h.keys, i, k.key)
	case !v.ok && found:
		h.keys = slices.Delete(h.keys, i, i+1)
	}
}

// hold takes rows, every key of bucket in order as of tick at (with
// tooBig: more than pgMaxHeld of them), as the bucket held whole, if the
// cache is as of at and does not hold it yet.
func (c *pgCache) hold(at uint64, bucket string, rows []pgRow, tooBig bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at == 0 || c.at != at || c.held[bucket] != nil || len(c.vals)+len(rows) >= pgMaxCached {
		return
	}
	h := &pgHeldKeys{tooBig: tooBig}
	if !tooBig {
		h.keys = make([]string, 0, len(rows))
		for _, r := range rows {
			k := pgKey{bucket, string(r.k)}
			c.keep(k, pgValue{r.v, true})
			h.keys = append(h.keys, k.key)
		}
	}
	if c.held == nil {
		c.held = map[string]*pgHeldKeys{}
	}
	c.held[bucket] = h
}

// heldState says what the cache can do for a cursor on a held bucket.
type heldState int

const (
	heldNot     heldState = iota // not as of the tick, or not a held bucket: read the server
	heldMissing                  // as of the tick, but not loaded yet: load it
	heldYes                      // held: the rows are the cache's
)

// rangeHeld returns up to n rows of held bucket as of tick at, from key
// from (exclusive unless incl; nil: the bucket's end) in direction desc,
// and whether there may be more beyond them, when state is heldYes.
func (c *pgCache) rangeHeld(at uint64, bucket string, from []byte, incl, desc bool, n int) (rows []pgRow, full bool, state heldState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at == 0 || c.at != at || !isHeld(bucket) {
		return nil, false, heldNot
	}
	h := c.held[bucket]
	switch {
	case h == nil:
		return nil, false, heldMissing
	case h.tooBig:
		return nil, false, heldNot
	}
	keys := h.keys
	// i is the first key in the direction of travel.
	var i int
	if !desc {
		if from != nil {
			i, _ = slices.BinarySearchFunc(keys, from, compareKey)
			if !incl && i < len(keys) && keys[i] == string(from) {
				i++
			}
		}
	} else {
		i = len(keys) - 1
		if from != nil {
			j, found := slices.BinarySearchFunc(keys, from, compareKey)
			i = j - 1 // the last key below from
			if found && incl {
				i = j
			}
		}
	}
	for ; i >= 0 && i < len(keys) && len(rows) < n; i = step(i, desc) {
		v := c.vals[pgKey{bucket, keys[i]}]
		rows = append(rows, pgRow{[]byte(keys[i]), v.v})
	}
	return rows, i >= 0 && i < len(keys), heldYes
}

func step(i int, desc bool) int {
	if desc {
		return i - 1
	}
	return i + 1
}

func compareKey(k string, target []byte) int {
	return strings.Compare(k, string(target))
}

// readHeld fills the cursor's batch from the instance cache when it
// holds the bucket whole as of the transaction's snapshot, loading it
// first if it is to be held and is not yet. It reports false when the
// batch is to be read from the server.
func (c *pgCursor) readHeld(from []byte, incl, desc bool) (last []byte, ok bool) {
	t := c.b.t
	seen := t.seen()
	rows, full, state := t.e.cache.rangeHeld(seen, c.b.name, from, incl, desc, c.batch)
	if state == heldMissing && !t.cached && c.loadHeld(seen) {
		rows, full, state = t.e.cache.rangeHeld(seen, c.b.name, from, incl, desc, c.batch)
	}
	if state != heldYes {
		return nil, false
	}
	c.rows = append(c.rows, rows...)
	c.full = full
	if len(rows) == 0 {
		return nil, true
	}
	return rows[len(rows)-1].k, true
}

// loadHeld reads the cursor's bucket whole from the server, as of the
// transaction's snapshot seen, for the cache to hold; it reports whether
// it read it.
func (c *pgCursor) loadHeld(seen uint64) bool {
	t := c.b.t
	read, ok := t.queryRows(c.b.name, "SELECT key, value FROM sb_kv WHERE bucket = $1 ORDER BY key LIMIT $2",
		"ASC", c.b.name, pgMaxHeld+1)
	if !ok {
		return false
	}
	t.e.cache.hold(seen, c.b.name, read, len(read) > pgMaxHeld)
	return true
}
