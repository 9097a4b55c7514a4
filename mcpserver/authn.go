package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/store"
)

// Authenticate checks a raw bearer token in a read transaction of its own
// and returns its principal. The transports call it before anything else;
// every call the principal then makes is checked again inside the call's
// transaction, since the token may be revoked in between.
//
// A refusal is a *store.Denial (token_missing, token_malformed,
// token_invalid, token_revoked, token_expired) whose text never repeats the
// raw token; any other error is the database's.
func (r *Registry) Authenticate(ctx context.Context, raw string) (Principal, error) {
	var tok store.Token
	// What the principal then does is authorized again in its own
	// transaction: a token revoked after this read still stops it there.
	err := r.db.View(ctx, func(tx *store.Tx) error {
		var err error
		tok, err = tx.Authenticate(raw)
		return err
	})
	var d *store.Denial
	switch {
	case errors.As(err, &d):
		return Principal{}, d
	case err != nil:
		return Principal{}, fmt.Errorf("authenticate a bearer token: %w", err)
	}
	return TokenPrincipal(tok), nil
}

// tracePage reads up to tracePageSize events of the session's trace after
// seq, in a read transaction of its own. It is a plain read, neither
// authorized nor audited: it serves the pages of a replay feed after the
// first, whose trace.read call authorized and audited the reader once for
// the whole connection. Nothing else may call it.
func (r *Registry) TracePage(ctx context.Context, sessionID string, after uint64) ([]store.TraceEvent, error) {
	var evs []store.TraceEvent
	err := r.db.View(ctx, func(tx *store.Tx) error {
		var err error
		evs, err = tx.TraceEvents(sessionID, after, tracePageSize)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the trace of %s after %d: %w", sessionID, after, err)
	}
	return evs, nil
}
