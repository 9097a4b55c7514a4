// Package unidiff reads unified diffs as git writes them (`git diff`,
// with or without --find-renames) into files, hunks and lines, for a view
// to show. It keeps no copies: every path and line text is a substring of
// the diff it was given, so a change of 100,000 lines costs one slice of
// lines per hunk and nothing per character.
package unidiff

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Status is what a change did to a file.
type Status uint8

// The statuses, in the order git's --name-status would name them.
const (
	Modified Status = iota
	Added
	Deleted
	Renamed
	Copied
	// ModeChanged is a file whose mode alone changed (no line differs).
	ModeChanged
)

// Letter is the status as one letter, as git's --name-status writes it
// (T for a mode change, B for a binary file changed in place).
func (f *File) Letter() string {
	switch f.Status {
	case Added:
		return "A"
	case Deleted:
		return "D"
	case Renamed:
		return "R"
	case Copied:
		return "C"
	case ModeChanged:
		return "T"
	}
	if f.Binary {
		return "B"
	}
	return "M"
}

func (s Status) String() string {
	switch s {
	case Added:
		return "added"
	case Deleted:
		return "deleted"
	case Renamed:
		return "renamed"
	case Copied:
		return "copied"
	case ModeChanged:
		return "mode"
	}
	return "modified"
}

// File is one file's change.
type File struct {
	// OldPath and NewPath are the paths before and after, without git's
	// a/ and b/ prefixes; an added file's OldPath and a deleted one's
	// NewPath are "".
	OldPath, NewPath string
	Status           Status
	// Binary is a file git does not show as lines.
	Binary bool
	// OldMode and NewMode are the modes git names ("100644"), when it
	// names them.
	OldMode, NewMode string
	// Similarity is a rename's or a copy's similarity index, in percent.
	Similarity int
	// Added and Deleted count the file's + and - lines.
	Added, Deleted int
	Hunks          []Hunk
}

// Path is the path a person knows the file by: the new one, or the old one
// for a deleted file.
func (f *File) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// LineCount is how many lines the file's hunks hold.
func (f *File) LineCount() int {
	n := 0
	for i := range f.Hunks {
		n += len(f.Hunks[i].Lines)
	}
	return n
}

// Hunk is one @@ section.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	// Section is the text git writes after the second @@ (the enclosing
	// function, often), without the leading space.
	Section string
	Lines   []Line
}

// Header is the hunk's @@ line as git writes it.
func (h *Hunk) Header() string {
	s := fmt.Sprintf("@@ -%s +%s @@", hunkRange(h.OldStart, h.OldLines), hunkRange(h.NewStart, h.NewLines))
	if h.Section != "" {
		s += " " + h.Section
	}
	return s
}

func hunkRange(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}

// Kind is a line's part in a hunk.
type Kind uint8

// The kinds of lines.
const (
	Context Kind = iota
	Add
	Delete
	// NoNewline is git's "\ No newline at end of file" after the line it
	// is about.
	NoNewline
)

// Line is one line of a hunk.
type Line struct {
	Kind Kind
	// OldLine and NewLine are the line's numbers on each side; 0 on the
	// side it is not on (an added line has no old number).
	OldLine, NewLine int32
	// Text is the line without its +, - or space and without its newline.
	Text string
}

// ErrMalformed is what Parse wraps when the text is not a unified diff.
var ErrMalformed = errors.New("malformed unified diff")

// MaxLineBytes bounds what one line may hold; longer lines are a
// generated file or not text, and the view cuts them anyway.
const MaxLineBytes = 1 << 20

// Parse reads a unified diff. Text before the first file (a commit
// message, say) is skipped.
func Parse(diff string) ([]File, error) {
	p := parser{rest: diff}
	return p.parse()
}

type parser struct {
	rest   string
	lineNo int // of the line last read, from 1
	files  []File
}

// next returns the next line without its newline; ok is false at the end.
func (p *parser) next() (line string, ok bool) {
	if p.rest == "" {
		return "", false
	}
	i := strings.IndexByte(p.rest, '\n')
	if i < 0 {
		line, p.rest = p.rest, ""
	} else {
		line, p.rest = p.rest[:i], p.rest[i+1:]
	}
	p.lineNo++
	return strings.TrimSuffix(line, "\r"), true
}

// peek is the next line, not consumed.
func (p *parser) peek() string {
	i := strings.IndexByte(p.rest, '\n')
	if i < 0 {
		return p.rest
	}
	return p.rest[:i]
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrMalformed, p.lineNo, fmt.Sprintf(format, args...))
}

