package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestWorkBucketsExist(t *testing.T) {
	db := openTestDB(t, Options{})
	mustView(t, db, func(tx *Tx) error {
		for _, name := range workBuckets {
			if tx.tx.Bucket(name).Missing() {
				t.Errorf("bucket %s missing after Open", name)
			}
		}
		checkWorkIndexes(t, tx)
		return nil
	})
}

func TestWorkHappyPath(t *testing.T) {
	w := newWorkEnv(t)
	created := w.clock.Now()
	p := w.create(PacketSpec{
		Title:             "  Fix the parser  ",
		Instructions:      "Make the parser accept trailing commas.",
		ExpectedArtifacts: []ExpectedArtifact{{Name: "summary", Kind: "markdown"}, {Name: "patch", Kind: "diff"}},
		WriteScope:        []string{"./out//", "docs//*.md"},
		Priority:          2,
		ReviewRequired:    true,
	})
	if !regexp.MustCompile(`^pkt_[0-9a-f]{20}$`).MatchString(p.ID) {
		t.Errorf("packet id %q", p.ID)
	}
	if p.Title != "Fix the parser" || p.State != PacketQueued || p.Attempt != 0 || p.MaxAttempts != DefaultMaxAttempts ||
		p.Lease != nil || !p.CreatedAt.Equal(created) || !p.UpdatedAt.Equal(created) || p.RepositoryID != w.repo.ID {
		t.Errorf("created packet %+v", p)
	}
	if !slices.Equal(p.WriteScope, []string{"out/**", "docs/*.md"}) {
		t.Errorf("write scope %q, want cleaned", p.WriteScope)
	}

	w.clock.Add(time.Second)
	c := w.claim("ses_a")
	if c.ID != p.ID || c.State != PacketClaimed || c.Attempt != 1 || c.Lease == nil {
		t.Fatalf("claimed %+v", c)
	}
	if !regexp.MustCompile(`^lse_[0-9a-f]{20}$`).MatchString(c.Lease.ID) || c.Lease.SessionID != "ses_a" ||
		!c.Lease.ClaimedAt.Equal(w.clock.Now()) || !c.Lease.ExpiresAt.Equal(w.clock.Now().Add(5*time.Minute)) {
		t.Errorf("lease %+v", *c.Lease)
	}
	if _, ok, err := w.claimFrom(w.repo.ID, "ses_b", time.Minute); ok || err != nil {
		t.Errorf("second claim on a one-packet queue = %v, %v", ok, err)
	}

	w.clock.Add(time.Second)
	a, err := w.ack(c, 10*time.Minute)
	if err != nil || a.State != PacketInProgress || a.Lease.ID != c.Lease.ID || !a.Lease.ExpiresAt.Equal(w.clock.Now().Add(10*time.Minute)) {
		t.Fatalf("ack = %+v, %v", a, err)
	}

	writeRepoFile(t, filepath.Join(w.repo.Path, "out", "fix.diff"), "--- a\n+++ b\n")
	inline, err := w.publish(a, ArtifactSpec{Name: "summary", Content: workStr("# Done\n")})
	if err != nil {
		t.Fatalf("publish inline: %v", err)
	}
	if !strings.HasPrefix(inline.ID, "art_") || inline.Kind != "markdown" || inline.SHA256 != sha256Hex("# Done\n") ||
		inline.Size != 7 || inline.Path != "" || *inline.Content != "# Done\n" || inline.SessionID != "ses_a" || inline.LeaseID != c.Lease.ID {
		t.Errorf("inline artifact %+v", inline)
	}
	byPath, err := w.publish(a, ArtifactSpec{Name: "patch", Path: "out/fix.diff", SHA256: strings.ToUpper(sha256Hex("--- a\n+++ b\n")), Size: 12})
	if err != nil {
		t.Fatalf("publish path: %v", err)
	}
	if byPath.Path != "out/fix.diff" || byPath.SHA256 != sha256Hex("--- a\n+++ b\n") || byPath.Size != 12 || byPath.Content != nil || byPath.Kind != "diff" {
		t.Errorf("path artifact %+v", byPath)
	}

	w.clock.Add(time.Second)
	done, err := w.complete(a, "parser fixed")
	if err != nil || done.State != PacketInReview || done.Lease != nil || done.Summary != "parser fixed" {
		t.Fatalf("complete = %+v, %v", done, err)
	}
	if _, err := w.complete(a, "again"); CodeOf(err) != CodeLeaseLost {
		t.Errorf("complete twice: %v, want lease_lost", err)
	}

	w.clock.Add(time.Second)
	v, err := w.verdict(p.ID, VerdictApprove, "good")
	if err != nil || v.State != PacketDone || v.ReviewNotes != "good" || !v.UpdatedAt.Equal(w.clock.Now()) {
		t.Fatalf("approve = %+v, %v", v, err)
	}
	if got, want := historyStates(v), []PacketState{PacketQueued, PacketClaimed, PacketInProgress, PacketInReview, PacketDone}; !slices.Equal(got, want) {
		t.Errorf("history %v, want %v", got, want)
	}
	if h := v.History[1]; h.SessionID != "ses_a" || h.From != PacketQueued || !h.At.Equal(created.Add(time.Second)) {
		t.Errorf("claim transition %+v", h)
	}
	if got := w.get(p.ID); !got.UpdatedAt.Equal(v.UpdatedAt) || got.State != PacketDone {
		t.Errorf("Packet() = %+v", got)
	}
	arts := w.artifacts(p.ID)
	if len(arts) != 2 || arts[0].Name != "patch" || arts[1].Name != "summary" || *arts[1].Content != "# Done\n" {
		t.Errorf("Artifacts = %+v", arts)
	}
	mustView(t, w.db, func(tx *Tx) error {
		if got := tx.PacketCounts(); got[PacketDone] != 1 || got[PacketQueued] != 0 || len(got) != len(packetStates) {
			t.Errorf("PacketCounts = %v", got)
		}
		if _, err := tx.Packet("pkt_nope"); CodeOf(err) != CodeNotFound {
			t.Errorf("Packet(unknown) = %v", err)
		}
		if _, err := tx.Artifacts("pkt_nope"); CodeOf(err) != CodeNotFound {
			t.Errorf("Artifacts(unknown) = %v", err)
		}
		return nil
	})
}

