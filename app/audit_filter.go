package app

// The Audit window's filters: the query they make, and the time bounds
// they take.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// outcomeNotOK is the outcome filter that matches every denial and error.
const outcomeNotOK = "!ok"

// auditQuery is what the filters at the top of the window ask for.
type auditQuery struct {
	// filter holds the fields the store filters on; its paging fields
	// are set per call.
	filter store.AuditFilter
	// notOK keeps records whose outcome is not "ok".
	notOK bool
	// text is matched, lower case, against every field of a record.
	text string
	// from and to bound the records' times; zero is open.
	from, to time.Time
}

// whole reports whether q selects the whole log, with the app's refreshes
// or without: then row i is position top-i (auditView.pos) and any page
// is one call away, wherever the person scrolls.
func (q auditQuery) whole() bool {
	f := q.filter
	f.Views = false
	return f == (store.AuditFilter{}) && !q.notOK && q.text == "" && q.from.IsZero() && q.to.IsZero()
}

// clientSide reports whether q filters on something the store cannot.
func (q auditQuery) clientSide() bool { return q.notOK || q.text != "" }

// matchClient applies the parts of q the store does not.
func (q auditQuery) matchClient(r *store.AuditRecord) bool {
	if q.notOK && r.Outcome == "ok" {
		return false
	}
	if q.text == "" {
		return true
	}
	for _, f := range []string{r.ID, r.Method, r.Outcome, r.Transport, r.KeyID, r.SessionID, r.Repository, r.ArgsDigest, r.Hash, r.PrevHash, r.Time.Local().Format(auditTimeLayout)} {
		if strings.Contains(strings.ToLower(f), q.text) {
			return true
		}
	}
	return false
}

const auditTimeLayout = "2006-01-02 15:04:05"

// parseAuditTime reads a time bound: "2026-11-30 14:00", "2026-11-30",
// RFC 3339, "now", or relative to now: "-1h", "-30m", "-2d".
func parseAuditTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return time.Time{}, nil
	case s == "now":
		return now, nil
	case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
		if days, ok := strings.CutSuffix(s, "d"); ok {
			n, err := strconv.Atoi(days)
			if err != nil {
				return time.Time{}, fmt.Errorf("time %q: %w", s, err)
			}
			return now.AddDate(0, 0, n), nil
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return time.Time{}, fmt.Errorf("time %q: %w", s, err)
		}
		return now.Add(d), nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("time %q: use 2026-11-30 14:00, 2026-11-30, or -1h, -30m, -2d", s)
}

// readQuery reads the filters.
func (w *auditWindow) readQuery() (auditQuery, error) {
	var q auditQuery
	method := strings.TrimSpace(w.method.Text)
	if name, ok := w.methodNames[method]; ok {
		method = name // chosen from the list, in words
	}
	q.filter = store.AuditFilter{
		Method:     method,
		Outcome:    strings.TrimSpace(w.outcome.Text),
		KeyID:      strings.TrimSpace(w.keyID.Text),
		SessionID:  strings.TrimSpace(w.session.Text),
		Transport:  strings.TrimSpace(w.transport.Text),
		Repository: strings.TrimSpace(w.repository.Text),
		Views:      w.refreshes.Checked,
	}
	if q.filter.Outcome == outcomeNotOK {
		q.filter.Outcome, q.notOK = "", true
	}
	q.text = strings.ToLower(strings.TrimSpace(w.text.Text))
	now := w.now()
	var err error
	if q.from, err = parseAuditTime(w.from.Text, now); err != nil {
		return q, err
	}
	if q.to, err = parseAuditTime(w.to.Text, now); err != nil {
		return q, err
	}
	return q, nil
}

// methodWords names a method for a person: "work.await_packet" reads
// "Work: await packet". A name typed by hand in the filter still works.
func methodWords(name string) string {
	group, rest, ok := strings.Cut(name, ".")
	if !ok || group == "" {
		return strings.ReplaceAll(name, "_", " ")
	}
	return strings.ToUpper(group[:1]) + strings.ReplaceAll(group[1:], "_", " ") + ": " + strings.ReplaceAll(rest, "_", " ")
}
