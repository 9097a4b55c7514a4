package launch

import (
	"net/url"
	"regexp"
	"strings"
)

// passwordInDSN finds a password in a key=value connection string
// ("host=db user=ada password=…").
var passwordInDSN = regexp.MustCompile(`(^|\s)password\s*=`)

// holdsPassword reports whether a PostgreSQL connection string names a
// password: in a URL's user part (postgres://ada:secret@db/x), in its
// query (?password=…), or as a key=value pair.
func holdsPassword(conn string) bool {
	if scheme, _, ok := strings.Cut(conn, "://"); ok && (scheme == "postgres" || scheme == "postgresql") {
		u, err := url.Parse(conn)
		if err != nil {
			// Unreadable: say nothing here; opening it says what is wrong.
			return false
		}
		if _, set := u.User.Password(); set {
			return true
		}
		return u.Query().Has("password")
	}
	return passwordInDSN.MatchString(conn)
}

// databaseFlagError refuses a --database given on the command line with a
// password in it: every process of every user on the machine reads a
// command line (ps, /proc), for as long as the app runs. From the
// environment it stays the person's.
func databaseFlagError(conn string, fromFlag bool) string {
	if !fromFlag || !holdsPassword(conn) {
		return ""
	}
	return "--database: the URL holds a password, which any process on this machine can read in the command line (ps); " +
		"set SWITCHBOARD_DATABASE_URL instead, or keep the password in ~/.pgpass (PostgreSQL's password file, mode 0600)"
}