func (p *parser) parse() ([]File, error) {
	var cur *File
	for {
		line, ok := p.next()
		if !ok {
			break
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			p.files = append(p.files, gitHeaderFile(line[len("diff --git "):]))
			cur = &p.files[len(p.files)-1]
		case strings.HasPrefix(line, "--- ") && strings.HasPrefix(p.peek(), "+++ "):
			// A plain unified diff has no "diff --git" line: its
			// ---/+++ pair starts the file. After a git header it
			// names the paths the header named already.
			if cur == nil || len(cur.Hunks) > 0 {
				p.files = append(p.files, File{})
				cur = &p.files[len(p.files)-1]
			}
			plus, _ := p.next()
			setPaths(cur, line[4:], plus[4:])
		case cur == nil:
			// Preamble: a commit message, an email header.
		case strings.HasPrefix(line, "@@"):
			if err := p.hunk(cur, line); err != nil {
				return nil, err
			}
		default:
			p.extended(cur, line)
		}
	}
	return p.files, nil
}

// extended reads one of git's extended header lines into f; lines it does
// not know are skipped, as git itself adds new ones now and then.
func (p *parser) extended(f *File, line string) {
	cut := func(prefix string) (string, bool) {
		if strings.HasPrefix(line, prefix) {
			return line[len(prefix):], true
		}
		return "", false
	}
	if v, ok := cut("new file mode "); ok {
		f.Status, f.NewMode, f.OldPath = Added, v, ""
	} else if v, ok := cut("deleted file mode "); ok {
		f.Status, f.OldMode, f.NewPath = Deleted, v, ""
	} else if v, ok := cut("old mode "); ok {
		f.OldMode = v
		if f.Status == Modified {
			f.Status = ModeChanged
		}
	} else if v, ok := cut("new mode "); ok {
		f.NewMode = v
	} else if v, ok := cut("rename from "); ok {
		f.Status, f.OldPath = Renamed, unquote(v)
	} else if v, ok := cut("rename to "); ok {
		f.Status, f.NewPath = Renamed, unquote(v)
	} else if v, ok := cut("copy from "); ok {
		f.Status, f.OldPath = Copied, unquote(v)
	} else if v, ok := cut("copy to "); ok {
		f.Status, f.NewPath = Copied, unquote(v)
	} else if v, ok := cut("similarity index "); ok {
		f.Similarity, _ = strconv.Atoi(strings.TrimSuffix(v, "%"))
	} else if v, ok := cut("index "); ok {
		// "index abc..def 100644": the mode of a file changed in place.
		if sp := strings.IndexByte(v, ' '); sp >= 0 && f.OldMode == "" && f.NewMode == "" {
			f.OldMode, f.NewMode = v[sp+1:], v[sp+1:]
		}
	} else if strings.HasPrefix(line, "Binary files ") || line == "GIT binary patch" {
		f.Binary = true
		if f.Status == ModeChanged {
			f.Status = Modified
		}
	}
}

