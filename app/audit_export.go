package app

// The Audit window's export of the current view, as JSON lines or CSV.

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// auditExportBatch is the page size of an export.
const auditExportBatch = auditScanBatch

// pickExport asks for a file and exports the current view into it.
func (w *auditWindow) pickExport(format string) {
	q, top, floor := w.view.q, w.view.top, w.view.floor
	if !w.view.ready {
		return
	}
	if w.view.whole {
		// The whole log's top may be a rank; the export pages by seq.
		top = w.view.topSeq
	}
	// The person asked for the export: its reads are no views.
	src := auditSource{w.g, mcpserver.TransportGUI}
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil || wc == nil {
			return
		}
		path := wc.URI().Path()
		wc.Close()
		w.setStatus(w.export, "exporting…")
		w.exportJ.Disable()
		w.exportC.Disable()
		go func() {
			n, err := exportAudit(src, q, top, floor, path, format, func(n int) {
				w.do(func() { w.setStatus(w.export, fmt.Sprintf("exporting… %d records", n)) })
			})
			w.do(func() {
				w.exportJ.Enable()
				w.exportC.Enable()
				if err != nil {
					w.setStatus(w.export, "")
					dialog.ShowError(err, w.win)
					return
				}
				w.setStatus(w.export, fmt.Sprintf("exported %s to %s", plural(n, "record"), path))
			})
		}()
	}, w.win)
	d.SetFileName("switchboard-audit." + format)
	// The picker would start in the process's folder, which may be a
	// repository of the person's: an export belongs in Downloads, or home.
	if dir := exportFolder(os.Getenv("HOME")); dir != "" {
		if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			d.SetLocation(l)
		}
	}
	d.Show()
}

// exportFolder is where an export is offered first: home's Downloads when
// there is one, else home; "" without a home.
func exportFolder(home string) string {
	if home == "" {
		return ""
	}
	if fi, err := os.Stat(filepath.Join(home, "Downloads")); err == nil && fi.IsDir() {
		return filepath.Join(home, "Downloads")
	}
	return home
}

// csvText defuses a field a spreadsheet would run as a formula. A denied
// call records the method name the caller sent, whatever it was, so a
// stranger could otherwise plant "=HYPERLINK(…)" in an export.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

var auditCSVHeader = []string{"seq", "id", "time", "transport", "keyid", "session_id", "method", "repository_id", "outcome", "duration_us", "args_digest", "prev_hash", "hash"}

// exportAudit writes the records of q with seqs in [floor, top], newest
// first, to path as JSON lines ("jsonl") or CSV ("csv"), readable by the
// owner only. It reads the log in pages and reports the count after each.
// A top of 0 exports up to the newest record.
func exportAudit(src auditSource, q auditQuery, top, floor uint64, path, format string, progress func(int)) (n int, err error) {
	if format != "jsonl" && format != "csv" {
		return 0, fmt.Errorf("export format %q: want jsonl or csv", format)
	}
	if top == 0 {
		newest, err := src.newest()
		if err != nil {
			return 0, err
		}
		if floor, top, err = src.bounds(q, newest); err != nil {
			return 0, err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	// The file dialog may have created it with the default mode first.
	if err := f.Chmod(0o600); err != nil {
		return 0, fmt.Errorf("make %s owner-only: %w", path, err)
	}
	bw := bufio.NewWriter(f)
	var cw *csv.Writer
	enc := json.NewEncoder(bw)
	if format == "csv" {
		cw = csv.NewWriter(bw)
		if err := cw.Write(auditCSVHeader); err != nil {
			return 0, err
		}
	}
	before := top + 1
	for done := false; !done; {
		var recs []store.AuditRecord
		recs, before, done, err = src.scan(q, before, max(floor, 1), auditExportBatch, 0)
		if err != nil {
			return n, err
		}
		for _, r := range recs {
			if cw != nil {
				err = cw.Write([]string{strconv.FormatUint(r.Seq, 10), r.ID, r.Time.UTC().Format(time.RFC3339Nano),
					csvText(r.Transport), csvText(r.KeyID), csvText(r.SessionID), csvText(r.Method), csvText(r.Repository), csvText(r.Outcome),
					strconv.FormatInt(r.DurationMicros, 10), r.ArgsDigest, r.PrevHash, r.Hash})
			} else {
				err = enc.Encode(r)
			}
			if err != nil {
				return n, err
			}
		}
		n += len(recs)
		if progress != nil {
			progress(n)
		}
	}
	if cw != nil {
		cw.Flush()
		if err := cw.Error(); err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}
