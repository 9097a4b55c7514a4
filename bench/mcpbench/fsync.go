package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Reference row names.
const (
	refUpdate = "bbolt Update (1 Put, fsync)"
	refBatch  = "bbolt Batch (group commit)"
)

// refBucket holds the reference rows' records.
const refBucket = "bench"

// auditRecordSize is about the size of one audit record as JSON, so the
// reference transactions write what a call writes.
const auditRecordSize = 420

func openRef(path string) (*bolt.DB, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists([]byte(refBucket))
		return err
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// newPut returns a transaction function that appends one audit-sized
// record under the bucket's next sequence, as AppendAudit does.
func newPut() func(*bolt.Tx) error {
	value := bytes.Repeat([]byte("a"), auditRecordSize)
	return func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(refBucket))
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		var k [8]byte
		binary.BigEndian.PutUint64(k[:], seq)
		return b.Put(k[:], value)
	}
}

// measureFsync is the rate of sequential one-Put Updates, each committed
// with fsync: the ceiling of any design that commits each call on its own,
// whatever the concurrency.
func measureFsync(dir string, warmup, dur time.Duration) (cell, error) {
	db, err := openRef(filepath.Join(dir, "fsync.db"))
	if err != nil {
		return cell{}, err
	}
	defer db.Close()
	put := newPut()
	loop := func(until time.Time, lat *[]time.Duration) error {
		for time.Now().Before(until) {
			start := time.Now()
			if err := db.Update(put); err != nil {
				return err
			}
			if lat != nil {
				*lat = append(*lat, time.Since(start))
			}
		}
		return nil
	}
	if err := loop(time.Now().Add(warmup), nil); err != nil {
		return cell{}, fmt.Errorf("%s: %w", refUpdate, err)
	}
	lat := make([]time.Duration, 0, 1<<16)
	return measureRef(refUpdate, 1, dur, func(until time.Time) ([]time.Duration, error) {
		err := loop(until, &lat)
		return lat, err
	})
}

// measureBatch is the rate of conc goroutines each putting one record
// through bbolt's Batch, with a batch size of conc so that a batch commits
// as soon as every caller has joined it: one fsync per conc records, the
// ceiling of a group commit at this concurrency.
func measureBatch(dir string, conc int, warmup, dur time.Duration) (cell, error) {
	db, err := openRef(filepath.Join(dir, fmt.Sprintf("batch-%d.db", conc)))
	if err != nil {
		return cell{}, err
	}
	defer db.Close()
	db.MaxBatchSize = conc
	put := newPut()
	name := refBatch
	run := func(until time.Time, record bool) ([]time.Duration, error) {
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		lats := make([][]time.Duration, conc)
		var wg sync.WaitGroup
		for i := range conc {
			if record {
				lats[i] = make([]time.Duration, 0, 1<<14)
			}
			wg.Go(func() {
				for ctx.Err() == nil && time.Now().Before(until) {
					start := time.Now()
					if err := db.Batch(put); err != nil {
						cancel(err)
						return
					}
					if record {
						lats[i] = append(lats[i], time.Since(start))
					}
				}
			})
		}
		wg.Wait()
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		return slices.Concat(lats...), nil
	}
	if _, err := run(time.Now().Add(warmup), false); err != nil {
		return cell{}, fmt.Errorf("%s: %w", name, err)
	}
	return measureRef(name, conc, dur, func(until time.Time) ([]time.Duration, error) {
		return run(until, true)
	})
}

// measureRef reads the counters around fn, which runs until the deadline
// and returns the latencies it measured.
func measureRef(name string, conc int, dur time.Duration, fn func(until time.Time) ([]time.Duration, error)) (cell, error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0, hasCPU := processCPU()
	start := time.Now()
	lat, err := fn(start.Add(dur))
	elapsed := time.Since(start)
	cpu1, _ := processCPU()
	runtime.ReadMemStats(&after)
	if err != nil {
		return cell{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(lat) == 0 {
		return cell{}, fmt.Errorf("%s: no transaction completed in %v", name, dur)
	}
	slices.Sort(lat)
	return cell{
		server:  name,
		conc:    conc,
		calls:   len(lat),
		elapsed: elapsed,
		p50:     percentile(lat, 0.50),
		p99:     percentile(lat, 0.99),
		mallocs: after.Mallocs - before.Mallocs,
		bytes:   after.TotalAlloc - before.TotalAlloc,
		cpu:     cpu1 - cpu0,
		hasCPU:  hasCPU,
	}, nil
}
