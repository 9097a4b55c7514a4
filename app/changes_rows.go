package app

// The Changes view's diff pane: every file's header, hunk headers and lines
// as one flat index of rows, which a widget.List shows a screenful at a
// time, and the row widget that draws one of them.

import (
	"image/color"
	"strconv"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/alecthomas/chroma/v2"

	"github.com/switchboard-dev/switchboard/internal/unidiff"
)

// rowKind is what a row of the diff pane shows.
type rowKind uint8

const (
	rowFile    rowKind = iota // a file's header: status, path(s)
	rowNote                   // a line about a file with no lines to show: binary, mode, untracked
	rowHunk                   // a hunk's @@ line
	rowLine                   // a line of a hunk
	rowComment                // a comment under its line: line indexes changesView.inline
)

// diffRow is one row of the diff pane: indexes into the parsed files, so
// that 100,000 rows cost 16 bytes each and no text is copied.
type diffRow struct {
	kind rowKind
	file int32
	hunk int32
	line int32
}

// buildRows flattens files into rows; fileRow[i] is the row of file i's
// header. A collapsed file shows its header and a note.
func buildRows(files []unidiff.File, untracked map[int]bool, collapsed func(int) bool) (rows []diffRow, fileRow []int) {
	n := 0
	for i := range files {
		if !collapsed(i) {
			n += 2 + len(files[i].Hunks) + files[i].LineCount()
		}
	}
	rows = make([]diffRow, 0, n)
	fileRow = make([]int, len(files))
	for i := range files {
		f := &files[i]
		fileRow[i] = len(rows)
		rows = append(rows, diffRow{kind: rowFile, file: int32(i)})
		if collapsed(i) {
			rows = append(rows, diffRow{kind: rowNote, file: int32(i)})
			continue
		}
		if f.Binary || len(f.Hunks) == 0 || untracked[i] {
			rows = append(rows, diffRow{kind: rowNote, file: int32(i)})
		}
		for h := range f.Hunks {
			rows = append(rows, diffRow{kind: rowHunk, file: int32(i), hunk: int32(h)})
			for l := range f.Hunks[h].Lines {
				rows = append(rows, diffRow{kind: rowLine, file: int32(i), hunk: int32(h), line: int32(l)})
			}
		}
	}
	return rows, fileRow
}

// fileTitle is a file's header text: "R  old → new", "D  path (deleted)".
func fileTitle(f *unidiff.File) string {
	s := f.Letter() + "  "
	switch f.Status {
	case unidiff.Renamed, unidiff.Copied:
		s += f.OldPath + " → " + f.NewPath
	default:
		s += f.Path()
	}
	switch {
	case f.Status == unidiff.Added:
		s += "  (new file)"
	case f.Status == unidiff.Deleted:
		s += "  (deleted)"
	case f.Status == unidiff.Renamed && f.Similarity > 0:
		s += "  (renamed, " + strconv.Itoa(f.Similarity) + "% similar)"
	}
	if f.Binary {
		s += "  (binary)"
	}
	return s
}

// foldName says why a folded file is folded, in its header.
func foldName(k foldKind) string {
	if k == foldGenerated {
		return "generated"
	}
	return "lockfile"
}

// fileNote is the line shown for a file without lines.
func fileNote(f *unidiff.File, untracked bool) string {
	switch {
	case untracked:
		return "New file, not yet added to git: its lines show once the agent commits it."
	case f.Binary && f.Status == unidiff.Deleted:
		return "Binary file deleted."
	case f.Binary && f.Status == unidiff.Added:
		return "Binary file added: not shown."
	case f.Binary:
		return "Binary file changed: not shown."
	case f.OldMode != f.NewMode && f.OldMode != "" && f.NewMode != "":
		return "Mode changed from " + f.OldMode + " to " + f.NewMode + "."
	case f.Status == unidiff.Renamed:
		return "Renamed without changes."
	case f.Status == unidiff.Added:
		return "Empty file added."
	case f.Status == unidiff.Deleted:
		return "Empty file deleted."
	}
	return "No lines changed."
}

