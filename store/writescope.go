package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Write scopes: the globs a packet's path artifacts must match, and the
// checks that keep an artifact path inside the repository.

// looksAbsolutePath reports whether p is absolute here or on another system
// ("/x", `\x`, "C:..."): a packet made on one machine may be read on another.
func looksAbsolutePath(p string) bool {
	return filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) ||
		len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// CleanWriteScopeGlob validates one write-scope glob and returns it cleaned.
// A glob is path.Match syntax on slash-separated paths relative to the
// repository folder, with one addition: a segment that is exactly "**"
// matches any number of segments, none included ("docs/**" matches "docs"
// and everything under it; "**/*.md" matches Markdown files at any depth).
// "**" inside a longer segment ("a**") is refused rather than read as "*".
// A glob ending in "/" is the folder and everything in it ("src/" is
// "src/**"); without it, "src" is that one path. Absolute globs and ".."
// segments are refused; "./" and "//" are cleaned away.
func CleanWriteScopeGlob(g string) (string, error) {
	if err := checkWorkText("write-scope glob", g, maxArtifactName, true); err != nil {
		return "", err
	}
	if looksAbsolutePath(g) {
		return "", Deny(CodeInvalidArgument, "write-scope glob %q is absolute: globs are relative to the repository", g)
	}
	for _, seg := range strings.Split(g, "/") {
		if seg == ".." {
			return "", Deny(CodeInvalidArgument, "write-scope glob %q has a \"..\" segment", g)
		}
	}
	c := path.Clean(g)
	if c == "." {
		return "", Deny(CodeInvalidArgument, "write-scope glob %q names the repository folder itself", g)
	}
	if strings.HasSuffix(g, "/") && !strings.HasSuffix(c, "/**") && c != "**" {
		c += "/**" // "src/" is the folder and everything in it
	}
	for _, seg := range strings.Split(c, "/") {
		if seg == "**" {
			continue
		}
		if strings.Contains(seg, "**") {
			return "", Deny(CodeInvalidArgument, "write-scope glob %q: ** must be a whole path segment", g)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return "", Deny(CodeInvalidArgument, "write-scope glob %q: %v", g, err)
		}
	}
	return c, nil
}

// MatchWriteScope reports whether the cleaned relative path p matches one of
// the globs (see CleanWriteScopeGlob for the syntax).
func MatchWriteScope(globs []string, p string) bool {
	name := strings.Split(p, "/")
	for _, g := range globs {
		if matchSegments(strings.Split(g, "/"), name) {
			return true
		}
	}
	return false
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			// Collapse runs of ** and try every split of the rest.
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := range len(name) + 1 {
				if matchSegments(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// checkArtifactPath returns p cleaned, relative and slash-separated, or the
// write_scope_violation that keeps it out.
func checkArtifactPath(repoPath, p string, scope []string) (string, error) {
	if err := checkWorkText("artifact path", p, 4096, true); err != nil {
		return "", err
	}
	if looksAbsolutePath(p) {
		return "", Deny(CodeWriteScopeViolation, "artifact path %q is absolute: paths are relative to the repository", p)
	}
	rel := path.Clean(filepath.ToSlash(p))
	switch {
	case rel == ".":
		return "", Deny(CodeInvalidArgument, "artifact path %q names the repository folder itself", p)
	case rel == ".." || strings.HasPrefix(rel, "../"):
		return "", Deny(CodeWriteScopeViolation, "artifact path %q leaves the repository", p)
	case !MatchWriteScope(scope, rel):
		return "", Deny(CodeWriteScopeViolation, "artifact path %q is outside the packet's write scope %q", rel, scope)
	}
	if err := checkNoSymlinkEscape(repoPath, rel); err != nil {
		return "", err
	}
	return rel, nil
}

// checkNoSymlinkEscape resolves rel under repoPath on the real file system
// and refuses it when it lands outside the resolved repository folder. A
// path that does not exist yet is judged by its nearest existing parent.
// Lstat finds that parent, so a dangling link counts as existing: its
// target cannot be resolved and it is refused rather than let through.
func checkNoSymlinkEscape(repoPath, rel string) error {
	root, err := filepath.EvalSymlinks(repoPath)
	if err != nil {
		return fmt.Errorf("resolve repository folder: %w", err)
	}
	p := filepath.Join(repoPath, filepath.FromSlash(rel))
	for {
		_, err := os.Lstat(p)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return Deny(CodeWriteScopeViolation, "artifact path %q cannot be checked: %v", rel, withoutPath(err))
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return Deny(CodeWriteScopeViolation, "artifact path %q goes through a link that does not resolve: %v", rel, withoutPath(err))
	}
	if r, err := filepath.Rel(root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return Deny(CodeWriteScopeViolation, "artifact path %q leads outside the repository through a symbolic link", rel)
	}
	return nil
}

// withoutPath drops the absolute path an *fs.PathError carries, so a
// denial tells the agent what went wrong without the host's folder layout.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
