package launch

import "testing"

func TestDatabaseFlagPassword(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		conn     string
		fromFlag bool
		refused  bool
	}{
		{"postgres://ada:secret@db.internal/switchboard", true, true},
		{"postgresql://ada:@db/x", true, true}, // an empty password is still one
		{"postgres://ada@db/x?sslmode=require&password=secret", true, true},
		{"host=/run/postgresql dbname=x password=secret", true, true},
		{"host=db password = secret", true, true},
		{"postgres://ada:secret@db.internal/switchboard", false, false}, // from the environment
		{"postgres://ada@db.internal/switchboard", true, false},
		{"postgres:///switchboard?host=/run/postgresql", true, false},
		{"host=db dbname=x user=ada", true, false},
		{"host=db passwordless=1", true, false},
		{"", true, false},
	} {
		if got := databaseFlagError(tt.conn, tt.fromFlag) != ""; got != tt.refused {
			t.Errorf("%q (flag %v): refused %v, want %v", tt.conn, tt.fromFlag, got, tt.refused)
		}
	}
}
