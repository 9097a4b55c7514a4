package daemon

import (
	"os"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/pgtest"
)

// The team database saved from Settings: kept owner-only, never with a
// password, forgotten by saving "".
func TestSavedDatabase(t *testing.T) {
	p := Paths{Data: t.TempDir()}
	if got, err := SavedDatabase(p); got != "" || err != nil {
		t.Fatalf("nothing saved: %q, %v", got, err)
	}
	for _, tc := range []struct {
		conn    string
		refused bool
	}{
		{"postgres://ada@db.internal/switchboard", false},
		{"host=/run/postgresql dbname=switchboard", false},
		{"postgres://ada:secret@db.internal/switchboard", true},
		{"host=db password=secret", true},
		{"postgres://db/x\nhost=evil", true},
	} {
		err := SaveDatabase(p, tc.conn)
		if (err != nil) != tc.refused {
			t.Errorf("SaveDatabase(%q) = %v, want refused %v", tc.conn, err, tc.refused)
			continue
		}
		if tc.refused {
			continue
		}
		got, err := SavedDatabase(p)
		if got != tc.conn || err != nil {
			t.Errorf("saved %q, read back %q, %v", tc.conn, got, err)
		}
		fi, err := os.Stat(p.databaseFile())
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("the saved file: %v, %v; want mode 0600", fi.Mode(), err)
		}
	}
	if err := SaveDatabase(p, ""); err != nil {
		t.Fatal(err)
	}
	if got, err := SavedDatabase(p); got != "" || err != nil {
		t.Errorf("after forgetting: %q, %v", got, err)
	}
}

// Connecting from Settings tries the database first: a server that answers
// is opened (its schema made) and closed; one that does not answer fails
// within the time given.
func TestTryDatabase(t *testing.T) {
	url := pgtest.Start(t).CreateDatabase(t, "tried")
	if err := TryDatabase(url, 10*time.Second); err != nil {
		t.Fatalf("a live server: %v", err)
	}
	gone := "host=" + t.TempDir() + " dbname=none"
	if err := TryDatabase(gone, 2*time.Second); err == nil {
		t.Error("a server that is not there was taken")
	}
	if err := TryDatabase("postgres://ada:secret@127.0.0.1:1/x", time.Second); err == nil {
		t.Error("a connection string with a password was tried")
	}
}