func TestCreatePacketValidation(t *testing.T) {
	w := newWorkEnv(t)
	ok := func(s PacketSpec) PacketSpec {
		if s.RepositoryID == "" {
			s.RepositoryID = w.repo.ID
		}
		return s
	}
	for _, c := range []struct {
		name string
		spec PacketSpec
		code Code
	}{
		{"unregistered repository", PacketSpec{RepositoryID: "repo_nope", Title: "t"}, CodeRepoNotRegistered},
		{"no title", ok(PacketSpec{}), CodeInvalidArgument},
		{"blank title", ok(PacketSpec{Title: " \t"}), CodeInvalidArgument},
		{"long title", ok(PacketSpec{Title: strings.Repeat("t", maxPacketTitle+1)}), CodeInvalidArgument},
		{"title not UTF-8", ok(PacketSpec{Title: "\xff"}), CodeInvalidArgument},
		{"max attempts 101", ok(PacketSpec{Title: "t", MaxAttempts: 101}), CodeInvalidArgument},
		{"max attempts -1", ok(PacketSpec{Title: "t", MaxAttempts: -1}), CodeInvalidArgument},
		{"unnamed artifact", ok(PacketSpec{Title: "t", ExpectedArtifacts: []ExpectedArtifact{{Kind: "x"}}}), CodeInvalidArgument},
		{"artifact twice", ok(PacketSpec{Title: "t", ExpectedArtifacts: []ExpectedArtifact{{Name: "a"}, {Name: "a"}}}), CodeInvalidArgument},
		{"artifact name with NUL", ok(PacketSpec{Title: "t", ExpectedArtifacts: []ExpectedArtifact{{Name: "a\x00"}}}), CodeInvalidArgument},
		{"too many globs", ok(PacketSpec{Title: "t", WriteScope: slices.Repeat([]string{"a"}, maxPacketListItems+1)}), CodeInvalidArgument},
		{"instructions too long", ok(PacketSpec{Title: "t", Instructions: strings.Repeat("i", maxPacketInstructions+1)}), CodeInvalidArgument},
		{"max attempts 100", ok(PacketSpec{Title: "t", MaxAttempts: 100}), ""},
		{"max attempts 1", ok(PacketSpec{Title: "t", MaxAttempts: 1}), ""},
		{"duplicate globs merge", ok(PacketSpec{Title: "t", WriteScope: []string{"a/*", "./a/*"}}), ""},
	} {
		p, err := w.pkt(func(tx *Tx) (Packet, error) { return tx.CreatePacket(c.spec) })
		wantWorkCode(t, err, c.code, c.name)
		if err == nil && c.name == "duplicate globs merge" && !slices.Equal(p.WriteScope, []string{"a/*"}) {
			t.Errorf("write scope %q", p.WriteScope)
		}
	}
	p := w.create(PacketSpec{})
	if p.ExpectedArtifacts == nil || p.WriteScope == nil {
		t.Errorf("empty lists should be [] in JSON, got %+v", p)
	}
}

