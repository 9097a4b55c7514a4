package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// A child process creates tokens (each with its audit record, in one Update)
// and prints each key id once its Update has returned; the parent kills it
// with SIGKILL mid-stream. Every key id the child acknowledged must be in the
// reopened database, the file must pass bbolt's check and the audit chain
// must verify with one record per token.
func TestDurabilityAfterSIGKILL(t *testing.T) {
	const killAfter = 200
	path := filepath.Join(t.TempDir(), "state.db")

	// A hard stop in case the child stalls: CommandContext kills it.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := helperCommand(ctx, t, "durability", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	keyIDRE := regexp.MustCompile(`^[0-9a-f]{16}\n$`)
	r := bufio.NewReader(stdout)
	var acked []string
	killed := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			// EOF after the kill; a fragment without its newline was never
			// acknowledged and is ignored.
			if err != io.EOF {
				t.Logf("read: %v", err)
			}
			break
		}
		if !keyIDRE.MatchString(line) {
			t.Fatalf("child printed %q", line)
		}
		acked = append(acked, line[:16])
		if len(acked) == killAfter && !killed {
			if err := cmd.Process.Kill(); err != nil { // SIGKILL on Unix
				t.Fatal(err)
			}
			killed = true
			// Keep reading: lines already in the pipe were acknowledged too.
		}
	}
	waitErr := cmd.Wait()
	if !killed {
		t.Fatalf("child stopped after %d tokens without being killed: %v (stderr %q)", len(acked), waitErr, stderr.String())
	}
	if ctx.Err() != nil {
		t.Fatal("child timed out")
	}
	if len(acked) < killAfter {
		t.Fatalf("only %d key ids acknowledged", len(acked))
	}

	db, err := Open(path, Options{LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatalf("Check after SIGKILL: %v", err)
	}
	mustView(t, db, func(tx *Tx) error {
		for _, k := range acked {
			if _, ok, err := tx.Token(k); err != nil || !ok {
				t.Errorf("acknowledged token %s missing after SIGKILL (%v)", k, err)
			}
		}
		toks, err := tx.Tokens()
		if err != nil {
			return err
		}
		v, err := tx.VerifyAudit()
		if err != nil {
			t.Fatalf("VerifyAudit after SIGKILL: %v", err)
		}
		// At most one Update may have committed after the last line the
		// parent read (killed between commit and print).
		if v.Records != len(toks) || len(toks) < len(acked) || len(toks) > len(acked)+1 {
			t.Errorf("%d tokens, %d audit records, %d acknowledged", len(toks), v.Records, len(acked))
		}
		// Each token has its own audit record.
		byKey := map[string]int{}
		err = tx.tx.Bucket(bucketAudit).ForEach(func(_, v []byte) error {
			var r AuditRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			byKey[r.KeyID]++
			return nil
		})
		if err != nil {
			return err
		}
		for _, tok := range toks {
			if byKey[tok.KeyID] != 1 {
				t.Errorf("token %s has %d audit records", tok.KeyID, byKey[tok.KeyID])
			}
		}
		return nil
	})
	t.Logf("%d tokens acknowledged before SIGKILL, all present", len(acked))
}
