package store

// The change log: each write transaction records, in its commit's
// statement (sb_apply), the keys it wrote with their new values and the
// sequences it moved, by its tick. An instance whose cache is a few ticks behind the
// clock (another instance wrote) reads the entries since, in the round
// trip it reads the clock in, and moves its cache on by them, rather than
// dropping it whole: two instances writing in turn otherwise read every
// key from the server again in every transaction, and even dropping only
// the keys the other wrote left each transaction reading a few (the audit
// log's last record, the queue's) one round trip at a time.

import (
	"fmt"
	"maps"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgCatchUp bounds how far behind the clock a cache may be to catch up by
// the log; further behind, it is dropped and fills again. pgChangeLogKeep
// is how many ticks of the log are kept, pruned every pgPruneEvery ticks.
const (
	pgCatchUp       = 256
	pgChangeLogKeep = 1024
	pgPruneEvery    = 128
)

// The change log's reads (sb_apply writes it). pgReadChanges reads the entries after the
// cache's tick $1 (none when the cache is as of nothing, -1).
// pgReadClockChanges is the clock and the entries since $1 in one
// statement, so one snapshot: the read that DB.Read answers from the
// cache after.
const (
	pgReadChanges = `SELECT tick, buckets, keys, vals, seq_names, seq_values, whole FROM sb_changes
		WHERE $1::bigint >= 0 AND tick > $1 AND tick <= $1 + $2::bigint ORDER BY tick`
	pgReadClockChanges = `SELECT c.tick, ch.tick, ch.buckets, ch.keys, ch.vals, ch.seq_names, ch.seq_values, ch.whole
		FROM sb_clock c LEFT JOIN sb_changes ch
		ON ch.tick > $1 AND ch.tick <= c.tick AND ch.tick <= $1 + $2::bigint ORDER BY ch.tick`
)

// pgChange is one entry of the change log.
type pgChange struct {
	tick    uint64
	buckets []string
	keys    [][]byte
	vals    [][]byte // each key's value after pgLive, or pgGone alone
	seqs    map[string]uint64
	// whole says the transaction made or dropped a bucket: a cache
	// cannot catch up past it.
	whole bool
}

// A value in the change log is a byte saying whether the key holds one,
// then the value: a stored value may be empty, and an empty or NULL
// array element would not say which it is.
const (
	pgLive byte = 1
	pgGone byte = 0
)

// scanChange reads one entry from the row's columns.
func scanChange(tick int64, buckets []string, keys, vals [][]byte, seqNames []string, seqValues []int64, whole bool) (pgChange, error) {
	if len(buckets) != len(keys) || len(keys) != len(vals) || len(seqNames) != len(seqValues) {
		return pgChange{}, fmt.Errorf("postgres: change log entry %d is malformed", tick)
	}
	for _, v := range vals {
		if len(v) == 0 || (v[0] != pgLive && v[0] != pgGone) {
			return pgChange{}, fmt.Errorf("postgres: change log entry %d is malformed", tick)
		}
	}
	c := pgChange{tick: uint64(tick), buckets: buckets, keys: keys, vals: vals, whole: whole}
	if len(seqNames) > 0 {
		c.seqs = make(map[string]uint64, len(seqNames))
		for i, n := range seqNames {
			c.seqs[n] = uint64(seqValues[i])
		}
	}
	return c, nil
}

// readChanges reads the entries pgReadChanges answers.
func readChanges(rows pgx.Rows) ([]pgChange, error) {
	defer rows.Close()
	var out []pgChange
	for rows.Next() {
		var (
			tick      int64
			buckets   []string
			keys      [][]byte
			vals      [][]byte
			seqNames  []string
			seqValues []int64
			whole     bool
		)
		if err := rows.Scan(&tick, &buckets, &keys, &vals, &seqNames, &seqValues, &whole); err != nil {
			return nil, pgFailure("read the change log", err)
		}
		c, err := scanChange(tick, buckets, keys, vals, seqNames, seqValues, whole)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, pgFailure("read the change log", err)
	}
	return out, nil
}

// catchUp moves the cache from tick from to tick to by changes (the log's
// entries after from, in order), taking the values they wrote and the
// sequences they moved, and returns the buckets as of to. It does
// nothing and returns nil when it cannot: the cache is not as of from, an
// entry is missing (pruned, or written by an older binary)
// or made or dropped a bucket.
func (c *pgCache) catchUp(from, to uint64, changes []pgChange) map[string]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == to && to != 0 {
		c.seen = time.Now()
		return c.seqs // another transaction caught it up
	}
	if from == 0 || c.at != from || c.seqs == nil || to < from || to-from > uint64(len(changes)) {
		return nil
	}
	changes = changes[:to-from]
	// Every entry is checked before the cache is touched: values of a
	// later tick must not stay in a cache that is still as of from.
	for i, ch := range changes {
		if ch.tick != from+1+uint64(i) || ch.whole {
			return nil
		}
		for name := range ch.seqs {
			if _, ok := c.seqs[name]; !ok {
				return nil // a bucket this cache does not know
			}
		}
	}
	seqs := maps.Clone(c.seqs)
	for _, ch := range changes {
		for i, k := range ch.keys {
			v := pgValue{}
			if ch.vals[i][0] == pgLive {
				v = pgValue{ch.vals[i][1:], true}
			}
			c.keep(pgKey{ch.buckets[i], string(k)}, v)
		}
		maps.Copy(seqs, ch.seqs)
	}
	c.at, c.seqs, c.seen = to, seqs, time.Now()
	return seqs
}
