package launch

import "github.com/switchboard-dev/switchboard/app/daemon"

// databaseFlagError refuses a --database given on the command line with a
// password in it: every process of every user on the machine reads a
// command line (ps, /proc), for as long as the app runs. From the
// environment it stays the person's.
func databaseFlagError(conn string, fromFlag bool) string {
	if !fromFlag || !daemon.HoldsPassword(conn) {
		return ""
	}
	return "--database: the URL holds a password, which any process on this machine can read in the command line (ps); " +
		"set SWITCHBOARD_DATABASE_URL instead, or keep the password in ~/.pgpass (PostgreSQL's password file, mode 0600)"
}
