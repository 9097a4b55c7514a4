package app

// The Changes view's folded files: generated files and lockfiles, listed
// after the files a person wrote and shown collapsed until tapped.

import (
	"fmt"
	"path"
	"slices"

	"github.com/switchboard-dev/switchboard/internal/unidiff"
)

// foldKind is why a file is listed last and collapsed.
type foldKind uint8

const (
	foldNone      foldKind = iota
	foldLockfile           // a package manager's lockfile, by its name
	foldGenerated          // linguist-generated in the checkout's .gitattributes
)

// lockfileNames are the lockfiles package managers write: what they hold
// follows from a manifest the diff shows too.
var lockfileNames = map[string]bool{
	"package-lock.json":   true,
	"npm-shrinkwrap.json": true,
	"yarn.lock":           true,
	"pnpm-lock.yaml":      true,
	"bun.lockb":           true,
	"bun.lock":            true,
	"deno.lock":           true,
	"go.sum":              true,
	"go.work.sum":         true,
	"Cargo.lock":          true,
	"poetry.lock":         true,
	"Pipfile.lock":        true,
	"uv.lock":             true,
	"pdm.lock":            true,
	"Gemfile.lock":        true,
	"composer.lock":       true,
	"mix.lock":            true,
	"pubspec.lock":        true,
	"Podfile.lock":        true,
	"Package.resolved":    true,
	"packages.lock.json":  true,
	"flake.lock":          true,
	"gradle.lockfile":     true,
	"conan.lock":          true,
}

// isLockfile tells whether p (slash-separated) is named as a lockfile.
func isLockfile(p string) bool {
	return lockfileNames[path.Base(p)]
}

// fileFold is why file f is folded, given the paths marked generated.
func fileFold(f *unidiff.File, generated map[string]bool) foldKind {
	switch p := f.Path(); {
	case generated[p]:
		return foldGenerated
	case isLockfile(p):
		return foldLockfile
	}
	return foldNone
}

// foldOrder puts the folded files after the others, each group in the
// order git gave; untracked holds indexes into files and is renumbered.
func foldOrder(files []unidiff.File, untracked map[int]bool, generated map[string]bool) ([]unidiff.File, map[int]bool, []foldKind) {
	type entry struct {
		f         unidiff.File
		untracked bool
		fold      foldKind
	}
	es := make([]entry, len(files))
	for i := range files {
		es[i] = entry{files[i], untracked[i], fileFold(&files[i], generated)}
	}
	slices.SortStableFunc(es, func(a, b entry) int {
		return boolInt(a.fold != foldNone) - boolInt(b.fold != foldNone)
	})
	out := make([]unidiff.File, len(es))
	un := map[int]bool{}
	folds := make([]foldKind, len(es))
	for i, e := range es {
		out[i], folds[i] = e.f, e.fold
		if e.untracked {
			un[i] = true
		}
	}
	return out, un, folds
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// foldNote is the line a collapsed file shows instead of its lines.
func foldNote(k foldKind, f *unidiff.File) string {
	what := "Lockfile"
	if k == foldGenerated {
		what = "Generated file (linguist-generated in .gitattributes)"
	}
	return fmt.Sprintf("%s, collapsed: +%d −%d. Tap its name to show the lines.", what, f.Added, f.Deleted)
}
