package mcpserver

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// The watcher's timing, on the fake clock of a synctest bubble: the store
// reads the bubble's time.Now, so the token's expiry and the watcher's
// timers run on one clock, and synctest.Test fails if a watcher is left
// running when the test returns.

// bubbleRegistry opens a registry inside the bubble, on its clock.
func bubbleRegistry(t *testing.T) *Registry {
	t.Helper()
	return New(stores.Open(t, store.Options{}), Options{Version: testVersion})
}

// bubbleToken mints a token with every agent capability.
func bubbleToken(t *testing.T, reg *Registry, spec store.TokenSpec) store.Token {
	t.Helper()
	spec.Grants = allGrants()
	var tok store.Token
	err := reg.DB().Update(context.Background(), func(tx *store.Tx) error {
		var err error
		tok, _, err = tx.CreateToken(spec)
		return err
	})
	if err != nil {
		t.Fatalf("CreateToken: %v", err)
	}
	return tok
}

func bubbleInvoke(t *testing.T, reg *Registry, method, args string) {
	t.Helper()
	if res := reg.Invoke(t.Context(), OperatorPrincipal(), TransportGUI, method, []byte(args)); res.Err != nil {
		t.Fatalf("%s: %v", method, res.Err)
	}
}

// advance moves the bubble's fake clock on by d: in a synctest bubble
// a sleep returns once every goroutine of the bubble is blocked and the
// clock has been moved to its end, at once in real time. It is the one way
// to make the watcher's timers fire; no test here waits out real time.
func advance(d time.Duration) { time.Sleep(d) }

// wantLive fails unless ctx is still live once every goroutine of the
// bubble has settled.
func wantLive(t *testing.T, ctx context.Context, when string) {
	t.Helper()
	synctest.Wait()
	if ctx.Err() != nil {
		t.Fatalf("%s: ended (%v), want live", when, context.Cause(ctx))
	}
}

// wantEnded fails unless ctx has ended with a denial of code.
func wantEnded(t *testing.T, ctx context.Context, code store.Code, when string) {
	t.Helper()
	synctest.Wait()
	cause := context.Cause(ctx)
	var d *store.Denial
	if ctx.Err() == nil || !errors.As(cause, &d) || d.Code != code {
		t.Fatalf("%s: cause %v, want a %s denial", when, cause, code)
	}
}

// A token's watcher ends the context at the token's expiry, not before.
func TestAliveExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := bubbleRegistry(t)
		exp := time.Now().Add(time.Hour)
		tok := bubbleToken(t, reg, store.TokenSpec{Label: "hour", ExpiresAt: &exp})
		alive, stop := reg.Alive(t.Context(), TokenPrincipal(tok))
		defer stop()
		advance(time.Hour - time.Nanosecond)
		wantLive(t, alive, "just before the expiry")
		advance(time.Nanosecond)
		wantEnded(t, alive, store.CodeTokenExpired, "at the expiry")
	})
}

// A flood of commits does not make a watcher read on every one: woken, it
// waits aliveCheckGap after its last check before the next. A revocation
// in the flood is seen at that next check, and commits that leave the token
// live leave the context live.
func TestAliveDebounced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := bubbleRegistry(t)
		tok := bubbleToken(t, reg, store.TokenSpec{Label: "watched"})
		other := bubbleToken(t, reg, store.TokenSpec{Label: "other"})
		alive, stop := reg.Alive(t.Context(), TokenPrincipal(tok))
		defer stop()

		// Commits by others wake the watcher, which finds the token live.
		bubbleInvoke(t, reg, "token.revoke", `{"keyid":"`+other.KeyID+`"}`)
		advance(aliveCheckGap)
		wantLive(t, alive, "after another token's revocation")

		start := time.Now()
		for range 50 {
			bubbleInvoke(t, reg, "token.create", `{"label":"flood"}`)
		}
		bubbleInvoke(t, reg, "token.revoke", `{"keyid":"`+tok.KeyID+`"}`)
		wantLive(t, alive, "in the gap after the last check")
		advance(aliveCheckGap - time.Since(start))
		wantEnded(t, alive, store.CodeTokenRevoked, "one gap after the flood began")
	})
}

// The session a token was minted for ending ends its watcher's context,
// even when ending the session leaves the token live.
func TestAliveSessionEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := bubbleRegistry(t)
		tok := bubbleToken(t, reg, store.TokenSpec{Label: "session", Kind: store.KindSession, SessionID: "ses_watched"})
		err := reg.DB().Update(context.Background(), func(tx *store.Tx) error {
			_, err := tx.CreateSession(store.SessionSpec{ID: "ses_watched", Kind: store.SessionExternal})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		alive, stop := reg.Alive(t.Context(), TokenPrincipal(tok))
		defer stop()
		advance(aliveCheckGap)
		wantLive(t, alive, "while the session runs")
		bubbleInvoke(t, reg, "session.end", `{"session_id":"ses_watched"}`)
		wantEnded(t, alive, store.CodeInvalidState, "after the session ended")
	})
}

// A principal that is not live when Alive is called gets an ended context
// at once; the operator's never ends on its own; stop and the parent's end
// end the watcher (synctest.Test fails if a goroutine is left blocked).
func TestAliveLifetimes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := bubbleRegistry(t)
		tok := bubbleToken(t, reg, store.TokenSpec{Label: "watched"})

		op, stopOp := reg.Alive(t.Context(), OperatorPrincipal())
		advance(24 * time.Hour)
		wantLive(t, op, "the operator, a day on")
		stopOp()
		if !errors.Is(context.Cause(op), context.Canceled) {
			t.Errorf("stopped: cause %v, want context.Canceled", context.Cause(op))
		}

		parent, cancel := context.WithCancel(t.Context())
		alive, stop := reg.Alive(parent, TokenPrincipal(tok))
		defer stop()
		cancel()
		synctest.Wait()
		if !errors.Is(context.Cause(alive), context.Canceled) {
			t.Errorf("parent ended: cause %v, want context.Canceled", context.Cause(alive))
		}

		stopped, stop2 := reg.Alive(t.Context(), TokenPrincipal(tok))
		stop2()
		synctest.Wait()
		if stopped.Err() == nil {
			t.Error("stop left the context live")
		}

		// Another token: tok stays live, so nothing but the end of their
		// contexts ends the watchers above.
		revoked := bubbleToken(t, reg, store.TokenSpec{Label: "revoked"})
		bubbleInvoke(t, reg, "token.revoke", `{"keyid":"`+revoked.KeyID+`"}`)
		dead, stop3 := reg.Alive(t.Context(), TokenPrincipal(revoked))
		defer stop3()
		var d *store.Denial
		if !errors.As(context.Cause(dead), &d) || d.Code != store.CodeTokenRevoked {
			t.Errorf("a revoked token: cause %v, want token_revoked at once", context.Cause(dead))
		}
	})
}
