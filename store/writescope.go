package store

import (
	"path"
	"path/filepath"
	"strings"
)

// Write scopes: the globs a packet's path artifacts must match, and the
// check of an artifact path's text against them and the repository.
// artifact_file.go holds the file system's half: links, and the file.

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

// cleanArtifactPath returns p cleaned, relative and slash-separated, or the
// denial that keeps it out: write_scope_violation when it is absolute,
// leaves the repository or matches none of the scope's globs. It looks at
// the text only, never at the file system, so the write transaction may
// call it again (resolveArtifactPath is the file system's half).
func cleanArtifactPath(p string, scope []string) (string, error) {
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
	return rel, nil
}
