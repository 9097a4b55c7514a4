package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The landing journal: a landing under way, written before git moves a base
// branch and deleted in the transaction that marks its packet landed. Git
// and this file cannot change in one transaction, so a landing is two steps
// with the journal between them; whatever a kill interrupts, the next start
// finds the entry and asks git which side of the move it is on.
//
//	landings/  <pkt_id> -> JournaledLanding JSON    at most one per packet
//
// The bucket is made by the first landing rather than by a migration: a
// database without it has an empty journal, which is exactly what it means,
// so older files need no change and a read never has to create it.
var bucketLandings = []byte("landings")

// JournaledLanding is one landing under way.
type JournaledLanding struct {
	PacketID     string `json:"packet_id"`
	RepositoryID string `json:"repository_id"`
	// RepoPath is the repository's folder, where git is asked.
	RepoPath string `json:"repo_path"`
	// BaseRef is the full ref moving ("refs/heads/main").
	BaseRef string `json:"base_ref"`
	// OldTip is where BaseRef was when the landing commit was made, and
	// NewCommit the commit it moves to (the merge or squash commit).
	OldTip    string `json:"old_tip"`
	NewCommit string `json:"new_commit"`
	Mode      string `json:"mode"`
	// Checkout is the work tree with BaseRef checked out, which the move
	// updates with a fast-forward; "" when it is checked out nowhere.
	Checkout string    `json:"checkout,omitempty"`
	At       time.Time `json:"at"`
	// Instance is the instance whose git the landing ran in (team mode):
	// only it can settle the landing, in its own folders.
	Instance string `json:"instance,omitempty"`
}

// maxLandingPath bounds the paths a JournaledLanding keeps.
const maxLandingPath = 4096

func (l JournaledLanding) check() error {
	for name, c := range map[string]string{"old tip": l.OldTip, "new commit": l.NewCommit} {
		if len(c) != 40 && len(c) != 64 || strings.Trim(c, "0123456789abcdef") != "" {
			return Deny(CodeInvalidArgument, "landing journal: %s %q is not a full hex object name", name, c)
		}
	}
	if !strings.HasPrefix(l.BaseRef, "refs/heads/") || len(l.BaseRef) > maxLandingPath {
		return Deny(CodeInvalidArgument, "landing journal: base ref %q is not a branch", l.BaseRef)
	}
	if l.RepoPath == "" || len(l.RepoPath) > maxLandingPath || len(l.Checkout) > maxLandingPath {
		return Deny(CodeInvalidArgument, "landing journal: a repository and checkout path of at most %d bytes are required", maxLandingPath)
	}
	if l.Mode == "" {
		return Deny(CodeInvalidArgument, "landing journal: no landing mode")
	}
	return nil
}

// BeginLanding records that l is about to move its base branch. The packet
// must be done and not landed, with no other landing under way: two
// landings of one packet at once would both move the base. Denials:
// not_found, invalid_state, invalid_argument.
func (tx *Tx) BeginLanding(l JournaledLanding) error {
	if err := l.check(); err != nil {
		return err
	}
	p, _, err := tx.packet(l.PacketID)
	if err != nil {
		return err
	}
	switch {
	case p.Landed != nil:
		return Deny(CodeInvalidState, "packet %s landed already, as %s", p.ID, p.Landed.Commit)
	case p.State != PacketDone:
		return Deny(CodeInvalidState, "packet %s is %s: only a done packet lands", p.ID, p.State)
	}
	b, err := tx.tx.CreateBucketIfNotExists(bucketLandings)
	if err != nil {
		return fmt.Errorf("create bucket %s: %w", bucketLandings, err)
	}
	key := []byte(l.PacketID)
	if b.Get(key) != nil {
		return Deny(CodeInvalidState, "packet %s is being landed already", l.PacketID)
	}
	l.At = tx.now
	l.Instance = tx.db.instance
	v, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return b.Put(key, v)
}

// Landing returns the landing of pktID under way, if there is one.
func (tx *Tx) Landing(pktID string) (JournaledLanding, bool, error) {
	b := tx.tx.Bucket(bucketLandings)
	if b.Missing() {
		return JournaledLanding{}, false, nil
	}
	v := b.Get([]byte(pktID))
	if v == nil {
		return JournaledLanding{}, false, nil
	}
	var l JournaledLanding
	if err := json.Unmarshal(v, &l); err != nil {
		return JournaledLanding{}, false, fmt.Errorf("decode landing of %s: %w", pktID, err)
	}
	return l, true, nil
}

// Landings returns every landing under way of this instance, by packet
// id: in team mode another instance's landings are in its folders, for it
// to settle. A running Switchboard has at most a handful; after a crash,
// the ones it was in.
func (tx *Tx) Landings() ([]JournaledLanding, error) {
	b := tx.tx.Bucket(bucketLandings)
	if b.Missing() {
		return nil, nil
	}
	var out []JournaledLanding
	err := b.ForEach(func(k, v []byte) error {
		var l JournaledLanding
		if err := json.Unmarshal(v, &l); err != nil {
			return fmt.Errorf("decode landing of %s: %w", k, err)
		}
		if l.Instance == tx.db.instance {
			out = append(out, l)
		}
		return nil
	})
	return out, err
}

// EndLanding deletes pktID's journal entry: its landing was recorded on the
// packet in this same transaction, or it is known not to have happened.
// Ending one that is not there is not an error.
func (tx *Tx) EndLanding(pktID string) error {
	b := tx.tx.Bucket(bucketLandings)
	if b.Missing() {
		return nil
	}
	return b.Delete([]byte(pktID))
}