// hunk reads a hunk whose @@ line is header; its line counts say where it
// ends, so a deleted line that reads "-- x" is not taken for a header.
func (p *parser) hunk(f *File, header string) error {
	var h Hunk
	if err := parseHunkHeader(header, &h); err != nil {
		return p.errorf("%v", err)
	}
	if f.Status == ModeChanged {
		f.Status = Modified
	}
	// The header's counts size the slice, but never beyond what the rest
	// of the text can hold: a header may lie.
	h.Lines = make([]Line, 0, min(h.OldLines+h.NewLines, len(p.rest)+1))
	oldNo, newNo := h.OldStart, h.NewStart
	oldLeft, newLeft := h.OldLines, h.NewLines
	for oldLeft > 0 || newLeft > 0 || strings.HasPrefix(p.peek(), `\`) {
		line, ok := p.next()
		if !ok {
			return p.errorf("hunk %q ends early: %d old and %d new lines missing", header, oldLeft, newLeft)
		}
		if len(line) > MaxLineBytes {
			return p.errorf("a line of %d bytes (at most %d)", len(line), MaxLineBytes)
		}
		var l Line
		switch {
		case line == "" || line[0] == ' ':
			// An empty line is a context line whose space an editor
			// trimmed.
			if oldLeft == 0 || newLeft == 0 {
				return p.errorf("a context line beyond hunk %q", header)
			}
			l = Line{Kind: Context, OldLine: int32(oldNo), NewLine: int32(newNo)}
			oldNo++
			newNo++
			oldLeft--
			newLeft--
		case line[0] == '-':
			if oldLeft == 0 {
				return p.errorf("a deleted line beyond hunk %q", header)
			}
			l = Line{Kind: Delete, OldLine: int32(oldNo)}
			oldNo++
			oldLeft--
			f.Deleted++
		case line[0] == '+':
			if newLeft == 0 {
				return p.errorf("an added line beyond hunk %q", header)
			}
			l = Line{Kind: Add, NewLine: int32(newNo)}
			newNo++
			newLeft--
			f.Added++
		case line[0] == '\\':
			l = Line{Kind: NoNewline}
		default:
			return p.errorf("line %q in hunk %q is neither context, +, - nor \\", clip(line), header)
		}
		if len(line) > 0 {
			l.Text = line[1:]
		}
		if l.Kind == NoNewline {
			l.Text = strings.TrimSpace(l.Text)
		}
		h.Lines = append(h.Lines, l)
	}
	f.Hunks = append(f.Hunks, h)
	return nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// parseHunkHeader reads "@@ -a,b +c,d @@ section".
func parseHunkHeader(line string, h *Hunk) error {
	rest, ok := strings.CutPrefix(line, "@@ -")
	if !ok {
		return fmt.Errorf("hunk header %q does not start with \"@@ -\"", clip(line))
	}
	oldR, rest, ok := strings.Cut(rest, " +")
	if !ok {
		return fmt.Errorf("hunk header %q has no new range", clip(line))
	}
	newR, section, ok := strings.Cut(rest, " @@")
	if !ok {
		return fmt.Errorf("hunk header %q does not close its ranges with @@", clip(line))
	}
	var err error
	if h.OldStart, h.OldLines, err = parseRange(oldR); err != nil {
		return err
	}
	if h.NewStart, h.NewLines, err = parseRange(newR); err != nil {
		return err
	}
	h.Section = strings.TrimPrefix(section, " ")
	return nil
}

// maxRange bounds a hunk's start and length, so that line numbers fit in
// an int32 and a header cannot ask for a huge allocation.
const maxRange = 1 << 30

func parseRange(s string) (start, n int, err error) {
	a, b, hasLen := strings.Cut(s, ",")
	n = 1
	if start, err = strconv.Atoi(a); err != nil || start < 0 || start > maxRange {
		return 0, 0, fmt.Errorf("hunk range %q: bad start", clip(s))
	}
	if hasLen {
		if n, err = strconv.Atoi(b); err != nil || n < 0 || n > maxRange {
			return 0, 0, fmt.Errorf("hunk range %q: bad length", clip(s))
		}
	}
	return start, n, nil
}

// gitHeaderFile is the file a "diff --git a/x b/y" line names. The two
// paths are ambiguous when they hold " b/"; the common case of one path
// twice is split in the middle, and the ---/+++ or rename lines that
// follow correct the rest.
func gitHeaderFile(rest string) File {
	var a, b string
	if strings.HasPrefix(rest, `"`) {
		if end := quotedEnd(rest); end > 0 {
			a, b = rest[:end], strings.TrimPrefix(rest[end:], " ")
		}
	} else if n := len(rest); n >= 7 && n%2 == 1 && rest[:n/2] == "a/"+rest[n/2+3:] && rest[n/2:n/2+3] == " b/" {
		a, b = rest[:n/2], rest[n/2+1:]
	} else if i := strings.LastIndex(rest, " b/"); i >= 0 {
		a, b = rest[:i], rest[i+1:]
	} else {
		a, b, _ = strings.Cut(rest, " ")
	}
	var f File
	setPaths(&f, a, b)
	return f
}

// quotedEnd is the index after the closing quote of the C-quoted string s
// starts with, or -1.
func quotedEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// setPaths sets f's paths from the two sides of a header, "/dev/null" for
// a side that does not exist.
func setPaths(f *File, a, b string) {
	a, b = headerPath(a), headerPath(b)
	switch {
	case a == "" && b != "":
		f.Status = Added
	case b == "" && a != "":
		f.Status = Deleted
	}
	f.OldPath, f.NewPath = a, b
}

// headerPath strips a path's quotes, its a/ or b/ prefix and a trailing
// tab (a plain diff's timestamp follows one); /dev/null is "".
func headerPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 && !strings.HasPrefix(s, `"`) {
		s = s[:i]
	}
	s = unquote(s)
	if s == "/dev/null" {
		return ""
	}
	if len(s) > 2 && (s[0] == 'a' || s[0] == 'b') && s[1] == '/' {
		return s[2:]
	}
	return s
}

// unquote reads git's C-style quoted path ("a/caf\303\251"), leaving a
// path that is not quoted, or not quoted well, as it is.
func unquote(s string) string {
	if len(s) < 2 || s[0] != '"' {
		return s
	}
	end := quotedEnd(s)
	if end < 0 {
		return s
	}
	body := s[1 : end-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' || i+1 == len(body) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := body[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '0', '1', '2', '3':
			if i+2 < len(body) {
				if v, err := strconv.ParseUint(body[i:i+3], 8, 8); err == nil {
					b.WriteByte(byte(v))
					i += 2
					continue
				}
			}
			b.WriteByte(e)
		default:
			b.WriteByte(e)
		}
	}
	return b.String()
}
