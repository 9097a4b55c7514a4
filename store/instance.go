package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Instances: in team mode several Switchboard processes, on one machine or
// several, share one database. Each has an id of its own (made once and kept
// in its local data folder, see Options.Instance) and a row here that it
// beats while it runs. An instance that stops beating was killed or lost
// its machine: another instance ends its sessions as lost (Registry's
// instance sweep). With bbolt the database is one instance's and nothing
// here is written.
//
//	instances/
//	  <instance id>           -> Instance JSON
//	repo_paths/
//	  <instance id> 0 <repo>  -> the repository's folder on that instance
var (
	bucketInstances = []byte("instances")
	bucketRepoPaths = []byte("repo_paths")
)

// maxInstanceID bounds an instance id; ids are made by NewInstanceID.
const maxInstanceID = 64

// Instance is one Switchboard process sharing the database.
type Instance struct {
	ID      string `json:"id"`
	Host    string `json:"host"`
	PID     int    `json:"pid"`
	Version string `json:"version,omitempty"`
	// StartedAt is when the instance's current run began, SeenAt its
	// last heartbeat.
	StartedAt time.Time `json:"started_at"`
	SeenAt    time.Time `json:"seen_at"`
	// StoppedAt is set by a clean stop; LostAt when another instance
	// (LostBy) found it silent and ended its sessions. A new run clears
	// both.
	StoppedAt *time.Time `json:"stopped_at,omitempty"`
	LostAt    *time.Time `json:"lost_at,omitempty"`
	LostBy    string     `json:"lost_by,omitempty"`
}

// Silent reports whether the instance is running by its record yet has not
// beaten within grace of now.
func (in Instance) Silent(now time.Time, grace time.Duration) bool {
	return in.StoppedAt == nil && in.LostAt == nil && now.Sub(in.SeenAt) > grace
}

// NewInstanceID makes an instance id.
func NewInstanceID() string { return NewID("inst") }

// CheckInstanceID refuses an id that is not one NewInstanceID could make:
// it is a key prefix, and it is shown.
func CheckInstanceID(id string) error {
	rest, ok := strings.CutPrefix(id, "inst_")
	if !ok || rest == "" || len(id) > maxInstanceID || !isLowerHex(rest) {
		return fmt.Errorf("instance id %q is not inst_ and lowercase hex", id)
	}
	return nil
}

// InstanceID is the id of the instance this database was opened as; ""
// for a database of one instance alone (bbolt).
func (tx *Tx) InstanceID() string { return tx.db.instance }

// InstanceBeat is what a heartbeat records of the beating instance.
type InstanceBeat struct {
	Host    string
	PID     int
	Version string
	// Started is when this run began: a beat with a later start than the
	// record's is a new run, which is running again whatever the record
	// said.
	Started time.Time
}

// BeatInstance records a heartbeat of the instance this database was
// opened as, and returns its record as it was before: one with LostAt set
// says another instance took this one for lost, while it was only silent,
// and ended its sessions. The beat makes it running again either way.
func (tx *Tx) BeatInstance(b InstanceBeat) (Instance, error) {
	id := tx.db.instance
	if id == "" {
		return Instance{}, fmt.Errorf("heartbeat: the database was opened as no instance")
	}
	was, _, err := tx.Instance(id)
	if err != nil {
		return Instance{}, err
	}
	in := Instance{ID: id, Host: b.Host, PID: b.PID, Version: b.Version, StartedAt: b.Started.UTC(), SeenAt: tx.now}
	return was, tx.putInstance(in)
}

// StopInstance records that the instance this database was opened as
// stopped cleanly: it is not lost, and nobody sweeps it.
func (tx *Tx) StopInstance() error {
	in, ok, err := tx.Instance(tx.db.instance)
	if err != nil || !ok {
		return err
	}
	now := tx.now
	in.StoppedAt = &now
	return tx.putInstance(in)
}

// MarkInstanceLost records that instance id was found silent by this one.
func (tx *Tx) MarkInstanceLost(id string) (Instance, error) {
	in, ok, err := tx.Instance(id)
	if err != nil {
		return Instance{}, err
	}
	if !ok {
		return Instance{}, Deny(CodeNotFound, "no instance %s", id)
	}
	now := tx.now
	in.LostAt, in.LostBy = &now, tx.db.instance
	return in, tx.putInstance(in)
}

// Instance returns one instance's record.
func (tx *Tx) Instance(id string) (Instance, bool, error) {
	v := tx.tx.Bucket(bucketInstances).Get([]byte(id))
	if v == nil {
		return Instance{}, false, nil
	}
	var in Instance
	if err := json.Unmarshal(v, &in); err != nil {
		return Instance{}, false, fmt.Errorf("decode instance %s: %w", id, err)
	}
	return in, true, nil
}

// Instances lists every instance that ever beat, the most recently seen
// first.
func (tx *Tx) Instances() ([]Instance, error) {
	out := []Instance{}
	err := tx.tx.Bucket(bucketInstances).ForEach(func(k, v []byte) error {
		var in Instance
		if err := json.Unmarshal(v, &in); err != nil {
			return fmt.Errorf("decode instance %s: %w", k, err)
		}
		out = append(out, in)
		return nil
	})
	slices.SortStableFunc(out, func(a, b Instance) int { return b.SeenAt.Compare(a.SeenAt) })
	return out, err
}

func (tx *Tx) putInstance(in Instance) error {
	v, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encode instance %s: %w", in.ID, err)
	}
	if err := tx.tx.Bucket(bucketInstances).Put([]byte(in.ID), v); err != nil {
		return fmt.Errorf("store instance %s: %w", in.ID, err)
	}
	return nil
}

// SessionsOfInstance returns the live sessions instance id runs.
func (tx *Tx) SessionsOfInstance(id string) ([]Session, error) {
	live, err := tx.liveSessions()
	var out []Session
	for _, s := range live {
		if s.Instance == id {
			out = append(out, s)
		}
	}
	return out, err
}

// instanceSettingKey is where setting name of this instance is kept: in
// team mode every setting is the instance's own (its listener, its client
// token), since the settings there are about the process, not the queue.
func (tx *Tx) instanceSettingKey(name string) []byte {
	if tx.db.instance == "" {
		return []byte(name)
	}
	return []byte(tx.db.instance + "\x00" + name)
}

func repoPathKey(instance, repoID string) []byte {
	return []byte(instance + "\x00" + repoID)
}
