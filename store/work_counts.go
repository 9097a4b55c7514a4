package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// Per-repository packet counts: how many packets each repository has in
// each state, kept by savePacket in the transaction of every packet write,
// so that the GUI counts a repository's packets without reading them.
//
//	packet_repo_counts/  <repo_id> 0x00 <state> -> count u64 BE
//	                     <repo_id> 0x00 "unlanded" -> done packets whose
//	                       changes have not landed (Changes set, Landed nil)
//
// A key whose count falls to zero is deleted.
var bucketPacketRepoCounts = []byte("packet_repo_counts")

// countUnlanded is the class of done packets with changes not yet landed;
// 0x00 cannot appear in a state, so it cannot be mistaken for one.
const countUnlanded = "unlanded"

// RepoPacketCounts are one repository's packets counted: by state, every
// state present, and how many of the done ones have changes not landed.
type RepoPacketCounts struct {
	States   map[PacketState]int `json:"states"`
	Unlanded int                 `json:"unlanded"`
}

// countClasses are the counters packet p adds one to.
func countClasses(p *Packet) []string {
	c := []string{string(p.State)}
	if p.State == PacketDone && p.Changes != nil && p.Landed == nil {
		c = append(c, countUnlanded)
	}
	return c
}

func repoCountKey(repoID, class string) []byte {
	return append(append(append([]byte(nil), repoID...), 0), class...)
}

// moveRepoCounts takes a packet of repository oldRepo out of the old
// classes and counts it, in repository repo, in cur.
func (tx *Tx) moveRepoCounts(oldRepo string, old []string, repo string, cur []string) error {
	b := tx.tx.Bucket(bucketPacketRepoCounts)
	for _, c := range old {
		if err := addKeyCount(b, repoCountKey(oldRepo, c), -1); err != nil {
			return err
		}
	}
	for _, c := range cur {
		if err := addKeyCount(b, repoCountKey(repo, c), +1); err != nil {
			return err
		}
	}
	return nil
}

func addKeyCount(b kvBucket, k []byte, delta int) error {
	var n uint64
	if v := b.Get(k); len(v) == 8 {
		n = binary.BigEndian.Uint64(v)
	}
	if delta < 0 && n == 0 {
		return fmt.Errorf("packet count %q would go below zero", k)
	}
	n = uint64(int64(n) + int64(delta))
	if n == 0 {
		return b.Delete(k)
	}
	return b.Put(k, u64(n))
}

// RepoPacketCounts returns the packet counts of repository repoID, or of
// every repository that has packets when repoID is "". It reads the
// counters, not the packets.
func (tx *Tx) RepoPacketCounts(repoID string) map[string]RepoPacketCounts {
	out := map[string]RepoPacketCounts{}
	c := tx.tx.Bucket(bucketPacketRepoCounts).Cursor()
	var prefix []byte
	if repoID != "" {
		prefix = append([]byte(repoID), 0)
		out[repoID] = newRepoPacketCounts()
	}
	k, v := c.First()
	if prefix != nil {
		k, v = c.Seek(prefix)
	}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		i := bytes.IndexByte(k, 0)
		if i < 0 || len(v) != 8 {
			continue
		}
		repo, class, n := string(k[:i]), string(k[i+1:]), int(binary.BigEndian.Uint64(v))
		rc, ok := out[repo]
		if !ok {
			rc = newRepoPacketCounts()
		}
		if class == countUnlanded {
			rc.Unlanded = n
		} else if PacketState(class).Valid() {
			rc.States[PacketState(class)] = n
		}
		out[repo] = rc
	}
	return out
}

func newRepoPacketCounts() RepoPacketCounts {
	rc := RepoPacketCounts{States: make(map[PacketState]int, len(packetStates))}
	for _, s := range packetStates {
		rc.States[s] = 0
	}
	return rc
}

// migrateRepoCounts builds the per-repository counts from the packets a
// database held before it kept them. It reads only the fields the counts
// need, and is frozen here as schema 8 wrote it.
func migrateRepoCounts(tx kvTx) error {
	b, err := tx.CreateBucketIfNotExists(bucketPacketRepoCounts)
	if err != nil {
		return fmt.Errorf("create bucket %s: %w", bucketPacketRepoCounts, err)
	}
	counts := map[string]uint64{}
	c := tx.Bucket(bucketPackets).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var p struct {
			RepositoryID string          `json:"repository_id"`
			State        PacketState     `json:"state"`
			Changes      json.RawMessage `json:"changes"`
			Landed       json.RawMessage `json:"landed"`
		}
		if err := json.Unmarshal(v, &p); err != nil {
			return fmt.Errorf("decode packet %s: %w", k, err)
		}
		counts[string(repoCountKey(p.RepositoryID, string(p.State)))]++
		if p.State == PacketDone && isJSONValue(p.Changes) && !isJSONValue(p.Landed) {
			counts[string(repoCountKey(p.RepositoryID, countUnlanded))]++
		}
	}
	for k, n := range counts {
		if err := b.Put([]byte(k), u64(n)); err != nil {
			return fmt.Errorf("store packet count %q: %w", k, err)
		}
	}
	return nil
}

func isJSONValue(v json.RawMessage) bool { return len(v) > 0 && string(v) != "null" }
