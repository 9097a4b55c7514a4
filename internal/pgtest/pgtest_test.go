package pgtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// The server takes connections on its socket only, keeps what was
// committed across a stop and a start, and makes databases of their own
// for tests that share it.
func TestServer(t *testing.T) {
	s := Start(t)
	ctx := context.Background()
	c := connect(t, s.URL("postgres"))
	if _, err := c.Exec(ctx, "CREATE TABLE kept (n int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO kept VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	var listen string
	if err := c.QueryRow(ctx, "SHOW listen_addresses").Scan(&listen); err != nil || listen != "" {
		t.Errorf("listen_addresses = %q, %v; want none (the socket only)", listen, err)
	}
	fi, err := os.Stat(s.SocketDir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket folder: %v, %v; want owner-only", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(s.SocketDir, ".s.PGSQL.5432")); err != nil {
		t.Errorf("no socket: %v", err)
	}

	s.Stop()
	if _, err := c.Exec(ctx, "SELECT 1"); err == nil {
		t.Error("a query succeeded with the server stopped")
	}
	s.Start()
	c = connect(t, s.URL("postgres"))
	var n int
	if err := c.QueryRow(ctx, "SELECT n FROM kept").Scan(&n); err != nil || n != 42 {
		t.Errorf("after a restart: %d, %v", n, err)
	}

	other := connect(t, s.CreateDatabase(t, "other"))
	if _, err := other.Exec(ctx, "SELECT n FROM kept"); err == nil {
		t.Error("a new database holds the first one's table")
	}
}
