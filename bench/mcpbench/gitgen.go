package main

// Generated git repositories for the workspace rows: many small files in
// nested folders, written in one `git fast-import` stream (seconds for
// 20,000 files, where a commit through the index would take minutes), and
// changes made the same way on top of a commit. Everything goes through
// gitcmd, as the product's git does.

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// Each generated file has genLines lines; a changed file has every other
// line of its first 2×changed lines rewritten.
const genLines = 40

// benchIdentity is the author of the generated commits and the
// repository's configured user, whose identity the landing's commit takes.
const benchIdentity = "Bench <bench@example.com>"

// genPath is file i's path: 20 top folders of 20 subfolders of 50 files
// for 20,000 files, and so on for other counts.
func genPath(i int) string {
	return fmt.Sprintf("src/m%02d/p%02d/f%05d.txt", i/1000, (i/50)%20, i)
}

// genContent is file i as generated, with the lines of `changed` (line
// number → text) replaced.
func genContent(i int, changed map[int]string) []byte {
	var b bytes.Buffer
	for l := range genLines {
		if text, ok := changed[l]; ok {
			fmt.Fprintf(&b, "line %02d of file %05d: %s\n", l, i, text)
			continue
		}
		fmt.Fprintf(&b, "line %02d of file %05d: the quick brown fox jumps over the lazy dog\n", l, i)
	}
	return b.Bytes()
}

// fastImport builds a fast-import stream.
type fastImport struct {
	b    bytes.Buffer
	time int64 // commit times go up by a second a commit
}

// commit starts a commit on ref, from parent when it is not "" (else the
// ref's current tip within this stream, or a root commit).
func (f *fastImport) commit(ref, parent, message string) {
	f.time++
	fmt.Fprintf(&f.b, "commit %s\ncommitter %s %d +0000\ndata %d\n%s\n", ref, benchIdentity, 1_767_225_600+f.time, len(message), message)
	if parent != "" {
		fmt.Fprintf(&f.b, "from %s\n", parent)
	}
}

// file adds or replaces a file in the commit being written.
func (f *fastImport) file(path string, content []byte) {
	fmt.Fprintf(&f.b, "M 100644 inline %s\ndata %d\n", path, len(content))
	f.b.Write(content)
	f.b.WriteByte('\n')
}

// run feeds the stream to git fast-import in repo.
func (f *fastImport) run(ctx context.Context, repo string) error {
	if _, err := gitcmd.RunInput(ctx, repo, f.b.Bytes(), "fast-import", "--quiet"); err != nil {
		return fmt.Errorf("git fast-import in %s: %w", repo, err)
	}
	return nil
}

// generateRepo makes a git repository at path with files generated files
// in one commit on main, main checked out, and a configured user.
func generateRepo(ctx context.Context, path string, files int) error {
	name, email, _ := strings.Cut(strings.TrimSuffix(benchIdentity, ">"), " <")
	if _, err := gitcmd.Run(ctx, filepath.Dir(path), "init", "--quiet", "--initial-branch=main", path); err != nil {
		return fmt.Errorf("make the repository %s: %w", path, err)
	}
	for key, value := range map[string]string{"user.name": name, "user.email": email} {
		if _, err := gitcmd.Run(ctx, path, "config", key, value); err != nil {
			return fmt.Errorf("configure the repository %s: %w", path, err)
		}
	}
	var f fastImport
	f.commit("refs/heads/main", "", fmt.Sprintf("%d generated files", files))
	for i := range files {
		f.file(genPath(i), genContent(i, nil))
	}
	if err := f.run(ctx, path); err != nil {
		return err
	}
	// main now exists but nothing is checked out: fill the index from it,
	// then write the files (checkout-index never overwrites, and there is
	// nothing to overwrite).
	for _, args := range [][]string{
		{"reset", "--quiet"},
		{"checkout-index", "--all"},
		{"update-index", "-q", "--refresh"},
	} {
		if _, err := gitcmd.Run(ctx, path, args...); err != nil {
			return fmt.Errorf("check out the generated files in %s: %w", path, err)
		}
	}
	out, err := gitcmd.Run(ctx, path, "status", "--porcelain")
	if err != nil {
		return err
	}
	if len(out) != 0 {
		return fmt.Errorf("the generated repository %s is not clean:\n%.500s", path, out)
	}
	return nil
}

// revParse is the commit rev names in dir.
func revParse(ctx context.Context, dir, rev string) (string, error) {
	out, err := gitcmd.Run(ctx, dir, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("rev-parse %s in %s: %w", rev, dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// commitOnto makes, with fast-import, commits on a new branch tmp from
// parent, then fast-forwards the worktree at wt to them, as an agent's own
// commits would be there. Each element of commits is one commit: file
// numbers and their changed lines.
func commitOnto(ctx context.Context, repo, wt, tmp, parent string, commits []map[int]map[int]string) error {
	var f fastImport
	for k, files := range commits {
		p := ""
		if k == 0 {
			p = parent
		}
		f.commit("refs/heads/"+tmp, p, fmt.Sprintf("Bench change %d of %d", k+1, len(commits)))
		for i, lines := range files {
			f.file(genPath(i), genContent(i, lines))
		}
	}
	if err := f.run(ctx, repo); err != nil {
		return err
	}
	if _, err := gitcmd.Run(ctx, wt, "merge", "--ff-only", "--quiet", tmp); err != nil {
		return fmt.Errorf("fast-forward the worktree %s to %s: %w", wt, tmp, err)
	}
	return nil
}

// wideChange is one commit changing files files (from the first), each
// in lines lines (every other line from the top), the diff rows' change.
func wideChange(files, lines int, what string) []map[int]map[int]string {
	c := make(map[int]map[int]string, files)
	for i := range files {
		l := make(map[int]string, lines)
		for j := range lines {
			l[2*j] = what
		}
		c[i] = l
	}
	return []map[int]map[int]string{c}
}

// longChange is n commits, each changing the first line of one file of
// the total, spread over the repository, the landing rows' packet.
func longChange(n, total int, what string) []map[int]map[int]string {
	out := make([]map[int]map[int]string, n)
	for k := range n {
		out[k] = map[int]map[int]string{(k*7919 + 13) % total: {0: fmt.Sprintf("%s, commit %d", what, k+1)}}
	}
	return out
}
