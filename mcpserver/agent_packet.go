package mcpserver

import (
	"fmt"

	"github.com/switchboard-dev/switchboard/store"
)

// startablePacket is the packet an agent is to be started on: one of the
// repository's, queued, and not held for another live session
// (ReservePacket says the last, in the same transaction).
func startablePacket(tx *store.Tx, id, repoID string) (store.Packet, error) {
	p, err := tx.Packet(id)
	if err != nil {
		return store.Packet{}, err
	}
	if p.RepositoryID != repoID {
		return store.Packet{}, store.Deny(store.CodeCapabilityScopeMismatch, "packet %s belongs to another repository", id)
	}
	if p.State != store.PacketQueued {
		return store.Packet{}, store.Deny(store.CodeInvalidState, "packet %s is %s: an agent is started on a queued packet", id, p.State)
	}
	return p, nil
}

// packetPrompt tells an agent started on p which packet is its own.
func packetPrompt(p store.Packet) string {
	return fmt.Sprintf("You were started on packet %s (%q): it is held for you, and your first work_await_packet claims it.", p.ID, p.Title)
}
