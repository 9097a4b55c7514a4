package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// aliveCheckGap is the shortest time between two checks of one watched
// principal. Every committed call wakes every watcher, and a busy agent
// commits hundreds of calls a second: without a gap, each open stream would
// turn each of them into a read. With it, a stream costs at most four reads
// a second and still sees a revocation well within one.
const aliveCheckGap = 250 * time.Millisecond

// Alive returns a context that ends when p stops being live: its token is
// revoked, expires or is gone, or the session the token was minted for
// ends. It ends too when ctx does or when the returned function is called.
// context.Cause then says why: a *store.Denial when p stopped being live.
//
// A long-lived stream authenticates once, and nothing it sends afterwards
// goes through the registry, which re-checks the token on every call; this
// is the stream's re-check. The operator never stops being live.
//
// p is checked once before Alive returns, so a stream whose token died
// between its authentication and this call ends at once; after that a
// goroutine re-checks on every commit that may have changed state (at most
// once per aliveCheckGap) and when the token's expiry comes. It ends with
// the returned context: the caller must call the returned function when
// the stream ends (or end ctx), or the goroutine lives on.
func (r *Registry) Alive(ctx context.Context, p Principal) (context.Context, context.CancelFunc) {
	alive, end := context.WithCancelCause(ctx)
	stop := func() { end(nil) }
	if p.Operator {
		return alive, stop
	}
	// Taken before the check: a change committed after the read closes
	// it, so the goroutine cannot miss it.
	changed := r.Changed()
	left, err := r.liveFor(ctx, p)
	if err != nil {
		end(err)
		return alive, stop
	}
	go r.watch(alive, end, p, changed, left)
	return alive, stop
}

// watch re-checks p until ctx ends, and ends ctx with the reason once p is
// no longer live. changed and left are those of the check just made.
func (r *Registry) watch(ctx context.Context, end context.CancelCauseFunc, p Principal, changed <-chan struct{}, left time.Duration) {
	// Both timers are stopped while unused; Go 1.23 timers need no
	// draining before Reset.
	expiry := time.NewTimer(time.Hour)
	expiry.Stop()
	defer expiry.Stop()
	gap := time.NewTimer(time.Hour)
	gap.Stop()
	defer gap.Stop()
	checked := time.Now()
	for {
		// The timer runs on the wall clock and left is reckoned on the
		// database's (a test's fake one): when they disagree, the check
		// at the timer decides, and arms the timer again if need be.
		var expired <-chan time.Time
		if left > 0 {
			expiry.Reset(left)
			expired = expiry.C
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-expired:
		}
		expiry.Stop()
		if wait := aliveCheckGap - time.Since(checked); wait > 0 {
			gap.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-gap.C:
			}
		}
		changed = r.Changed()
		checked = time.Now()
		var err error
		if left, err = r.liveFor(ctx, p); err != nil {
			end(err)
			return
		}
	}
}

// liveFor checks that p's token is live and its session, if it was minted
// for one, has not ended. It returns how long the token has left (0 for a
// token without expiry) on the database's clock.
//
// A session that does not exist does not end the principal: authentication
// accepts such a token, so a stream ended for it would only be opened again.
func (r *Registry) liveFor(ctx context.Context, p Principal) (time.Duration, error) {
	var left time.Duration
	err := r.db.View(ctx, func(tx *store.Tx) error {
		tok, err := principalToken(tx, p)
		if err != nil {
			return err
		}
		if p.SessionID != "" {
			s, err := tx.Session(p.SessionID)
			switch {
			case store.CodeOf(err) == store.CodeNotFound:
			case err != nil:
				return err
			case !s.State.Live():
				return store.Deny(store.CodeInvalidState, "session %s has %s", s.ID, s.State)
			}
		}
		if tok.ExpiresAt != nil {
			left = tok.ExpiresAt.Sub(tx.Now())
		}
		return nil
	})
	var d *store.Denial
	switch {
	case errors.As(err, &d):
		return 0, d
	case err != nil:
		return 0, fmt.Errorf("check that token %s is live: %w", p.KeyID, err)
	}
	return left, nil
}
