package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pathClaim is what a publisher says of a file: its sha256 and size.
type pathClaim struct {
	sha  string
	size int64
}

// of is the true claim for a file holding content.
func of(content string) pathClaim { return pathClaim{sha256Hex(content), int64(len(content))} }

// pathRepo lays out a repository for the path checks: files inside and
// outside the write scope, a folder, links that stay inside and links that
// lead out, and a file one byte over MaxArtifactFile (sparse: nothing is
// written, and nothing should be read). It returns the folder outside.
func pathRepo(t *testing.T, repo string) (outside string) {
	t.Helper()
	outside = t.TempDir()
	writeRepoFile(t, filepath.Join(outside, "secret.txt"), "secret")
	for name, content := range map[string]string{
		"out/ok.txt":        "ok",
		"out/empty":         "",
		"out/sub/inner.txt": "inner",
		"docs/readme.md":    "readme",
		"src/main.go":       "package main",
		"out/big":           "",
	} {
		writeRepoFile(t, filepath.Join(repo, filepath.FromSlash(name)), content)
	}
	if err := os.Truncate(filepath.Join(repo, "out", "big"), MaxArtifactFile+1); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"out/esc":      filepath.Join(outside, "secret.txt"), // a file outside
		"out/escdir":   outside,                              // a folder outside
		"out/dangling": filepath.Join(outside, "nothing"),    // a link to nowhere
		"out/up":       "../..",                              // relative, climbing out
		"out/inner":    filepath.Join(repo, "out", "sub"),    // inside: fine
		"out/rel":      "sub",                                // relative, inside: fine
	} {
		if err := os.Symlink(target, filepath.Join(repo, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	return outside
}

// A path artifact is recorded only when the file is there, in the
// repository and the write scope, and has the size and sha256 claimed.
func TestPublishPathChecks(t *testing.T) {
	w := newWorkEnv(t)
	repo := w.repo.Path
	outside := pathRepo(t, repo)
	w.create(PacketSpec{WriteScope: []string{"out/**", "docs/*.md"}})
	c := w.claim("ses_a")
	cases := []struct {
		name     string
		path     string
		claim    pathClaim
		code     Code
		wantPath string
		reason   string // a part of the denial's reason
	}{
		{name: "a file", path: "out/ok.txt", claim: of("ok"), wantPath: "out/ok.txt"},
		{name: "cleaned", path: "./out//ok.txt", claim: of("ok"), wantPath: "out/ok.txt"},
		{name: "dot-dot inside", path: "out/sub/../ok.txt", claim: of("ok"), wantPath: "out/ok.txt"},
		{name: "sha256 in capitals", path: "out/ok.txt", claim: pathClaim{strings.ToUpper(sha256Hex("ok")), 2}, wantPath: "out/ok.txt"},
		{name: "an empty file", path: "out/empty", claim: of(""), wantPath: "out/empty"},
		{name: "through a link inside", path: "out/inner/inner.txt", claim: of("inner"), wantPath: "out/inner/inner.txt"},
		{name: "through a relative link inside", path: "out/rel/inner.txt", claim: of("inner"), wantPath: "out/rel/inner.txt"},
		{name: "second glob", path: "docs/readme.md", claim: of("readme"), wantPath: "docs/readme.md"},

		{name: "missing file", path: "out/new/deeper/file.txt", claim: of("x"), code: CodeArtifactMismatch, reason: "does not exist"},
		{name: "missing under a link inside", path: "out/inner/later.txt", claim: of("x"), code: CodeArtifactMismatch, reason: "does not exist"},
		{name: "wrong sha256", path: "out/ok.txt", claim: pathClaim{sha256Hex("ko"), 2}, code: CodeArtifactMismatch, reason: "sha256 is " + sha256Hex("ok")},
		{name: "wrong size", path: "out/ok.txt", claim: pathClaim{sha256Hex("ok"), 3}, code: CodeArtifactMismatch, reason: "is 2 bytes, not 3"},
		{name: "size left out", path: "out/ok.txt", claim: pathClaim{sha256Hex("ok"), 0}, code: CodeArtifactMismatch, reason: "is 2 bytes, not 0"},
		{name: "a folder", path: "out/sub", claim: of(""), code: CodeArtifactMismatch, reason: "folder"},
		{name: "a link to a folder inside", path: "out/inner", claim: of(""), code: CodeArtifactMismatch, reason: "folder"},
		{name: "over the size bound", path: "out/big", claim: pathClaim{sha256Hex(""), MaxArtifactFile + 1}, code: CodeInvalidArgument, reason: "over the"},
		{name: "over the size bound, claimed smaller", path: "out/big", claim: pathClaim{sha256Hex(""), 5}, code: CodeArtifactMismatch, reason: "not 5 as claimed"},

		{name: "link to a file outside", path: "out/esc", claim: of("secret"), code: CodeWriteScopeViolation, reason: "symbolic link"},
		{name: "under a link to a folder outside", path: "out/escdir/secret.txt", claim: of("secret"), code: CodeWriteScopeViolation},
		{name: "missing under a link outside", path: "out/escdir/new/file.txt", claim: of("x"), code: CodeWriteScopeViolation},
		{name: "dangling link", path: "out/dangling", claim: of("x"), code: CodeWriteScopeViolation},
		{name: "under a dangling link", path: "out/dangling/x", claim: of("x"), code: CodeWriteScopeViolation},
		{name: "relative link climbing out", path: "out/up/secret", claim: of("x"), code: CodeWriteScopeViolation},
		{name: "under a file", path: "out/ok.txt/x", claim: of("x"), code: CodeWriteScopeViolation},

		{name: "outside the write scope", path: "src/main.go", claim: of("package main"), code: CodeWriteScopeViolation, reason: "write scope"},
		{name: "* stops at /", path: "docs/sub/readme.md", claim: of("x"), code: CodeWriteScopeViolation},
		{name: "other extension", path: "docs/readme.txt", claim: of("x"), code: CodeWriteScopeViolation},
		{name: "back out of the scope", path: "out/../src/main.go", claim: of("package main"), code: CodeWriteScopeViolation},
		{name: "parent folder", path: "../outside.txt", claim: of("x"), code: CodeWriteScopeViolation},
		{name: "climbing out", path: "out/../../x", claim: of("x"), code: CodeWriteScopeViolation},
		{name: "dot-dot", path: "..", claim: of("x"), code: CodeWriteScopeViolation},
		{name: "absolute", path: "/etc/passwd", claim: of("x"), code: CodeWriteScopeViolation},
		{name: "absolute, even inside", path: filepath.Join(repo, "out", "ok.txt"), claim: of("ok"), code: CodeWriteScopeViolation},
		{name: "drive letter", path: `C:\out\ok.txt`, claim: of("ok"), code: CodeWriteScopeViolation},
		{name: "backslash root", path: `\out\ok.txt`, claim: of("ok"), code: CodeWriteScopeViolation},

		{name: "the folder itself", path: ".", claim: of("x"), code: CodeInvalidArgument},
		{name: "short sha256", path: "out/ok.txt", claim: pathClaim{"abc", 2}, code: CodeInvalidArgument},
		{name: "sha256 not hex", path: "out/ok.txt", claim: pathClaim{strings.Repeat("g", 64), 2}, code: CodeInvalidArgument},
		{name: "no sha256", path: "out/ok.txt", claim: pathClaim{"", 2}, code: CodeInvalidArgument},
		{name: "negative size", path: "out/ok.txt", claim: pathClaim{sha256Hex("ok"), -1}, code: CodeInvalidArgument},
		{name: "NUL in the path", path: "out/x\x00y", claim: of("x"), code: CodeInvalidArgument},
	}
	for _, k := range cases {
		t.Run(k.name, func(t *testing.T) {
			a, err := w.publish(c, ArtifactSpec{Name: "n", Path: k.path, SHA256: k.claim.sha, Size: k.claim.size})
			wantWorkCode(t, err, k.code, fmt.Sprintf("publish %q", k.path))
			if err != nil {
				if !strings.Contains(err.Error(), k.reason) {
					t.Errorf("publish %q: reason %q does not say %q", k.path, err, k.reason)
				}
				// An absolute path the agent sent itself may come back; the
				// host's folders must not be added to it.
				if strings.Contains(err.Error(), outside) || !strings.HasPrefix(k.path, "/") && strings.Contains(err.Error(), repo) {
					t.Errorf("publish %q: denial names a host folder: %v", k.path, err)
				}
				return
			}
			if a.Path != k.wantPath || a.SHA256 != strings.ToLower(k.claim.sha) || a.Size != k.claim.size || a.Content != nil {
				t.Errorf("publish %q: stored %+v, want path %q, sha256 %s, size %d", k.path, a, k.wantPath, strings.ToLower(k.claim.sha), k.claim.size)
			}
			if arts := w.artifacts(c.ID); len(arts) != 1 || arts[0].ID != a.ID {
				t.Errorf("publish %q: artifacts %+v", k.path, arts)
			}
		})
	}
	for _, bad := range []ArtifactSpec{
		{Name: "n", Path: "out/ok.txt", SHA256: sha256Hex("ok"), Size: 2, Content: workStr("x")},
		{Name: "n"},
		{Name: "", Content: workStr("x")},
		{Name: "n\x00", Content: workStr("x")},
	} {
		_, err := w.publish(c, bad)
		wantWorkCode(t, err, CodeInvalidArgument, fmt.Sprintf("publish %+v", bad))
	}

	// A packet with no write scope takes no path at all.
	w.create(PacketSpec{Priority: -1})
	none := w.claim("ses_b")
	if _, err := w.publish(none, ArtifactSpec{Name: "n", Path: "out/ok.txt", SHA256: sha256Hex("ok"), Size: 2}); CodeOf(err) != CodeWriteScopeViolation {
		t.Errorf("publish with no write scope = %v", err)
	}
}

// A repository registered through a symbolic link: paths inside still
// pass, the escape is still caught.
func TestPublishPathLinkedRepository(t *testing.T) {
	w := newWorkEnv(t)
	pathRepo(t, w.repo.Path)
	linked := filepath.Join(t.TempDir(), "repo-link")
	if err := os.Symlink(w.repo.Path, linked); err != nil {
		t.Fatal(err)
	}
	repo := w.addRepo(linked)
	w.create(PacketSpec{RepositoryID: repo.ID, WriteScope: []string{"out/**"}})
	c, ok, err := w.claimFrom(repo.ID, "ses_a", time.Minute)
	if err != nil || !ok {
		t.Fatalf("claim = %v, %v", ok, err)
	}
	for path, code := range map[string]Code{"out/ok.txt": "", "out/inner/inner.txt": "", "out/esc": CodeWriteScopeViolation, "out/up/secret": CodeWriteScopeViolation} {
		content := map[string]string{"out/ok.txt": "ok", "out/inner/inner.txt": "inner", "out/esc": "secret"}[path]
		_, err := w.publish(c, ArtifactSpec{Name: "n", Path: path, SHA256: sha256Hex(content), Size: int64(len(content))})
		wantWorkCode(t, err, code, "publish through linked repository "+path)
	}
}

// The write transaction records what was checked before it and nothing
// else: it does not read the file again (a file gone since is recorded as
// it was checked), and it refuses a VerifiedFile that was not made for this
// packet and these claims.
func TestPublishRecordsOnlyVerifiedFiles(t *testing.T) {
	w := newWorkEnv(t)
	pathRepo(t, w.repo.Path)
	w.create(PacketSpec{WriteScope: []string{"out/**"}})
	c := w.claim("ses_a")
	spec := ArtifactSpec{Name: "n", Path: "out/ok.txt", SHA256: sha256Hex("ok"), Size: 2}
	file, err := w.verify(c, spec)
	if err != nil {
		t.Fatal(err)
	}
	w.create(PacketSpec{WriteScope: []string{"out/**"}})
	other := w.claim("ses_b")
	publishWith := func(p Packet, a ArtifactSpec, f *VerifiedFile) error {
		return w.do(func(tx *Tx) error {
			_, err := tx.PublishArtifact(p.ID, p.Lease.SessionID, p.Lease.ID, a, f)
			return err
		})
	}
	forged := &VerifiedFile{path: "out/ok.txt", size: 2, sha256: sha256Hex("ok")}
	otherClaim := spec
	otherClaim.SHA256 = sha256Hex("ko")
	otherPath := spec
	otherPath.Path = "out/empty"
	for name, err := range map[string]error{
		"no VerifiedFile":             publishWith(c, spec, nil),
		"a VerifiedFile made by hand": publishWith(c, spec, forged),
		"another sha256 claimed":      publishWith(c, otherClaim, file),
		"another path":                publishWith(c, otherPath, file),
		"another packet's file":       publishWith(other, spec, file),
	} {
		if err == nil || CodeOf(err) != CodeInternal {
			t.Errorf("%s: %v, want an internal error", name, err)
		}
	}
	if err := os.Remove(filepath.Join(w.repo.Path, "out", "ok.txt")); err != nil {
		t.Fatal(err)
	}
	if err := publishWith(c, spec, file); err != nil {
		t.Errorf("publish a file checked before it went: %v", err)
	}
	if arts := w.artifacts(c.ID); len(arts) != 1 || arts[0].SHA256 != sha256Hex("ok") {
		t.Errorf("artifacts %+v", arts)
	}
}

// The check reads under the caller's context: one that has ended stops it
// before the file is hashed.
func TestVerifyArtifactFileContext(t *testing.T) {
	w := newWorkEnv(t)
	pathRepo(t, w.repo.Path)
	w.create(PacketSpec{WriteScope: []string{"out/**"}})
	c := w.claim("ses_a")
	var target ArtifactTarget
	mustView(t, w.db, func(tx *Tx) error {
		p, err := tx.Packet(c.ID)
		if err != nil {
			return err
		}
		target, err = tx.ArtifactTarget(p, c.Lease.SessionID, c.Lease.ID)
		return err
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := VerifyArtifactFile(ctx, target, ArtifactSpec{Name: "n", Path: "out/ok.txt", SHA256: sha256Hex("ok"), Size: 2})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("verify with an ended context = %v, want context.Canceled", err)
	}
	// The lease is checked before anything is read.
	mustUpdate(t, w.db, func(tx *Tx) error { _, err := tx.ReleasePacket(c.ID, c.Lease.SessionID, c.Lease.ID, ""); return err })
	w.db.View(ctx, func(tx *Tx) error {
		p, err := tx.Packet(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tx.ArtifactTarget(p, c.Lease.SessionID, c.Lease.ID)
		wantWorkCode(t, err, CodeLeaseLost, "ArtifactTarget after release")
		return nil
	})
}

func TestPublishInlineLimit(t *testing.T) {
	w := newWorkEnv(t)
	w.create(PacketSpec{})
	c := w.claim("ses_a")
	full := strings.Repeat("x", MaxInlineArtifact)
	a, err := w.publish(c, ArtifactSpec{Name: "big", Content: &full, SHA256: sha256Hex(full)})
	if err != nil || a.Size != MaxInlineArtifact || a.SHA256 != sha256Hex(full) {
		t.Errorf("publish exactly 1 MiB = %+v, %v", a.Size, err)
	}
	if arts := w.artifacts(c.ID); len(arts) != 1 || *arts[0].Content != full {
		t.Error("1 MiB content did not round-trip")
	}
	for name, spec := range map[string]ArtifactSpec{
		"one byte over": {Name: "big", Content: workStr(full + "x")},
		"not UTF-8":     {Name: "bin", Content: workStr("\xff\xfe")},
	} {
		_, err := w.publish(c, spec)
		wantWorkCode(t, err, CodeInvalidArgument, name)
	}
	// A claim the content does not bear out is a mismatch, as for a file.
	_, err = w.publish(c, ArtifactSpec{Name: "h", Content: workStr("abc"), SHA256: sha256Hex("abd")})
	wantWorkCode(t, err, CodeArtifactMismatch, "wrong sha256")
	empty, err := w.publish(c, ArtifactSpec{Name: "empty", Content: workStr("")})
	if err != nil || empty.Size != 0 || empty.SHA256 != sha256Hex("") || empty.Content == nil {
		t.Errorf("publish empty content = %+v, %v", empty, err)
	}
}
