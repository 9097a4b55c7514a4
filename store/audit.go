package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// AuditRecord is one call through the registry, denials included.
type AuditRecord struct {
	ID         string    `json:"id"`
	Seq        uint64    `json:"seq"`
	Time       time.Time `json:"time"`
	Transport  string    `json:"transport"`
	KeyID      string    `json:"keyid,omitempty"`
	SessionID  string    `json:"session_id,omitempty"`
	Method     string    `json:"method"`
	Repository string    `json:"repository_id,omitempty"`
	// Outcome is "ok", a denial code or an error code.
	Outcome string `json:"outcome"`
	// DurationMicros is how long the method ran, in microseconds.
	DurationMicros int64 `json:"duration_us"`
	// ArgsDigest is a short SHA-256 digest of the arguments: enough to tell
	// two calls apart, nothing of what was passed.
	ArgsDigest string `json:"args_digest,omitempty"`
	// Instance is the instance the call was made on, in team mode; "" with
	// a database of one instance.
	Instance string `json:"instance,omitempty"`
	PrevHash string `json:"prev_hash"`
	Hash     string `json:"hash"`
	// Rank is the record's place among the shown records (the index
	// of audit_views.go), set when a query without views read it; 0
	// otherwise. It is where the record sits in the default view, not
	// part of the record: never written, chained or sent.
	Rank uint64 `json:"-"`
}

// ArgsDigest digests call arguments for the audit log.
func ArgsDigest(args []byte) string {
	if len(bytes.TrimSpace(args)) == 0 {
		return ""
	}
	sum := sha256.Sum256(args)
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// chainInput is the exact byte string a record's hash covers. It is written
// field by field, not through encoding/json, so adding a field to the struct
// later cannot change the hash of records already written.
func chainInput(r *AuditRecord) []byte {
	var b strings.Builder
	b.WriteString("switchboard-audit-v1")
	for _, f := range []string{
		r.PrevHash,
		strconv.FormatUint(r.Seq, 10),
		r.ID,
		r.Time.UTC().Format(time.RFC3339Nano),
		r.Transport,
		r.KeyID,
		r.SessionID,
		r.Method,
		r.Repository,
		r.Outcome,
		strconv.FormatInt(r.DurationMicros, 10),
		r.ArgsDigest,
	} {
		// Length-prefixed, so no choice of field contents can make two
		// different records produce the same input.
		b.WriteString("\x00")
		b.WriteString(strconv.Itoa(len(f)))
		b.WriteString(":")
		b.WriteString(f)
	}
	// The instance came later: chained after the rest and only when set,
	// so the records written before it, and every bbolt record, hash as
	// they did.
	if r.Instance != "" {
		b.WriteString("\x00i")
		b.WriteString(strconv.Itoa(len(r.Instance)))
		b.WriteString(":")
		b.WriteString(r.Instance)
	}
	return []byte(b.String())
}

func chainHash(r *AuditRecord) string {
	sum := sha256.Sum256(chainInput(r))
	return hex.EncodeToString(sum[:])
}

// AuditID formats the public id of the record with sequence seq.
func AuditID(seq uint64) string { return fmt.Sprintf("aud_%016x", seq) }

// AppendAudit assigns r its sequence, id, time and hashes, and writes it in
// this transaction: a call's record commits with the change it made.
func (tx *Tx) AppendAudit(r *AuditRecord) error {
	b := tx.tx.Bucket(bucketAudit)
	b.Appending()
	seq, err := b.NextSequence()
	if err != nil {
		return fmt.Errorf("audit sequence: %w", err)
	}
	r.Seq = seq
	r.ID = AuditID(seq)
	if r.Time.IsZero() {
		r.Time = tx.now
	}
	r.Time = r.Time.UTC()
	r.Instance = tx.db.instance
	r.PrevHash = ""
	// The previous record is seq-1: sequences are gap-free (VerifyAudit
	// checks it). Asked for by key, it is a lookup the PostgreSQL engine
	// answers from memory when this transaction wrote it; the cursor is
	// the fallback for a log that has lost it, which chains on from its
	// last record as before.
	var pk, pv []byte
	if seq > 1 {
		pk = u64(seq - 1)
		pv = b.Get(pk)
	}
	if pv == nil {
		pk, pv = b.Cursor().Last()
	}
	if pk != nil {
		if r.PrevHash, err = tx.db.prevAuditHash(pk, pv); err != nil {
			return err
		}
	}
	r.Hash = chainHash(r)
	v, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode audit record: %w", err)
	}
	if err := b.Put(u64(seq), v); err != nil {
		return fmt.Errorf("store audit record %d: %w", seq, err)
	}
	if !r.IsView() {
		if err := indexShown(tx.tx, seq); err != nil {
			return err
		}
	}
	// The tail is set only once the write has happened: prevAuditHash's
	// argument is about writes, and a failed Put wrote nothing.
	tx.db.setAuditTail(auditTail{seq: seq, raw: v, hash: r.Hash})
	return nil
}

