package app

// Syntax colours for the Changes view: chroma tokenises a hunk a chunk of
// lines at a time, only when one of them is about to be drawn, and keeps
// the result, so that opening a change of 100,000 lines tokenises nothing
// and scrolling tokenises a screenful.

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2/theme"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"

	"github.com/switchboard-dev/switchboard/internal/unidiff"
)

const (
	// hlChunk is how many lines of a hunk are tokenised together: enough
	// for a comment or a string spanning lines to mostly come out right,
	// few enough that a scroll step tokenises in well under a frame.
	hlChunk = 64
	// hlMaxChunks bounds the cache; past it the cache starts again
	// (about 2 MB of spans at most).
	hlMaxChunks = 2048
	// hlMaxLineBytes: a longer line is drawn in one colour, as lexers
	// are slow on minified files.
	hlMaxLineBytes = 2000
)

// span is a run of a line's text in one token colour, up to end (a byte
// offset in the line's text).
type span struct {
	end  int32
	kind chroma.TokenType
}

type chunkKey struct{ file, hunk, chunk int32 }

// highlighter holds the lexers and the tokenised chunks of one diff; on
// the Fyne goroutine only.
type highlighter struct {
	lexers map[int32]chroma.Lexer // by file; a nil value: no lexer for it
	chunks map[chunkKey][][]span
	pal    palette
}

func newHighlighter() *highlighter {
	return &highlighter{lexers: map[int32]chroma.Lexer{}, chunks: map[chunkKey][][]span{}}
}

// spans are the coloured runs of row r's line.
func (h *highlighter) spans(files []unidiff.File, r diffRow) []span {
	key := chunkKey{r.file, r.hunk, r.line / hlChunk}
	c, ok := h.chunks[key]
	if !ok {
		if len(h.chunks) >= hlMaxChunks {
			clear(h.chunks)
		}
		c = h.tokenise(files, key)
		h.chunks[key] = c
	}
	return c[r.line%hlChunk]
}

func (h *highlighter) lexer(files []unidiff.File, file int32) chroma.Lexer {
	lx, ok := h.lexers[file]
	if !ok {
		if lx = lexers.Match(baseName(files[file].Path())); lx != nil {
			lx = chroma.Coalesce(lx)
		}
		h.lexers[file] = lx
	}
	return lx
}

func baseName(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// tokenise colours one chunk of a hunk. Added, deleted and context lines
// go to the lexer together, in the order shown: neither side alone is
// what the reader sees.
func (h *highlighter) tokenise(files []unidiff.File, key chunkKey) [][]span {
	lines := files[key.file].Hunks[key.hunk].Lines
	lines = lines[int(key.chunk)*hlChunk : min(len(lines), int(key.chunk+1)*hlChunk)]
	out := make([][]span, len(lines))
	lx := h.lexer(files, key.file)
	if lx == nil {
		return out
	}
	var b strings.Builder
	for _, l := range lines {
		if l.Kind != unidiff.NoNewline && len(l.Text) <= hlMaxLineBytes {
			b.WriteString(l.Text)
		}
		b.WriteByte('\n')
	}
	it, err := lx.Tokenise(nil, b.String())
	if err != nil {
		return out
	}
	line, off := 0, 0
	for tok := it(); tok != chroma.EOF && line < len(out); tok = it() {
		v := tok.Value
		for v != "" && line < len(out) {
			nl := strings.IndexByte(v, '\n')
			part := v
			if nl >= 0 {
				part = v[:nl]
			}
			if part != "" {
				off += len(part)
				s := out[line]
				if n := len(s); n > 0 && s[n-1].kind == tok.Type {
					s[n-1].end = int32(off)
				} else {
					out[line] = append(s, span{end: int32(off), kind: tok.Type})
				}
			}
			if nl < 0 {
				break
			}
			v = v[nl+1:]
			line++
			off = 0
		}
	}
	return out
}

// palette maps token types to colours for the theme in use: chroma's
// GitHub styles, dark or light as the theme's background is.
type palette struct {
	bg    color.Color // the background it was made for
	style *chroma.Style
	text  chroma.Colour
	fg    color.Color
	cache map[chroma.TokenType]color.Color
}

func (h *highlighter) palette() *palette {
	bg := theme.Color(theme.ColorNameBackground)
	if h.pal.bg != bg {
		name := "github"
		if isDark(bg) {
			name = "github-dark"
		}
		st := styles.Get(name)
		h.pal = palette{bg: bg, style: st, text: st.Get(chroma.Text).Colour,
			fg: theme.Color(theme.ColorNameForeground), cache: map[chroma.TokenType]color.Color{}}
	}
	return &h.pal
}

func (p *palette) colour(t chroma.TokenType) color.Color {
	if c, ok := p.cache[t]; ok {
		return c
	}
	var c color.Color = p.fg
	if e := p.style.Get(t).Colour; e.IsSet() && e != p.text {
		c = color.NRGBA{R: e.Red(), G: e.Green(), B: e.Blue(), A: 0xff}
	}
	p.cache[t] = c
	return c
}

func isDark(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return (299*r+587*g+114*b)/1000 < 0x8000
}
