package app

// The Audit window's table and detail pane: the columns, the rows, and the
// selected record.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/store"
)

// auditColumns are the table's columns and their relative widths, which
// are their widths in pixels at the window's usual size (1280 wide, the
// table 975 of it): there the time, method, outcome (a denial's code too),
// transport, duration and audit id show whole, and the key, session and
// repository ids, which the detail pane shows whole, end in an ellipsis.
var auditColumns = []struct {
	title string
	width float32
}{
	{"Time", 150}, {"Method", 122}, {"Outcome", 160}, {"Transport", 86}, {"Key", 96},
	{"Session", 98}, {"Repository", 97}, {"Duration", 80}, {"Audit id", 86},
}

// columnsLayout lays its objects out side by side, each column's share of
// the width in proportion to its width in auditColumns, so the header and
// every row line up, and the table fits its pane without a horizontal
// scroll bar (cells truncate with an ellipsis).
type columnsLayout struct{}

func auditColumnsWidth() float32 {
	total := float32(0)
	for _, c := range auditColumns {
		total += c.width
	}
	return total
}

func (columnsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	scale := size.Width / auditColumnsWidth()
	x := float32(0)
	for i, o := range objs {
		w := auditColumns[i].width * scale
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(w, size.Height))
		x += w
	}
}

func (columnsLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(auditColumnsWidth()/2, h)
}

func (w *auditWindow) createRow() fyne.CanvasObject {
	cells := make([]fyne.CanvasObject, len(auditColumns))
	for i := range cells {
		l := widget.NewLabel("")
		l.Truncation = fyne.TextTruncateEllipsis
		cells[i] = l
	}
	return container.New(columnsLayout{}, cells...)
}

func (w *auditWindow) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	cells := o.(*fyne.Container).Objects
	r, ok := w.record(i)
	for j, c := range cells {
		text, imp := "", widget.MediumImportance
		switch {
		case !ok && j == 0:
			text, imp = labelLoadingRow, widget.LowImportance
		case !ok:
		case j == 0:
			text = r.Time.Local().Format(auditTimeLayout)
		case j == 1:
			text = r.Method
		case j == 2 && r.Outcome == "ok":
			text = "✓ ok"
		case j == 2:
			text, imp = "✕ "+r.Outcome, widget.DangerImportance
		case j == 3:
			text = r.Transport
		case j == 4:
			text = r.KeyID
		case j == 5:
			text = r.SessionID
		case j == 6:
			text = r.Repository
		case j == 7:
			text = auditDuration(r.DurationMicros)
		case j == 8:
			text = shortAuditID(r)
		}
		// The list updates every visible row whenever a page arrives;
		// a label refreshed with the same text is laid out again for
		// nothing.
		if l := c.(*widget.Label); l.Text != text || l.Importance != imp {
			l.Importance = imp
			l.SetText(text)
		}
	}
	if ok && w.firstRows != nil {
		close(w.firstRows)
		w.firstRows = nil
	}
}

func (w *auditWindow) selectRow(i widget.ListItemID) {
	r, ok := w.record(i)
	if !ok {
		return
	}
	rec := *r
	w.selected = &rec
	w.detail.SetText(auditDetail(rec))
	w.copy.Enable()
}

// shortAuditID is r's id without the leading zeros of its number, which
// take most of the column; the detail pane shows it whole.
func shortAuditID(r *store.AuditRecord) string {
	return "aud_" + strconv.FormatUint(r.Seq, 16)
}

// auditDuration is a call's duration as the table shows it: to three
// figures, so it fits its column (the detail pane has it whole).
func auditDuration(us int64) string {
	d := time.Duration(us) * time.Microsecond
	switch {
	case d >= 100*time.Second:
		d = d.Round(time.Second)
	case d >= 10*time.Second:
		d = d.Round(100 * time.Millisecond)
	case d >= time.Second:
		d = d.Round(10 * time.Millisecond)
	case d >= 100*time.Millisecond:
		d = d.Round(time.Millisecond)
	case d >= 10*time.Millisecond:
		d = d.Round(100 * time.Microsecond)
	case d >= time.Millisecond:
		d = d.Round(10 * time.Microsecond)
	}
	return d.String()
}

// auditDetail is every field of r: a name, and under it the value. The
// pane is narrow, and a value beside its name would wrap under the names
// (a hash always does).
func auditDetail(r store.AuditRecord) string {
	var b strings.Builder
	line := func(k, v string) {
		if v == "" {
			v = "—"
		}
		fmt.Fprintf(&b, "%s\n  %s\n", k, v)
	}
	line("audit id", r.ID)
	line("seq", strconv.FormatUint(r.Seq, 10))
	line("time", r.Time.Local().Format("2006-01-02 15:04:05.000 MST"))
	line("time (UTC)", r.Time.UTC().Format(time.RFC3339Nano))
	line("method", r.Method)
	line("outcome", r.Outcome)
	line("transport", r.Transport)
	line("key id", r.KeyID)
	line("session", r.SessionID)
	line("repository", r.Repository)
	line("duration", (time.Duration(r.DurationMicros) * time.Microsecond).String())
	line("args digest", r.ArgsDigest)
	line("prev hash", r.PrevHash)
	line("hash", r.Hash)
	return b.String()
}

func (w *auditWindow) copyJSON() {
	if w.selected == nil {
		return
	}
	b, err := json.MarshalIndent(w.selected, "", "  ")
	if err != nil {
		return
	}
	w.g.app.Clipboard().SetContent(string(b))
}