// Colours of the diff's backgrounds: tints that read on both themes.
var (
	tintAdd    = color.NRGBA{R: 0x2e, G: 0xa0, B: 0x43, A: 0x38}
	tintDelete = color.NRGBA{R: 0xe5, G: 0x3e, B: 0x3e, A: 0x38}
	tintHunk   = color.NRGBA{R: 0x38, G: 0x8b, B: 0xfd, A: 0x26}
	tintFile   = color.NRGBA{R: 0x80, G: 0x80, B: 0x80, A: 0x30}
	tintMarked = color.NRGBA{R: 0xf0, G: 0xb4, B: 0x29, A: 0x50}
)

const (
	// lineMaxColumns is how much of a line the pane draws: longer lines
	// are generated code, and the pane does not scroll sideways.
	lineMaxColumns = 400
	// lineMaxTokens bounds the text objects of a row; a line with more
	// tokens draws the rest in one colour.
	lineMaxTokens = 40
	// lineWrapMaxColumns is how much of a line the pane draws when lines
	// wrap: a megabyte of minified code would be thousands of rows.
	lineWrapMaxColumns = 8000
	// numberColumns is the width of each line-number column.
	numberColumns = 6
	// tabColumns is how wide a tab is drawn.
	tabColumns = 4
)

// lineWidget draws one row of the diff pane: a tinted band, the old and
// new line numbers, the sign, and the text in coloured tokens. A list
// reuses a screenful of them.
type lineWidget struct {
	widget.BaseWidget
	view *changesView
	row  int     // the row shown, -1 for none
	kind rowKind // its kind, kept: a new reading of the diff may drop the row

	bg       *canvas.Rectangle
	oldNo    *canvas.Text
	newNo    *canvas.Text
	sign     *canvas.Text
	tokens   []*canvas.Text // the first used ones are shown
	cols     []int          // the column each token starts at
	rows     []int          // the row of a wrapped line each token is on
	used     int
	drawn    int     // tokens shown by the last refresh
	grown    bool    // tokens were added since the renderer listed them
	colW     float32 // width of a monospace column
	textSize float32
}

func newLineWidget(v *changesView) *lineWidget {
	l := &lineWidget{view: v, row: -1, bg: canvas.NewRectangle(color.Transparent)}
	l.textSize = theme.TextSize()
	mono := fyne.TextStyle{Monospace: true}
	l.colW = fyne.MeasureText("0", l.textSize, mono).Width
	mk := func() *canvas.Text {
		t := canvas.NewText("", theme.Color(theme.ColorNameForeground))
		t.TextStyle = mono
		t.TextSize = l.textSize
		return t
	}
	l.oldNo, l.newNo, l.sign = mk(), mk(), mk()
	l.oldNo.Alignment, l.newNo.Alignment = fyne.TextAlignTrailing, fyne.TextAlignTrailing
	l.tokens = make([]*canvas.Text, lineMaxTokens)
	l.cols = make([]int, lineMaxTokens)
	l.rows = make([]int, lineMaxTokens)
	for i := range l.tokens {
		l.tokens[i] = mk()
	}
	l.ExtendBaseWidget(l)
	return l
}

// Tapped opens the comment entry on a line, or a folded file's lines on
// its header.
func (l *lineWidget) Tapped(*fyne.PointEvent) {
	v := l.view
	if l.row < 0 || l.row >= len(v.rows) {
		return
	}
	if r := v.rows[l.row]; r.kind == rowFile || r.kind == rowNote && v.collapsed(int(r.file)) {
		v.toggleFold(int(r.file))
		return
	}
	v.lineTapped(l.row)
}

func (l *lineWidget) MinSize() fyne.Size {
	h := fyne.MeasureText("0", l.textSize, fyne.TextStyle{Monospace: true}).Height
	return fyne.NewSize(l.colW*40, h)
}

func (l *lineWidget) CreateRenderer() fyne.WidgetRenderer {
	return &lineRenderer{l: l}
}

// gutter is the width of the numbers and the sign.
func (l *lineWidget) gutter() float32 {
	return l.colW * (2*numberColumns + 4)
}