func TestPacketsListing(t *testing.T) {
	w := newWorkEnv(t)
	other := w.addRepo(t.TempDir())
	var ids []string // oldest first
	for i := range 7 {
		repo := w.repo.ID
		if i%3 == 2 {
			repo = other.ID
		}
		ids = append(ids, w.create(PacketSpec{RepositoryID: repo, Priority: i}).ID)
		w.clock.Add(time.Second)
	}
	claimed := w.claim("ses_a") // highest priority of w.repo: ids[6]
	list := func(f PacketFilter) []string {
		t.Helper()
		var out []string
		mustView(t, w.db, func(tx *Tx) error {
			ps, err := tx.Packets(f)
			for _, p := range ps {
				out = append(out, p.ID)
			}
			return err
		})
		return out
	}
	rev := slices.Clone(ids)
	slices.Reverse(rev)
	if got := list(PacketFilter{}); !slices.Equal(got, rev) {
		t.Errorf("all = %v, want newest first %v", got, rev)
	}
	if got := list(PacketFilter{Limit: 3}); !slices.Equal(got, rev[:3]) {
		t.Errorf("page 1 = %v", got)
	}
	if got := list(PacketFilter{Limit: 3, After: rev[2]}); !slices.Equal(got, rev[3:6]) {
		t.Errorf("page 2 = %v", got)
	}
	if got := list(PacketFilter{Limit: 3, After: rev[5]}); !slices.Equal(got, rev[6:]) {
		t.Errorf("page 3 = %v", got)
	}
	if got := list(PacketFilter{After: ids[0]}); len(got) != 0 {
		t.Errorf("after the oldest = %v", got)
	}
	if got := list(PacketFilter{RepositoryID: other.ID}); !slices.Equal(got, []string{ids[5], ids[2]}) {
		t.Errorf("other repo = %v", got)
	}
	if got := list(PacketFilter{State: PacketClaimed}); !slices.Equal(got, []string{claimed.ID}) {
		t.Errorf("claimed = %v", got)
	}
	if got := list(PacketFilter{RepositoryID: other.ID, State: PacketClaimed}); len(got) != 0 {
		t.Errorf("claimed in other = %v", got)
	}
	mustView(t, w.db, func(tx *Tx) error {
		if _, err := tx.Packets(PacketFilter{State: "lost"}); CodeOf(err) != CodeInvalidArgument {
			t.Errorf("unknown state = %v", err)
		}
		if _, err := tx.Packets(PacketFilter{After: "pkt_nope"}); CodeOf(err) != CodeInvalidArgument {
			t.Errorf("unknown cursor = %v", err)
		}
		counts := tx.PacketCounts()
		if counts[PacketQueued] != 6 || counts[PacketClaimed] != 1 {
			t.Errorf("PacketCounts = %v", counts)
		}
		return nil
	})
}

func TestPacketHistoryBounded(t *testing.T) {
	w := newWorkEnv(t)
	p := w.create(PacketSpec{})
	for i := range maxPacketHistory {
		c := w.claim("ses_a")
		if _, err := w.release(c, fmt.Sprint("round ", i)); err != nil {
			t.Fatal(err)
		}
	}
	got := w.get(p.ID)
	if len(got.History) != maxPacketHistory || got.Attempt != maxPacketHistory {
		t.Fatalf("%d history entries, attempt %d", len(got.History), got.Attempt)
	}
	if last := got.History[len(got.History)-1]; last.Reason != fmt.Sprint("round ", maxPacketHistory-1) || last.To != PacketQueued {
		t.Errorf("newest transition %+v", last)
	}
	long := strings.Repeat("é", maxTransitionReason)
	c := w.claim("ses_a")
	r, err := w.release(c, long)
	if err != nil {
		t.Fatal(err)
	}
	if reason := r.History[len(r.History)-1].Reason; len(reason) > maxTransitionReason+len("…") || !utf8.ValidString(reason) {
		t.Errorf("long reason kept as %d bytes", len(reason))
	}
}

