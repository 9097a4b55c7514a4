package workspace

// The conflicting hunks of a MergeCheck, for a person to read: the files of
// merge-tree's result tree, where git left its conflict markers, cut down to
// the marked regions and a few lines around them.

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// Bounds on what ConflictHunks reads and returns.
const (
	// maxHunkFiles is the most conflicting files whose hunks are read.
	maxHunkFiles = 50
	// maxHunkFileSize is the largest file whose hunks are shown.
	maxHunkFileSize = 4 << 20
	// maxHunksPerFile is the most hunks shown of one file.
	maxHunksPerFile = 50
	// hunkContext is the lines shown before and after a marked region.
	hunkContext = 3
)

// ConflictLabels name the two sides in the markers and messages, in place
// of the commit ids git was given.
type ConflictLabels struct {
	Target string // the target branch: "main"
	Head   string // the packet: its branch, or its id
}

// replacer puts the labels in place of the ids ours and head; an empty
// label leaves its id.
func (l ConflictLabels) replacer(ours, head string) *strings.Replacer {
	var pairs []string
	if l.Target != "" {
		pairs = append(pairs, ours, l.Target)
	}
	if l.Head != "" {
		pairs = append(pairs, head, l.Head)
	}
	return strings.NewReplacer(pairs...)
}

// ConflictFile is one conflicting file of a merge and what it shows.
type ConflictFile struct {
	Path string `json:"path"`
	// Messages are git's about this path: "CONFLICT (content): Merge
	// conflict in a.txt", "CONFLICT (modify/delete): …".
	Messages []string `json:"messages,omitempty"`
	// Hunks are the regions git marked, with context; none for a conflict
	// with no lines to mark (modify/delete, a binary file, a rename).
	Hunks []ConflictHunk `json:"hunks,omitempty"`
	// Note says why no hunk is shown, when that is not the kind of
	// conflict: "binary", "too large", "not in the merge result".
	Note string `json:"note,omitempty"`
}

// ConflictHunk is one marked region and its context.
type ConflictHunk struct {
	// Line is the first line's number in the merged file, from 1.
	Line int `json:"line"`
	// Text is the lines, each ending in a line feed, markers included.
	Text string `json:"text"`
}

// ConflictHunks merges m as Checker.Check does and returns, for each
// conflicting file (at most maxHunkFiles), git's messages about it and the
// regions it marked. A clean merge has none. The markers name the sides
// with labels.
func ConflictHunks(ctx context.Context, repoPath string, m MergeCheck, labels ConflictLabels) ([]ConflictFile, error) {
	r, err := NewChecker(repoPath).merge(ctx, m)
	if err != nil {
		return nil, fmt.Errorf("conflicting hunks of %s onto %s: %w", m.Head, m.Target, err)
	}
	relabel := labels.replacer(r.ours, m.Head)
	files := r.files
	if len(files) > maxHunkFiles {
		files = files[:maxHunkFiles]
	}
	out := make([]ConflictFile, len(files))
	byPath := make(map[string]int, len(files))
	for i, f := range files {
		out[i].Path = f
		byPath[f] = i
	}
	for _, msg := range r.messages {
		if !strings.HasPrefix(msg.Kind, "CONFLICT") {
			continue // "Auto-merging x": not about a conflict
		}
		for _, p := range msg.Paths {
			if i, ok := byPath[p]; ok {
				out[i].Messages = append(out[i].Messages, relabel.Replace(msg.Text))
			}
		}
	}
	blobs, err := treeBlobs(ctx, repoPath, r.tree, files)
	if err != nil {
		return nil, err
	}
	for i := range out {
		b, ok := blobs[out[i].Path]
		switch {
		case !ok:
			out[i].Note = "not in the merge result"
		case b.tooLarge:
			out[i].Note = "too large to show"
		case bytes.IndexByte(b.data, 0) >= 0:
			out[i].Note = "binary"
		default:
			out[i].Hunks = markedHunks(string(b.data), relabel)
		}
	}
	return out, nil
}

// blob is one file's content as treeBlobs read it.
type blob struct {
	data     []byte
	tooLarge bool
}

// treeBlobs reads the files at paths in tree with one `git cat-file
// --batch`. A path that is not a file there (deleted, a folder, a
// submodule) is left out; so is a path with a line break, which the batch's
// line-per-object input cannot name.
func treeBlobs(ctx context.Context, repoPath, tree string, paths []string) (map[string]blob, error) {
	var in bytes.Buffer
	var asked []string
	for _, p := range paths {
		if strings.ContainsAny(p, "\n\r") {
			continue
		}
		asked = append(asked, p)
		// cat-file --batch-check would tell the size first, but a second
		// call costs more than reading the few files a conflict names.
		in.WriteString(tree + ":" + p + "\n")
	}
	blobs := make(map[string]blob, len(asked))
	if len(asked) == 0 {
		return blobs, nil
	}
	out, err := gitcmd.RunInput(ctx, repoPath, in.Bytes(), "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("read the merge result's files: %w", err)
	}
	for _, p := range asked {
		nl := bytes.IndexByte(out, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("cat-file --batch: the answer for %q ends early", p)
		}
		header := string(out[:nl])
		out = out[nl+1:]
		f := strings.Fields(header)
		if len(f) == 2 && f[1] == "missing" || len(f) == 2 && f[1] == "ambiguous" {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("cat-file --batch: unexpected header %q", header)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || size+1 > len(out) {
			return nil, fmt.Errorf("cat-file --batch: bad size in %q", header)
		}
		if f[1] == "blob" {
			b := blob{data: out[:size]}
			if size > maxHunkFileSize {
				b = blob{tooLarge: true}
			}
			blobs[p] = b
		}
		out = out[size+1:]
	}
	return blobs, nil
}

// markedHunks cuts text down to its conflict-marked regions, each with
// hunkContext lines around it; regions whose context meets are one hunk.
// The markers' labels go through relabel.
func markedHunks(text string, relabel *strings.Replacer) []ConflictHunk {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	// spans are the marked regions, [start, end] line indexes inclusive.
	var spans [][2]int
	start := -1
	for i, l := range lines {
		switch {
		case start < 0 && strings.HasPrefix(l, "<<<<<<<"):
			start = i
		case start >= 0 && strings.HasPrefix(l, ">>>>>>>"):
			spans = append(spans, [2]int{start, i})
			start = -1
		}
	}
	var hunks []ConflictHunk
	lastEnd := -1 // the line after the previous hunk
	for _, s := range spans {
		from, to := max(0, s[0]-hunkContext), min(len(lines), s[1]+1+hunkContext)
		if len(hunks) > 0 && from <= lastEnd {
			from = lastEnd // meets the previous hunk: extend it
			hunks[len(hunks)-1].Text += joinMarked(lines[from:to], relabel)
		} else {
			if len(hunks) == maxHunksPerFile {
				break
			}
			hunks = append(hunks, ConflictHunk{Line: from + 1, Text: joinMarked(lines[from:to], relabel)})
		}
		lastEnd = to
	}
	return hunks
}

// joinMarked joins lines, relabelling the marker lines, and ends the last
// with a line feed.
func joinMarked(lines []string, relabel *strings.Replacer) string {
	var b strings.Builder
	for _, l := range lines {
		if strings.HasPrefix(l, "<<<<<<< ") || strings.HasPrefix(l, ">>>>>>> ") || strings.HasPrefix(l, "||||||| ") {
			l = relabel.Replace(l)
		}
		b.WriteString(l)
	}
	if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}
