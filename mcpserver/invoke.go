package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
)

// Invoke calls the method name as p over t with typed arguments and
// result: the GUI, the daemon and tests call methods this way, and the
// compiler holds them to the types the handler takes and returns. The
// result is the handler's own value (no JSON round trip), except for a
// method whose Then hook answered with another type, which is converted.
// Failures are the call's error: a *store.Denial for denials.
func Invoke[In, Out any](ctx context.Context, r *Registry, p Principal, t Transport, name Name[In, Out], in In) (Out, error) {
	var out Out
	args, err := json.Marshal(in)
	if err != nil {
		return out, fmt.Errorf("encode arguments of %s: %w", name, err)
	}
	res := r.Invoke(ctx, p, t, string(name), args)
	if res.Err != nil {
		return out, res.Err
	}
	return resultAs[Out](string(name), res.Value)
}

// resultAs returns v as an Out.
func resultAs[Out any](method string, v any) (Out, error) {
	if out, ok := v.(Out); ok {
		return out, nil
	}
	var out Out
	b, err := json.Marshal(v)
	if err != nil {
		return out, fmt.Errorf("encode result of %s: %w", method, err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, fmt.Errorf("decode result of %s: %w", method, err)
	}
	return out, nil
}
