package mcpserver

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/switchboard-dev/switchboard/store"
)

// groupCommitter runs registry transactions so that calls arriving while one
// transaction commits share the next one: one fsync for many calls, each
// still acknowledged only after its own records are durable.
//
// There is no background goroutine. The first caller to find nobody
// committing becomes the leader: it commits everything queued, its own
// request included, then hands the lead to the oldest request still waiting,
// so no caller commits for others for longer than one batch.
type groupCommitter struct {
	db       *store.DB
	maxBatch int

	mu      sync.Mutex
	pending []*txRequest // guarded by mu
	leading bool         // guarded by mu: someone is committing
}

type txRequest struct {
	// ctx is the caller's: a caller that has left is answered with its
	// error, and its function runs no more.
	ctx context.Context
	fn  func(*store.Tx) error
	// done receives the request's outcome, or errLead when its caller is
	// to commit the next batch.
	done chan error
}

// errLead tells a waiting caller that it now leads.
var errLead = errors.New("lead the next batch")

func newGroupCommitter(db *store.DB) *groupCommitter {
	return &groupCommitter{db: db, maxBatch: 256}
}

// update runs fn in a write transaction shared with other callers' and
// returns fn's error, or the commit's. fn may run more than once (when
// another function in its batch fails, the batch is retried without it), so
// it must reset any state it keeps outside the transaction.
func (g *groupCommitter) update(ctx context.Context, fn func(*store.Tx) error) error {
	req := &txRequest{ctx: ctx, fn: fn, done: make(chan error, 1)}
	g.mu.Lock()
	g.pending = append(g.pending, req)
	if g.leading {
		g.mu.Unlock()
		if err := <-req.done; err != errLead {
			return err
		}
		g.mu.Lock()
	} else {
		g.leading = true
	}
	// Leading, with mu held.
	n := min(len(g.pending), g.maxBatch)
	batch := g.pending[:n:n]
	g.pending = g.pending[n:]
	g.mu.Unlock()

	g.commit(batch)

	g.mu.Lock()
	if len(g.pending) > 0 {
		g.pending[0].done <- errLead
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	return <-req.done
}

// commit runs batch in one transaction. A function that fails is answered
// with its error and the rest run again without it, because bbolt can only
// roll back a whole transaction.
func (g *groupCommitter) commit(batch []*txRequest) {
	for len(batch) > 0 {
		failed := -1
		var failErr error
		ctx, stop := batchContext(batch)
		err := g.db.Update(ctx, func(tx *store.Tx) error {
			failed, failErr = -1, nil
			for i, r := range batch {
				err := r.ctx.Err()
				if err == nil {
					err = r.fn(tx)
				}
				if err != nil {
					failed, failErr = i, err
					return err
				}
			}
			return nil
		})
		stop()
		switch {
		case err == nil:
			for _, r := range batch {
				r.done <- nil
			}
			return
		case failed < 0 || errors.Is(err, store.ErrUnavailable):
			// The commit itself failed, or the database did (whatever the
			// function that noticed first made of it): nobody's writes
			// are durable.
			for _, r := range batch {
				r.done <- err
			}
			return
		}
		batch[failed].done <- failErr
		batch = append(batch[:failed:failed], batch[failed+1:]...)
	}
}

// batchContext is the context of a batch's transaction. It ends when
// every caller in the batch has left: until the last has, the transaction
// works for someone. stop releases it.
func batchContext(batch []*txRequest) (ctx context.Context, stop func()) {
	if len(batch) == 1 {
		return batch[0].ctx, func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var left atomic.Int64
	left.Store(int64(len(batch)))
	stops := make([]func() bool, len(batch))
	for i, r := range batch {
		stops[i] = context.AfterFunc(r.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, s := range stops {
			s()
		}
		cancel()
	}
}
