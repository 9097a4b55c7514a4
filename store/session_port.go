package store

// Ports for live sessions (SPEC §8): each supervised session's agent is
// given SWITCHBOARD_PORT, the first of a block of PortBlock ports, so two
// agents running the same dev server in two worktrees do not fight over
// one port. Blocks start at FirstPort and follow in steps of PortBlock; a
// block is taken while a live session holds it, and free again once the
// session ends (the live index is what is read, so ending a session is the
// release).
const (
	FirstPort = 41000
	PortBlock = 10
	// lastPort is the highest port a block may reach.
	lastPort = 65535
)

// FreePortBlock returns the first port of the lowest block that no live
// session holds and that free accepts (the caller tries to bind its ports:
// the store knows nothing of the network). A block free refuses is passed
// over. No block left is invalid_state.
func (tx *Tx) FreePortBlock(free func(first int) bool) (int, error) {
	held, err := tx.heldPorts()
	if err != nil {
		return 0, err
	}
	for p := FirstPort; p+PortBlock-1 <= lastPort; p += PortBlock {
		if !held[p] && free(p) {
			return p, nil
		}
	}
	return 0, Deny(CodeInvalidState, "no block of %d free ports from %d up for the session", PortBlock, FirstPort)
}

// checkPortBlock accepts port as a new session's when it starts a block
// and no live session holds that block.
func (tx *Tx) checkPortBlock(port int) error {
	if port < FirstPort || port+PortBlock-1 > lastPort || (port-FirstPort)%PortBlock != 0 {
		return Deny(CodeInvalidArgument, "port %d does not start a block of %d from %d", port, PortBlock, FirstPort)
	}
	held, err := tx.heldPorts()
	if err != nil {
		return err
	}
	if held[port] {
		return Deny(CodeInvalidState, "port %d is held by a live session", port)
	}
	return nil
}

// heldPorts are the blocks live sessions hold.
func (tx *Tx) heldPorts() (map[int]bool, error) {
	live, err := tx.liveSessions()
	if err != nil {
		return nil, err
	}
	held := map[int]bool{}
	for _, s := range live {
		if s.Port != 0 {
			held[s.Port] = true
		}
	}
	return held, nil
}
