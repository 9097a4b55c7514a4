package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// Prepare: the part of a method that must not run in the shared write
// transaction (reading a file from disk), run before it.

// prepareTimeout bounds a method's Prepare. The caller waits for it, and
// what it does (read one artifact file, at most store.MaxArtifactFile) takes
// a fraction of this on a sound disk; the bound is for one that is not.
const prepareTimeout = 30 * time.Second

// prepare runs the call's Method.Prepare, in no transaction, and keeps what
// it returns on the call for the handler. A panic is kept as an error, as
// runHandler does: the handler reports it once the call is authorized.
func (r *Registry) prepare(call *Call) {
	ctx, cancel := context.WithTimeout(call.Ctx, prepareTimeout)
	outer := call.Ctx
	call.Ctx = ctx
	defer func() {
		cancel()
		call.Ctx = outer
		if p := recover(); p != nil {
			call.Prepared, call.prepareErr = nil, fmt.Errorf("%s prepare panicked: %v", call.Method.Name, p)
		}
	}()
	call.Prepared, call.prepareErr = call.Method.Prepare(call)
}

// prepareView runs fn, for a Prepare, in a read transaction in which the
// call has first been authorized as the write transaction will authorize
// it: a caller without the grant on the call's object has Prepare read
// nothing of that object (and do no I/O for it), and gets the denial it
// would get anyway. The write transaction authorizes the call again. The
// call leaves with no transaction and nothing authorize set.
func (r *Registry) prepareView(c *Call, fn func(tx *store.Tx) error) error {
	defer c.reset(nil)
	return r.db.View(c.Ctx, func(tx *store.Tx) error {
		c.reset(tx)
		if err := authorize(tx, c); err != nil {
			return err
		}
		return fn(tx)
	})
}