// AuditVerification is what VerifyAudit found.
type AuditVerification struct {
	Records int `json:"records"`
	// Views is how many of them are views (AuditRecord.IsView), which the
	// default query leaves out.
	Views    int    `json:"views"`
	LastSeq  uint64 `json:"last_seq"`
	LastHash string `json:"last_hash,omitempty"`
}

// VerifyAudit walks the whole log and checks that every record's hash covers
// its contents and names the previous record's hash, and that sequence
// numbers have no gap, and that the index of shown records holds exactly
// the records that are not views (so the default query hides no record but
// views). The error wraps ErrAuditChain and names the first bad record.
func (tx *Tx) VerifyAudit() (AuditVerification, error) {
	var v AuditVerification
	prevHash := ""
	var want uint64 = 1
	b := tx.tx.Bucket(bucketAudit)
	shown := newShownChecker(tx.tx)
	c := b.Cursor()
	for k, val := c.First(); k != nil; k, val = c.Next() {
		var r AuditRecord
		if err := json.Unmarshal(val, &r); err != nil {
			return v, fmt.Errorf("record at key %x: %v: %w", k, err, ErrAuditChain)
		}
		if len(k) != 8 {
			return v, fmt.Errorf("audit key %x is not a sequence number: %w", k, ErrAuditChain)
		}
		seq := binary.BigEndian.Uint64(k)
		switch {
		case seq != want || r.Seq != seq:
			return v, fmt.Errorf("record %d: expected sequence %d: %w", seq, want, ErrAuditChain)
		case r.PrevHash != prevHash:
			return v, fmt.Errorf("record %d: previous hash does not match record %d: %w", seq, seq-1, ErrAuditChain)
		case chainHash(&r) != r.Hash:
			return v, fmt.Errorf("record %d: contents do not match its hash: %w", seq, ErrAuditChain)
		}
		if err := shown.check(seq, &r); err != nil {
			return v, err
		}
		prevHash = r.Hash
		want++
		v.Records++
		if r.IsView() {
			v.Views++
		}
		v.LastSeq = seq
		v.LastHash = r.Hash
	}
	// The bucket's sequence counts every record ever appended: records
	// cut from the end leave no gap in the chain but show here.
	if n := b.Sequence(); n != v.LastSeq {
		return v, fmt.Errorf("log ends at record %d, but %d were written: %w", v.LastSeq, n, ErrAuditChain)
	}
	return v, shown.end()
}

