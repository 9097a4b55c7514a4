package store

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// The round trips a transaction makes, counted on the wire: its opening
// (BEGIN, the writer lock, the buckets' sequences) goes with its first
// read, a session's trace head with the session, packet_counts whole with
// its first counter, and the writes with COMMIT.
func TestPgRoundTrips(t *testing.T) {
	if pgServer == nil {
		t.Skip("round trips to a server are PostgreSQL's")
	}
	u, trips := countRoundTrips(t, pgServer.Schema(t))
	db, err := OpenPostgres(u, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	key := []byte("ses_1")
	tests := []struct {
		name     string
		writable bool
		fn       func(tx kvTx) error
		want     int64
	}{
		{"a read of one key", false, func(tx kvTx) error {
			tx.Bucket(bucketTokens).Get([]byte("tok"))
			return nil
		}, 1},
		{"a read of a session and its trace head", false, func(tx kvTx) error {
			tx.Bucket(bucketSessions).Get(key)
			tx.Bucket(bucketTraceHeads).Get(key)
			return nil
		}, 1},
		{"a write of a session and its trace head", true, func(tx kvTx) error {
			for _, b := range [][]byte{bucketSessions, bucketTraceHeads} {
				if err := tx.Bucket(b).Put(key, append(tx.Bucket(b).Get(key), 'x')); err != nil {
					return err
				}
			}
			return nil
		}, 2},
		{"a write moving a packet from one count to another", true, func(tx kvTx) error {
			b := tx.Bucket(bucketPacketCounts)
			for _, state := range []string{"queued", "claimed"} {
				if err := b.Put([]byte(state), append(b.Get([]byte(state)), 1)); err != nil {
					return err
				}
			}
			return nil
		}, 2},
		{"a write that reads nothing", true, func(tx kvTx) error {
			// It takes the lock before its commit, where its caller may
			// still leave (TestPgCallerThatLeavesCancelsItsWait).
			return tx.Bucket(bucketSettings).Put([]byte("k"), []byte("v"))
		}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Counted the second time: the engine's first transaction
			// after the migrations opens before it hands out a bucket
			// they made (pgTx.bucket).
			for range 2 {
				trips.Store(0)
				if err := db.pg.run(t.Context(), tc.writable, nil, tc.fn); err != nil {
					t.Fatal(err)
				}
			}
			if got := trips.Load(); got != tc.want {
				t.Errorf("%d round trips, want %d", got, tc.want)
			}
		})
	}
}

// countRoundTrips puts a proxy between the store and the server at rawURL
// and returns the URL through it, and the count of the round trips that
// run statements: a Sync message after a Bind, in the extended protocol
// pgx speaks. A simple query (a read's rollback, which goes after the
// caller has its answer) is not counted, nor is a Sync that only prepared
// statements.
func countRoundTrips(t *testing.T, rawURL string) (string, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	server := filepath.Join(q.Get("host"), ".s.PGSQL.5432")
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL.5432"))
	if err != nil {
		t.Fatal(err)
	}
	var trips atomic.Int64
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("unix", server)
			if err != nil {
				c.Close()
				continue
			}
			wg.Go(func() { io.Copy(c, s); c.Close() })
			wg.Go(func() {
				defer s.Close()
				if err := forwardCounting(bufio.NewReader(c), s, &trips); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
					t.Errorf("proxy: %v", err)
				}
			})
		}
	})
	q.Set("host", dir)
	u.RawQuery = q.Encode()
	return u.String(), &trips
}

// forwardCounting copies the client's messages to the server, counting a
// Sync ('S') that follows a Bind ('B'). The first message, the startup
// message, has no type byte.
func forwardCounting(from *bufio.Reader, to io.Writer, trips *atomic.Int64) error {
	bound := false
	for first := true; ; first = false {
		head := make([]byte, 5)
		if first {
			head = head[1:]
		}
		if _, err := io.ReadFull(from, head); err != nil {
			return err
		}
		n := int(binary.BigEndian.Uint32(head[len(head)-4:])) - 4
		if n < 0 || n > 1<<30 {
			return os.ErrInvalid
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(from, body); err != nil {
			return err
		}
		// Counted before it is forwarded: the server's answer, and so
		// the caller's return, then come after the count.
		switch {
		case first:
		case head[0] == 'B':
			bound = true
		case head[0] == 'S' && bound:
			trips.Add(1)
			bound = false
		}
		if _, err := to.Write(append(head, body...)); err != nil {
			return err
		}
	}
}
