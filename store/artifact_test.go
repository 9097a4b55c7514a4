package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPublishWriteScope(t *testing.T) {
	w := newWorkEnv(t)
	repo := w.repo.Path
	outside := t.TempDir()
	writeRepoFile(t, filepath.Join(outside, "secret.txt"), "secret")
	writeRepoFile(t, filepath.Join(repo, "out", "ok.txt"), "ok")
	writeRepoFile(t, filepath.Join(repo, "out", "sub", "inner.txt"), "inner")
	writeRepoFile(t, filepath.Join(repo, "src", "main.go"), "package main")
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
	p := w.create(PacketSpec{WriteScope: []string{"out/**", "docs/*.md"}})
	c := w.claim("ses_a")
	h := sha256Hex("content")
	cases := []struct {
		path     string
		sha      string
		code     Code
		wantPath string
	}{
		{path: "out/ok.txt", wantPath: "out/ok.txt"},
		{path: "./out//ok.txt", wantPath: "out/ok.txt"},
		{path: "out/sub/../ok.txt", wantPath: "out/ok.txt"},
		{path: "out/new/deeper/file.txt", wantPath: "out/new/deeper/file.txt"}, // not there yet
		{path: "out/inner/inner.txt", wantPath: "out/inner/inner.txt"},
		{path: "out/inner/later.txt", wantPath: "out/inner/later.txt"},
		{path: "out/rel/inner.txt", wantPath: "out/rel/inner.txt"},
		{path: "docs/readme.md", wantPath: "docs/readme.md"},
		{path: "docs/sub/readme.md", code: CodeWriteScopeViolation}, // * stops at /
		{path: "docs/readme.txt", code: CodeWriteScopeViolation},
		{path: "src/main.go", code: CodeWriteScopeViolation},
		{path: "out/../src/main.go", code: CodeWriteScopeViolation},
		{path: "../outside.txt", code: CodeWriteScopeViolation},
		{path: "out/../../x", code: CodeWriteScopeViolation},
		{path: "..", code: CodeWriteScopeViolation},
		{path: "/etc/passwd", code: CodeWriteScopeViolation},
		{path: filepath.Join(repo, "out", "ok.txt"), code: CodeWriteScopeViolation}, // absolute, even inside
		{path: `C:\out\ok.txt`, code: CodeWriteScopeViolation},
		{path: `\out\ok.txt`, code: CodeWriteScopeViolation},
		{path: "out/esc", code: CodeWriteScopeViolation},
		{path: "out/escdir/secret.txt", code: CodeWriteScopeViolation},
		{path: "out/escdir/new/file.txt", code: CodeWriteScopeViolation},
		{path: "out/dangling", code: CodeWriteScopeViolation},
		{path: "out/dangling/x", code: CodeWriteScopeViolation},
		{path: "out/up/secret", code: CodeWriteScopeViolation},
		{path: "out/ok.txt/x", code: CodeWriteScopeViolation}, // under a file: cannot be checked
		{path: ".", code: CodeInvalidArgument},
		{path: "out/ok.txt", sha: "abc", code: CodeInvalidArgument},
		{path: "out/ok.txt", sha: strings.Repeat("g", 64), code: CodeInvalidArgument},
		{path: "out/ok.txt", sha: "-", code: CodeInvalidArgument},
		{path: "out/x\x00y", code: CodeInvalidArgument},
	}
	for _, k := range cases {
		s := h
		if k.sha != "" {
			s = k.sha
			if s == "-" {
				s = ""
			}
		}
		a, err := w.publish(c, ArtifactSpec{Name: "n", Path: k.path, SHA256: s})
		wantWorkCode(t, err, k.code, fmt.Sprintf("publish %q", k.path))
		if err == nil && a.Path != k.wantPath {
			t.Errorf("publish %q: stored path %q, want %q", k.path, a.Path, k.wantPath)
		}
		if err != nil && strings.Contains(err.Error(), outside) {
			t.Errorf("publish %q: denial names the host folder: %v", k.path, err)
		}
	}
	for _, bad := range []ArtifactSpec{
		{Name: "n", Path: "out/ok.txt", SHA256: h, Content: workStr("x")},
		{Name: "n"},
		{Name: "", Content: workStr("x")},
		{Name: "n\x00", Content: workStr("x")},
		{Name: "n", Path: "out/ok.txt", SHA256: h, Size: -1},
	} {
		_, err := w.publish(c, bad)
		wantWorkCode(t, err, CodeInvalidArgument, fmt.Sprintf("publish %+v", bad))
	}

	// A packet with no write scope takes no path at all.
	w.create(PacketSpec{Priority: -1})
	none := w.claim("ses_b")
	if _, err := w.publish(none, ArtifactSpec{Name: "n", Path: "out/ok.txt", SHA256: h}); CodeOf(err) != CodeWriteScopeViolation {
		t.Errorf("publish with no write scope = %v", err)
	}

	// The repository reached through a symbolic link: paths inside still
	// pass, the escape is still caught.
	linked := filepath.Join(t.TempDir(), "repo-link")
	if err := os.Symlink(repo, linked); err != nil {
		t.Fatal(err)
	}
	for path, code := range map[string]Code{"out/ok.txt": "", "out/esc": CodeWriteScopeViolation} {
		err := w.do(func(tx *Tx) error {
			_, err := tx.PublishArtifact(p.ID, "ses_a", c.Lease.ID, ArtifactSpec{Name: "n", Path: path, SHA256: h}, linked)
			return err
		})
		wantWorkCode(t, err, code, "publish through linked repository "+path)
	}
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
		"wrong sha256":  {Name: "h", Content: workStr("abc"), SHA256: sha256Hex("abd")},
	} {
		_, err := w.publish(c, spec)
		wantWorkCode(t, err, CodeInvalidArgument, name)
	}
	empty, err := w.publish(c, ArtifactSpec{Name: "empty", Content: workStr("")})
	if err != nil || empty.Size != 0 || empty.SHA256 != sha256Hex("") || empty.Content == nil {
		t.Errorf("publish empty content = %+v, %v", empty, err)
	}
}
