package store

import (
	"context"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The database is a tree of buckets:
//
//	meta/
//	  schema_version     -> uint64, big-endian
//	settings/
//	  <name>             -> value (e.g. "http_addr" -> "127.0.0.1:43127")
//	tokens/
//	  <keyid>            -> tokenRecord JSON (salt and hash, never the secret)
//	repositories/
//	  <repo_id>          -> Repository JSON
//	audit/
//	  <seq uint64 BE>    -> AuditRecord JSON, hash-chained to seq-1
//	audit_shown/
//	  <seq uint64 BE>    -> empty: the audit records that are not views
//	                        (audit_views.go), which the default query walks
//
// Sequence keys are big-endian so that bucket order is numeric order and a
// cursor pages without scanning.
var (
	bucketMeta         = []byte("meta")
	bucketSettings     = []byte("settings")
	bucketTokens       = []byte("tokens")
	bucketRepositories = []byte("repositories")
	bucketAudit        = []byte("audit")

	keySchemaVersion = []byte("schema_version")
)

// migration moves the schema from version-1 to version. Migrations are
// append-only: a released one is never edited, a fix is a new one.
type migration struct {
	version int
	name    string
	apply   func(kvTx) error
}

var migrations = []migration{
	{1, "initial buckets", func(tx kvTx) error {
		for _, name := range [][]byte{bucketSettings, bucketTokens, bucketRepositories, bucketAudit} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	}},
	{2, "work packets, leases and artifacts", func(tx kvTx) error { return createBuckets(tx, workBuckets) }},
	{3, "sessions, questions and trace events", func(tx kvTx) error { return createBuckets(tx, sessionBuckets) }},
	{4, "agent profiles", func(tx kvTx) error { return createBuckets(tx, [][]byte{bucketProfiles}) }},
	{5, "trace events and reports in one log", migrateTraceLog},
	{6, "index of the audit records that are not views", migrateAuditShown},
	{7, "instances and each instance's repository folders", func(tx kvTx) error {
		return createBuckets(tx, [][]byte{bucketInstances, bucketRepoPaths})
	}},
	{8, "packet counts by repository and state", migrateRepoCounts},
}

func createBuckets(tx kvTx, names [][]byte) error {
	for _, name := range names {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}

// SchemaVersion is the version this program writes.
func SchemaVersion() int { return migrations[len(migrations)-1].version }

// migrate applies every pending migration in one transaction, so a crash
// leaves the database either wholly before or wholly after.
func (db *DB) migrate() error {
	if db.pg != nil {
		// The tables are made under the writer lock: two instances
		// starting at once make them, and apply each migration, once.
		return db.pg.run(context.Background(), true, pgSchema, func(tx kvTx) error { return migrateKV(tx, migrations) })
	}
	return applyMigrations(db.bolt, migrations)
}

func applyMigrations(b *bolt.DB, ms []migration) error {
	return b.Update(func(btx *bolt.Tx) error { return migrateKV(kvTx{bolt: btx}, ms) })
}

// migrateKV applies the migrations of ms that tx's schema version has not
// had yet, and records the version.
func migrateKV(tx kvTx, ms []migration) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return fmt.Errorf("create meta bucket: %w", err)
	}
	current := 0
	if v := meta.Get(keySchemaVersion); len(v) == 8 {
		current = int(binary.BigEndian.Uint64(v))
	}
	if latest := ms[len(ms)-1].version; current > latest {
		return fmt.Errorf("schema version %d, this program knows up to %d: %w", current, latest, ErrNewerSchema)
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		if err := m.apply(tx); err != nil {
			return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
		}
		current = m.version
	}
	return meta.Put(keySchemaVersion, u64(uint64(current)))
}

func u64(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}

// StoredSchemaVersion reads the version recorded in the file.
func (tx *Tx) StoredSchemaVersion() int {
	v := tx.tx.Bucket(bucketMeta).Get(keySchemaVersion)
	if len(v) != 8 {
		return 0
	}
	return int(binary.BigEndian.Uint64(v))
}

// Setting returns a stored setting, or "" when unset.
func (tx *Tx) Setting(name string) string {
	return string(tx.tx.Bucket(bucketSettings).Get(tx.instanceSettingKey(name)))
}

// SetSetting stores a setting; an empty value deletes it.
func (tx *Tx) SetSetting(name, value string) error {
	b := tx.tx.Bucket(bucketSettings)
	if value == "" {
		return b.Delete(tx.instanceSettingKey(name))
	}
	return b.Put(tx.instanceSettingKey(name), []byte(value))
}
