package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
)

// Invoke calls the method name through r.Invoke, so the call is checked and
// audited like any other, with the argument and result types its name
// declares: an in-process caller (the daemon while it starts) gets neither
// a misspelt method nor a result of the wrong shape past the compiler.
//
// The error is the call's own (a *store.Denial for denials), unwrapped, so
// errors.As and store.CodeOf see it; the caller adds what it was doing.
// Invoke logs nothing, and the registry keeps only a digest of the
// arguments, so a raw token passed in or handed back (client_token.import,
// client_token.mint) stays in the caller's memory.
func Invoke[In, Out any](ctx context.Context, r *Registry, p Principal, t Transport, name Name[In, Out], in In) (Out, error) {
	var zero Out
	args, err := json.Marshal(in)
	if err != nil {
		return zero, fmt.Errorf("encode the arguments of %s: %w", name, err)
	}
	res := r.Invoke(ctx, p, t, string(name), args)
	if res.Err != nil {
		return zero, res.Err
	}
	if out, ok := res.Value.(Out); ok {
		return out, nil
	}
	// The handler's result is an Out, but a Then hook may have replaced it
	// with another type of the same JSON: decode it from that.
	b, err := json.Marshal(res.Value)
	if err != nil {
		return zero, fmt.Errorf("encode the result of %s: %w", name, err)
	}
	var out Out
	if err := json.Unmarshal(b, &out); err != nil {
		return zero, fmt.Errorf("decode the result of %s into %T: %w", name, out, err)
	}
	return out, nil
}
