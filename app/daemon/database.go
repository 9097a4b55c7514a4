package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/internal/atomicfile"
	"github.com/switchboard-dev/switchboard/store"
)

// passwordInDSN finds a password in a key=value connection string
// ("host=db user=ada password=…").
var passwordInDSN = regexp.MustCompile(`(^|\s)password\s*=`)

// HoldsPassword reports whether a PostgreSQL connection string names a
// password: in a URL's user part (postgres://ada:secret@db/x), in its
// query (?password=…), or as a key=value pair.
func HoldsPassword(conn string) bool {
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

// The team database a person connects to from Settings is kept in the
// data folder (owner-only), for the next start to open when neither
// --database nor SWITCHBOARD_DATABASE_URL names one. Never with a password
// in it: ~/.pgpass holds that.

// databaseFile is where the saved team database URL is.
func (p Paths) databaseFile() string { return filepath.Join(p.Data, "team-database") }

// SavedDatabase returns the team database URL saved from Settings, "" when
// none is.
func SavedDatabase(p Paths) (string, error) {
	b, err := os.ReadFile(p.databaseFile())
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the saved team database: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// SaveDatabase saves conn as the team database the next start opens; ""
// forgets it, and the next start opens this machine's bbolt file again. A
// connection string with a password in it is refused.
func SaveDatabase(p Paths, conn string) error {
	conn = strings.TrimSpace(conn)
	if conn == "" {
		if err := os.Remove(p.databaseFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("forget the team database: %w", err)
		}
		return nil
	}
	if err := checkSavable(conn); err != nil {
		return err
	}
	if err := atomicfile.Write(p.databaseFile(), []byte(conn+"\n"), 0o600); err != nil {
		return fmt.Errorf("save the team database: %w", err)
	}
	return nil
}

// checkSavable refuses what is not a PostgreSQL connection string to keep:
// one with a password, or one with no server to name.
func checkSavable(conn string) error {
	if HoldsPassword(conn) {
		return errors.New("the connection string holds a password: keep it in ~/.pgpass (PostgreSQL's password file, mode 0600) and leave it out here")
	}
	if strings.ContainsAny(conn, "\n\r\x00") || len(conn) > 2048 {
		return errors.New("that is not a connection string")
	}
	return nil
}

// TryDatabase opens the PostgreSQL database conn names and closes it again:
// Settings connects only to a database that answers, and has the schema
// made, before anything is saved or restarted. It takes at most timeout.
func TryDatabase(conn string, timeout time.Duration) error {
	if err := checkSavable(conn); err != nil {
		return err
	}
	db, err := store.OpenPostgres(conn, store.Options{Timeout: timeout})
	if err != nil {
		return err
	}
	return db.Close()
}

// Who named the team database (Config.DatabaseFrom).
const (
	DatabaseFromFlag     = "flag"     // --database
	DatabaseFromEnv      = "env"      // SWITCHBOARD_DATABASE_URL
	DatabaseFromSettings = "settings" // saved from Settings (SaveDatabase)
)

// Database is the team database the store is on ("" for this machine's
// bbolt file) and who named it (DatabaseFrom*).
func (d *Daemon) Database() (conn, from string) { return d.cfg.DatabaseURL, d.cfg.DatabaseFrom }

// RequestRestart asks the program to start again once it has closed: a
// store moved to or from a team database is opened at a start.
func (d *Daemon) RequestRestart() { d.restart.Store(true) }

// RestartRequested reports whether RequestRestart was called.
func (d *Daemon) RestartRequested() bool { return d.restart.Load() }

// connectTimeout bounds Settings' try of a team database.
const connectTimeout = 15 * time.Second

// ConnectDatabase tries the team database conn names (TryDatabase) and,
// when it answers, saves it for the next start. Nothing is saved when it
// does not.
func (d *Daemon) ConnectDatabase(conn string) error {
	if err := TryDatabase(conn, connectTimeout); err != nil {
		return err
	}
	return SaveDatabase(d.cfg.Paths, conn)
}

// DisconnectDatabase forgets the team database saved from Settings: the
// next start opens this machine's bbolt file again. The shared database
// keeps its data.
func (d *Daemon) DisconnectDatabase() error { return SaveDatabase(d.cfg.Paths, "") }
