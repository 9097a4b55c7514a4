package unidiff

// Following a line from one version of a file to the next, and telling
// whether a later change touched it: how a review's comments find their
// lines again when the packet comes back, and which of them its agent's
// next change answered.

// Find is the file of files whose old path (old) or new path is path, or
// nil.
func Find(files []File, path string, old bool) *File {
	for i := range files {
		p := files[i].NewPath
		if old {
			p = files[i].OldPath
		}
		if p == path {
			return &files[i]
		}
	}
	return nil
}

// NewLineAt is where line n of f's old side stands on its new side: its
// new number when the line stays; for a line the diff deletes, the number
// of the new line in its place (the next one the hunk keeps or adds). 0
// stays 0 (the file as a whole).
func (f *File) NewLineAt(n int) int {
	if n <= 0 {
		return 0
	}
	shift := 0 // new minus old line numbers past the hunks so far
	for i := range f.Hunks {
		h := &f.Hunks[i]
		if h.OldLines == 0 {
			// Additions only, after old line OldStart.
			if n <= h.OldStart {
				return n + shift
			}
			shift = h.NewStart + h.NewLines - (h.OldStart + 1)
			continue
		}
		if n < h.OldStart {
			return n + shift
		}
		if n < h.OldStart+h.OldLines {
			return h.newLineAt(n)
		}
		shift = h.NewStart + h.NewLines - (h.OldStart + h.OldLines)
	}
	return n + shift
}

// newLineAt is NewLineAt for an old line n inside h.
func (h *Hunk) newLineAt(n int) int {
	next := h.NewStart // the number the next new line gets
	deleted := false
	for _, l := range h.Lines {
		if deleted && l.NewLine > 0 {
			return int(l.NewLine)
		}
		if l.NewLine > 0 {
			next = int(l.NewLine) + 1
		}
		if int(l.OldLine) == n && l.Kind != NoNewline {
			if l.Kind == Context {
				return int(l.NewLine)
			}
			deleted = true
		}
	}
	return next
}

// Touches tells whether f, a change of a file from one version to the
// next, touches line n of the version before: deletes the file, changes
// it as binary, or has a hunk whose old lines (its context included) hold
// n or which adds lines right after it. n == 0, the file as a whole, is
// touched by any change.
func (f *File) Touches(n int) bool {
	if f.Status == Deleted || f.Binary {
		return true
	}
	if n <= 0 {
		return len(f.Hunks) > 0
	}
	for i := range f.Hunks {
		h := &f.Hunks[i]
		if h.OldLines == 0 {
			if n == h.OldStart || n == h.OldStart+1 {
				return true
			}
			continue
		}
		if n >= h.OldStart && n < h.OldStart+h.OldLines {
			return true
		}
	}
	return false
}

// Touched tells whether since, the change from a reviewed version to the
// next, touches the line a comment is on: path and line on the new side
// of reviewed (the change the review saw, from its base), or, when old,
// on its old side (a line of the base, followed to where it stood in the
// version reviewed).
func Touched(reviewed, since []File, path string, line int, old bool) bool {
	if old {
		f := Find(reviewed, path, true)
		if f == nil {
			// The file was not in the change reviewed: it stood as in the
			// base.
		} else if f.NewPath == "" {
			return false // the reviewed change deleted it; nothing to touch
		} else {
			path, line = f.NewPath, f.NewLineAt(line)
		}
	}
	f := Find(since, path, true)
	return f != nil && f.Touches(line)
}

// Follow is where line of path on the old side of since stands on its new
// side: the same when since does not change the file; its new path
// otherwise ("" when since deletes it).
func Follow(since []File, path string, line int) (string, int) {
	f := Find(since, path, true)
	if f == nil {
		return path, line
	}
	return f.NewPath, f.NewLineAt(line)
}
