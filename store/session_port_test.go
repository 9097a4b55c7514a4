package store

import (
	"context"
	"testing"
)

// Two live sessions get different blocks; a block the caller finds in use
// is passed over; an ended session's block is free again.
func TestFreePortBlock(t *testing.T) {
	db := openTestDB(t, Options{})
	allFree := func(int) bool { return true }
	start := func(free func(int) bool) Session {
		t.Helper()
		var s Session
		mustUpdate(t, db, func(tx *Tx) error {
			port, err := tx.FreePortBlock(free)
			if err != nil {
				return err
			}
			s, err = tx.CreateSession(SessionSpec{Kind: SessionSupervised, Port: port})
			return err
		})
		return s
	}
	first := start(allFree)
	second := start(allFree)
	if first.Port != FirstPort || second.Port != FirstPort+PortBlock {
		t.Errorf("two live sessions hold ports %d and %d, want %d and %d", first.Port, second.Port, FirstPort, FirstPort+PortBlock)
	}
	// The caller found the next block's ports in use.
	third := start(func(p int) bool { return p != FirstPort+2*PortBlock })
	if third.Port != FirstPort+3*PortBlock {
		t.Errorf("with %d in use the session got %d", FirstPort+2*PortBlock, third.Port)
	}
	mustUpdate(t, db, func(tx *Tx) error {
		_, err := tx.EndSession(first.ID, SessionEnded, nil, "done")
		return err
	})
	if again := start(allFree); again.Port != FirstPort {
		t.Errorf("after the first session ended the next got %d, want its block %d back", again.Port, FirstPort)
	}

	for _, tc := range []struct {
		name string
		port int
		want Code
	}{
		{"held by a live session", second.Port, CodeInvalidState},
		{"not a block's first", FirstPort + 1, CodeInvalidArgument},
		{"below the range", 8080, CodeInvalidArgument},
		{"beyond the last block", 65535, CodeInvalidArgument},
	} {
		err := db.Update(context.Background(), func(tx *Tx) error {
			_, err := tx.CreateSession(SessionSpec{Kind: SessionSupervised, Port: tc.port})
			return err
		})
		if CodeOf(err) != tc.want {
			t.Errorf("%s: CreateSession with port %d: %v, want %s", tc.name, tc.port, err, tc.want)
		}
	}
	err := db.Update(context.Background(), func(tx *Tx) error {
		_, err := tx.FreePortBlock(func(int) bool { return false })
		return err
	})
	if CodeOf(err) != CodeInvalidState {
		t.Errorf("no free block: %v, want invalid_state", err)
	}
}