// AuditFilter selects audit records. Empty fields match everything.
type AuditFilter struct {
	Method     string `json:"method,omitempty"`
	Outcome    string `json:"outcome,omitempty"`
	KeyID      string `json:"keyid,omitempty"`
	SessionID  string `json:"session_id,omitempty"`
	Transport  string `json:"transport,omitempty"`
	Repository string `json:"repository_id,omitempty"`
	// BeforeSeq pages backwards: only records with a smaller sequence. 0
	// starts from the newest.
	BeforeSeq uint64 `json:"before_seq,omitempty"`
	// AfterSeq pages forwards: only records with a larger sequence. When set,
	// records come oldest first; otherwise newest first. 0 means "not set",
	// so a forward scan from the very first record pages backwards with
	// BeforeSeq instead, or starts with AfterSeq 0 read newest first. With both set, the
	// records strictly between them, oldest first.
	AfterSeq uint64 `json:"after_seq,omitempty"`
	Limit    int    `json:"limit,omitempty"`
	// Views includes the views (AuditRecord.IsView): the GUI's own
	// refresh reads. Without it they are skipped, and so are the gaps they
	// leave in the sequence: a page is the next Limit shown records, read
	// through an index without touching the views. A Transport of
	// ViewTransport asks for views, and implies it.
	Views bool `json:"views,omitempty"`
	// BeforeRank pages the shown records backwards by rank
	// (AuditRecord.Rank): only those of a smaller rank, newest first. It
	// is how the default view, which has gaps in its seqs, is paged by
	// position. It cannot be used with views or with the seq bounds.
	BeforeRank uint64 `json:"before_rank,omitempty"`
}

func (f *AuditFilter) match(r *AuditRecord) bool {
	return (f.Method == "" || f.Method == r.Method) &&
		(f.Outcome == "" || f.Outcome == r.Outcome) &&
		(f.KeyID == "" || f.KeyID == r.KeyID) &&
		(f.SessionID == "" || f.SessionID == r.SessionID) &&
		(f.Transport == "" || f.Transport == r.Transport) &&
		(f.Repository == "" || f.Repository == r.Repository)
}

// LastAuditSeq is the newest audit record's sequence (0 for an empty log):
// sequences are gap-free from 1, so it is also the number of records. It
// is the log's sequence, which the transaction has already, rather than
// its last key, which on PostgreSQL is a read of the server; VerifyAudit
// reports a log whose end was cut off, where the two differ.
func (tx *Tx) LastAuditSeq() uint64 { return tx.tx.Bucket(bucketAudit).Sequence() }

// QueryAudit returns up to f.Limit (default 100, at most 1000) matching
// records, newest first, or oldest first after f.AfterSeq.
func (tx *Tx) QueryAudit(f AuditFilter) ([]AuditRecord, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 1000)
	views := f.Views || f.Transport == ViewTransport
	if f.BeforeRank > 0 && (views || f.AfterSeq > 0 || f.BeforeSeq > 0) {
		return nil, Deny(CodeInvalidArgument, "before_rank pages the shown records alone: it takes neither views nor a seq bound")
	}
	c := newAuditCursor(tx.tx, views)
	var k, v []byte
	var step func() ([]byte, []byte)
	if f.BeforeRank > 0 {
		k, v = c.SeekRank(f.BeforeRank)
		if k == nil && c.err == nil {
			k, v = c.Last()
		} else if k != nil {
			k, v = c.Prev()
		}
		step = c.Prev
	} else if f.AfterSeq > 0 {
		if f.AfterSeq == math.MaxUint64 {
			return []AuditRecord{}, nil // nothing after; +1 would wrap to 0
		}
		k, v = c.Seek(u64(f.AfterSeq + 1))
		step = c.Next
	} else {
		if f.BeforeSeq > 0 {
			k, v = c.Seek(u64(f.BeforeSeq))
			if k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
		} else {
			k, v = c.Last()
		}
		step = c.Prev
	}
	out := []AuditRecord{}
	for ; k != nil && len(out) < limit; k, v = step() {
		// With both bounds set, stop at the far one (a window).
		if seq := binary.BigEndian.Uint64(k); f.AfterSeq > 0 && f.BeforeSeq > 0 && seq >= f.BeforeSeq {
			break
		}
		var r AuditRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return nil, fmt.Errorf("decode audit record %x: %w", k, err)
		}
		if f.match(&r) {
			r.Rank = c.rank
			out = append(out, r)
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	return out, nil
}