func TestQueueKeyOrder(t *testing.T) {
	prios := []int{math.MaxInt, 1 << 40, 7, 1, 0, -1, -7, -1 << 40, math.MinInt}
	var keys [][]byte
	for _, pr := range prios {
		for _, seq := range []uint64{1, 2, 1 << 40} {
			keys = append(keys, queueKey("repo_a", pr, seq))
		}
	}
	if !slices.IsSortedFunc(keys, bytes.Compare) {
		t.Error("queue keys do not sort by descending priority, then ascending seq")
	}
	times := []time.Time{time.Unix(-1, 0), time.Unix(0, 0), time.Unix(0, 1), time.Now(), time.Now().Add(MaxLease)}
	for i := 1; i < len(times); i++ {
		a, b := expiryKey(times[i-1], "pkt_b"), expiryKey(times[i], "pkt_a")
		if bytes.Compare(a, b) >= 0 {
			t.Errorf("expiry key of %v does not sort before %v", times[i-1], times[i])
		}
		if got := expiryTime(b); !got.Equal(times[i]) {
			t.Errorf("expiryTime round trip %v -> %v", times[i], got)
		}
	}
	if binary.BigEndian.Uint64(queueKey("r", 0, 5)[2:10]) != ^(uint64(1) << 63) {
		t.Error("priority 0 encoding")
	}
}

// One op: a claim and a complete, each its own Update (as the registry runs
// them), against a queue kept 10,000 deep: each op also creates one packet.
// "fsync" is what a call costs; "nosync" the store's own work.
func BenchmarkClaimComplete(b *testing.B) {
	for _, mode := range []string{"fsync", "nosync"} {
		b.Run(mode, func(b *testing.B) {
			const depth = 10000
			db := openTestDB(b, Options{})
			if mode == "nosync" {
				skipSync(db)
			}
			var repo Repository
			mustUpdate(b, db, func(tx *Tx) error {
				var err error
				if repo, _, err = tx.RegisterRepository("", b.TempDir()); err != nil {
					return err
				}
				for i := range depth {
					if _, err := tx.CreatePacket(PacketSpec{RepositoryID: repo.ID, Title: fmt.Sprint("p", i), Priority: i % 5,
						ExpectedArtifacts: []ExpectedArtifact{{Name: "summary"}}, WriteScope: []string{"out/**"}}); err != nil {
						return err
					}
				}
				return nil
			})
			content := "done"
			for b.Loop() {
				var p Packet
				if err := db.Update(context.Background(), func(tx *Tx) error {
					if _, err := tx.CreatePacket(PacketSpec{RepositoryID: repo.ID, Title: "more", Priority: 2,
						ExpectedArtifacts: []ExpectedArtifact{{Name: "summary"}}, WriteScope: []string{"out/**"}}); err != nil {
						return err
					}
					var ok bool
					var err error
					if p, ok, err = tx.ClaimPacket(repo.ID, "ses_bench", time.Minute); err == nil && !ok {
						err = fmt.Errorf("queue empty")
					}
					return err
				}); err != nil {
					b.Fatal(err)
				}
				if err := db.Update(context.Background(), func(tx *Tx) error {
					if _, err := tx.PublishArtifact(p.ID, "ses_bench", p.Lease.ID, ArtifactSpec{Name: "summary", Content: &content}, nil); err != nil {
						return err
					}
					_, err := tx.CompletePacket(p.ID, &Session{ID: "ses_bench"}, p.Lease.ID, Completion{Summary: "ok"})
					return err
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// ClaimPacket alone at two queue depths: the cost should barely move with
// the depth (one cursor seek).
func BenchmarkClaim(b *testing.B) {
	for _, depth := range []int{100, 100000} {
		b.Run(fmt.Sprint("depth=", depth), func(b *testing.B) {
			db := openTestDB(b, Options{})
			skipSync(db)
			var repo Repository
			mustUpdate(b, db, func(tx *Tx) error {
				var err error
				repo, _, err = tx.RegisterRepository("", b.TempDir())
				return err
			})
			for start := 0; start < depth; start += 10000 {
				mustUpdate(b, db, func(tx *Tx) error {
					for i := start; i < min(start+10000, depth); i++ {
						if _, err := tx.CreatePacket(PacketSpec{RepositoryID: repo.ID, Title: "p", Priority: i % 5}); err != nil {
							return err
						}
					}
					return nil
				})
			}
			for b.Loop() {
				// Claim and hand back in one rolled-back Update, so the
				// queue stays as deep.
				err := db.Update(context.Background(), func(tx *Tx) error {
					if _, ok, err := tx.ClaimPacket(repo.ID, "ses_bench", time.Minute); err != nil || !ok {
						return fmt.Errorf("claim: %v %v", ok, err)
					}
					return errWorkRollback
				})
				if !errors.Is(err, errWorkRollback) {
					b.Fatal(err)
				}
			}
		})
	}
}

var errWorkRollback = errors.New("roll back")
