package app

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// textBadge is a short word on a rounded, tinted background: a state that
// stands out in a list row without another line. Its colours are theme
// names, so that it follows a change of theme.
type textBadge struct {
	widget.BaseWidget
	text   string
	bg, fg fyne.ThemeColorName
}

// newTextBadge is text in fg on bg (a colour and its ForegroundOn pair:
// theme.ColorNameWarning and theme.ColorNameForegroundOnWarning).
func newTextBadge(text string, bg, fg fyne.ThemeColorName) *textBadge {
	b := &textBadge{text: text, bg: bg, fg: fg}
	b.ExtendBaseWidget(b)
	return b
}

// Set changes the word and its colours.
func (b *textBadge) Set(text string, bg, fg fyne.ThemeColorName) {
	if b.text == text && b.bg == bg && b.fg == fg {
		return
	}
	b.text, b.bg, b.fg = text, bg, fg
	b.Refresh()
}

func (b *textBadge) CreateRenderer() fyne.WidgetRenderer {
	r := &textBadgeRenderer{b: b, bg: canvas.NewRectangle(color.Transparent), text: canvas.NewText(b.text, color.Black)}
	r.text.TextStyle = fyne.TextStyle{Bold: true}
	r.Refresh()
	return r
}

type textBadgeRenderer struct {
	b    *textBadge
	bg   *canvas.Rectangle
	text *canvas.Text
}

func (r *textBadgeRenderer) MinSize() fyne.Size {
	p := r.b.Theme().Size(theme.SizeNamePadding)
	s := r.text.MinSize()
	return fyne.NewSize(s.Width+3*p, s.Height+p/2)
}

func (r *textBadgeRenderer) Layout(size fyne.Size) {
	r.bg.Resize(size)
	ts := r.text.MinSize()
	r.text.Move(fyne.NewPos((size.Width-ts.Width)/2, (size.Height-ts.Height)/2))
	r.text.Resize(ts)
}

func (r *textBadgeRenderer) Refresh() {
	th := r.b.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	r.bg.FillColor = th.Color(r.b.bg, v)
	r.bg.CornerRadius = th.Size(theme.SizeNameInputRadius)
	r.text.Text = r.b.text
	r.text.Color = th.Color(r.b.fg, v)
	r.text.TextSize = th.Size(theme.SizeNameCaptionText)
	r.Layout(r.b.Size())
	r.bg.Refresh()
	r.text.Refresh()
}

func (r *textBadgeRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.bg, r.text} }
func (r *textBadgeRenderer) Destroy()                     {}