// set shows row i.
func (l *lineWidget) set(i int) {
	l.row = i
	v := l.view
	r := v.rows[i]
	l.kind = r.kind
	f := &v.files[r.file]
	fg := theme.Color(theme.ColorNameForeground)
	dim := theme.Color(theme.ColorNamePlaceHolder)
	l.oldNo.Text, l.newNo.Text, l.sign.Text = "", "", ""
	l.oldNo.Color, l.newNo.Color, l.sign.Color = dim, dim, fg
	l.used = 0
	one := func(text string, c color.Color, bold bool) {
		t := l.tokens[0]
		t.Text, t.Color, t.TextStyle = clipColumns(text, lineMaxColumns), c, textStyle(bold)
		l.cols[0], l.rows[0] = 0, 0
		l.used = 1
	}
	switch r.kind {
	case rowFile:
		l.bg.FillColor = tintFile
		title := fileTitle(f)
		if k := v.folds[r.file]; k != foldNone {
			mark := "▾ "
			if v.collapsed(int(r.file)) {
				mark = "▸ "
			}
			title = mark + title + "  · " + foldName(k)
		}
		one(title, fg, true)
	case rowNote:
		l.bg.FillColor = color.Transparent
		if v.collapsed(int(r.file)) {
			one(foldNote(v.folds[r.file], f), dim, false)
			break
		}
		one(fileNote(f, v.untracked[int(r.file)]), dim, false)
	case rowHunk:
		l.bg.FillColor = tintHunk
		one(f.Hunks[r.hunk].Header(), dim, false)
	case rowLine:
		ln := &f.Hunks[r.hunk].Lines[r.line]
		switch ln.Kind {
		case unidiff.Add:
			l.bg.FillColor, l.sign.Text = tintAdd, "+"
		case unidiff.Delete:
			l.bg.FillColor, l.sign.Text = tintDelete, "-"
		default:
			l.bg.FillColor = color.Transparent
		}
		if ln.OldLine > 0 {
			l.oldNo.Text = strconv.Itoa(int(ln.OldLine))
		}
		if ln.NewLine > 0 {
			l.newNo.Text = strconv.Itoa(int(ln.NewLine))
		}
		if ln.Kind == unidiff.NoNewline {
			one(`\ `+ln.Text, dim, false)
			break
		}
		l.setTokens(ln.Text, v.hl.spans(v.files, r))
		if v.wrap {
			l.wrapTokens(v.wrapColumns())
		}
	}
	if v.marked == i {
		l.bg.FillColor = tintMarked
	}
	l.Refresh()
}

// setTokens lays text out as the coloured spans say. Runs of blanks get
// no text object, only their width: fewer objects to draw per frame.
func (l *lineWidget) setTokens(text string, spans []span) {
	pal := l.view.hl.palette()
	limit := lineMaxColumns
	if l.view.wrap {
		limit = lineWrapMaxColumns
	}
	if len(spans) == 0 && text != "" {
		spans = []span{{end: int32(len(text)), kind: chroma.Text}}
	}
	start, col := 0, 0
	for si, s := range spans {
		end := min(int(s.end), len(text))
		if si == len(spans)-1 || l.used == lineMaxTokens-1 {
			end = len(text)
		}
		if end <= start {
			continue
		}
		seg := expandTabs(text[start:end])
		start = end
		lead := len(seg) - len(strings.TrimLeft(seg, " "))
		if body := strings.TrimRight(seg[lead:], " "); body != "" && col+lead < limit {
			t := l.tokens[l.used]
			t.Text, t.Color, t.TextStyle = clipColumns(body, limit-col-lead), pal.colour(s.kind), textStyle(false)
			l.cols[l.used], l.rows[l.used] = col+lead, 0
			l.used++
		}
		col += utf8.RuneCountInString(seg)
		if end == len(text) || col >= limit {
			break
		}
	}
}

