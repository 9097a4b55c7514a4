package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// What the engine makes of a failed statement: the server away is
// store_unavailable (try again), the server refusing the statement is an
// internal error (a retry meets it again).
func TestPgFailureCodes(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want Code
	}{
		{"connection cut", io.ErrUnexpectedEOF, CodeStoreUnavailable},
		{"deadline", context.DeadlineExceeded, CodeStoreUnavailable},
		{"cannot connect", &pgconn.ConnectError{}, CodeStoreUnavailable},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, CodeStoreUnavailable},
		{"starting up", &pgconn.PgError{Code: "57P03"}, CodeStoreUnavailable},
		{"connection failure", &pgconn.PgError{Code: "08006"}, CodeStoreUnavailable},
		{"too many connections", &pgconn.PgError{Code: "53300"}, CodeStoreUnavailable},
		{"statement timeout", &pgconn.PgError{Code: "57014"}, CodeStoreUnavailable},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, CodeStoreUnavailable},
		{"undefined table", &pgconn.PgError{Code: "42P01"}, CodeInternal},
		{"unique violation", &pgconn.PgError{Code: "23505"}, CodeInternal},
		{"wrapped shutdown", fmt.Errorf("batch: %w", &pgconn.PgError{Code: "57P01"}), CodeStoreUnavailable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := pgFailure(context.Background(), "read packets", c.err)
			if got := CodeOf(err); got != c.want {
				t.Errorf("%v: code %s, want %s", err, got, c.want)
			}
			if !errors.Is(err, c.err) {
				t.Errorf("%v does not wrap %v", err, c.err)
			}
		})
	}
}
