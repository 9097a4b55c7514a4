package store

import (
	"strings"
	"testing"
)

// What the store says of where it is (errors, Settings ▸ Team, team status)
// never holds the password, in any form of connection string pgx takes.
func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://sb:s3cret@db.example:5433/queue", "postgres://sb:xxxxx@db.example:5433/queue"},
		{"postgres://sb@db.example/queue?password=s3cret&sslmode=require", "password=xxxxx"},
		{"postgresql:///queue?host=/run/pg", "postgresql:///queue?host=/run/pg"},
		{"host=/run/pg dbname=queue user=sb password=s3cret", "host=/run/pg port=5432 dbname=queue user=sb"},
		{"host=db.example password='s3cret with spaces' dbname=queue", "dbname=queue"},
		{"host=db.example password = s3cret dbname=queue", "host=db.example"},
		{"password='s3cret", "cannot be read"},
	} {
		got := redactURL(c.in)
		if strings.Contains(got, "s3cret") || !strings.Contains(got, c.want) {
			t.Errorf("redactURL(%q) = %q, want it to hold %q and no password", c.in, got, c.want)
		}
	}
}