// wrapTokens breaks the tokens laid out on one long row into rows of
// cols columns, splitting a token that crosses the end of a row; more
// text objects are made as needed.
func (l *lineWidget) wrapTokens(cols int) {
	type piece struct {
		text     string
		c        color.Color
		col, row int
	}
	var out []piece
	for i := range l.used {
		t := l.tokens[i]
		col := l.cols[i]
		rs := []rune(t.Text)
		for len(rs) > 0 {
			row, at := col/cols, col%cols
			n := min(len(rs), cols-at)
			out = append(out, piece{string(rs[:n]), t.Color, at, row})
			rs, col = rs[n:], col+n
		}
	}
	for len(l.tokens) < len(out) {
		t := canvas.NewText("", theme.Color(theme.ColorNameForeground))
		t.TextSize = l.textSize
		l.tokens = append(l.tokens, t)
		l.cols = append(l.cols, 0)
		l.rows = append(l.rows, 0)
		l.grown = true
	}
	for i, p := range out {
		t := l.tokens[i]
		t.Text, t.Color, t.TextStyle = p.text, p.c, textStyle(false)
		l.cols[i], l.rows[i] = p.col, p.row
	}
	l.used = len(out)
}

// wrappedRows is how many rows of cols columns text takes when wrapped.
func wrappedRows(text string, cols int) int {
	if cols <= 0 || len(text) <= cols && strings.IndexByte(text, '\t') < 0 {
		return 1
	}
	n := min(utf8.RuneCountInString(expandTabs(text)), lineWrapMaxColumns+1)
	return max(1, (n+cols-1)/cols)
}

// textStyle is monospace for code, bold (in the theme's text font, which
// has a bold face) for headers.
func textStyle(bold bool) fyne.TextStyle {
	if bold {
		return fyne.TextStyle{Bold: true}
	}
	return fyne.TextStyle{Monospace: true}
}

func expandTabs(s string) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\t", strings.Repeat(" ", tabColumns))
}

// clipColumns cuts s to n runes.
func clipColumns(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

type lineRenderer struct {
	l    *lineWidget
	objs []fyne.CanvasObject
}

func (r *lineRenderer) Layout(size fyne.Size) {
	l := r.l
	// The band covers the list's gap between rows, so that a run of
	// added lines reads as one block.
	pad := theme.Padding()
	l.bg.Move(fyne.NewPos(0, -pad/2))
	l.bg.Resize(fyne.NewSize(size.Width, size.Height+pad))
	numW := l.colW * numberColumns
	// The numbers and the sign stand on the first row of a wrapped line.
	firstH := min(size.Height, l.MinSize().Height)
	l.oldNo.Move(fyne.NewPos(0, 0))
	l.oldNo.Resize(fyne.NewSize(numW, firstH))
	l.newNo.Move(fyne.NewPos(numW+l.colW, 0))
	l.newNo.Resize(fyne.NewSize(numW, firstH))
	l.sign.Move(fyne.NewPos(2*numW+2*l.colW, 0))
	l.sign.Resize(fyne.NewSize(l.colW, firstH))
	x := l.gutter()
	if l.row >= 0 && l.kind != rowLine {
		x = pad
	}
	for i, t := range l.tokens {
		if i >= l.used {
			t.Hide()
			continue
		}
		t.Show()
		w := float32(utf8.RuneCountInString(t.Text)) * l.colW
		if t.TextStyle.Bold {
			w = fyne.MeasureText(t.Text, t.TextSize, t.TextStyle).Width
		}
		lineH := size.Height
		if l.view.wrap && l.kind == rowLine {
			lineH = l.MinSize().Height
		}
		t.Move(fyne.NewPos(x+float32(l.cols[i])*l.colW, float32(l.rows[i])*lineH))
		t.Resize(fyne.NewSize(w, lineH))
	}
}

func (r *lineRenderer) MinSize() fyne.Size { return r.l.MinSize() }

// Refresh redraws the band, the gutter and the tokens shown now or last
// time; the others stay hidden and untouched.
func (r *lineRenderer) Refresh() {
	l := r.l
	r.Layout(l.Size())
	for _, o := range []fyne.CanvasObject{l.bg, l.oldNo, l.newNo, l.sign} {
		o.Refresh()
	}
	for _, t := range l.tokens[:max(l.used, l.drawn)] {
		t.Refresh()
	}
	l.drawn = l.used
}

func (r *lineRenderer) Objects() []fyne.CanvasObject {
	if r.objs == nil || r.l.grown {
		r.l.grown = false
		l := r.l
		r.objs = []fyne.CanvasObject{l.bg, l.oldNo, l.newNo, l.sign}
		for _, t := range l.tokens {
			r.objs = append(r.objs, t)
		}
	}
	return r.objs
}

func (r *lineRenderer) Destroy() {}
