package app

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

func TestAuditExport(t *testing.T) {
	g := auditTestGUI(t)
	appendAuditRecords(t, g.core.Registry().DB(), 3000, time.Now().Add(-time.Hour), syntheticRecord)
	q := auditQuery{filter: store.AuditFilter{Method: "status"}, notOK: true}
	want := 0
	for i := range 3000 {
		if r := syntheticRecord(i); r.Method == "status" && r.Outcome != "ok" {
			want++
		}
	}
	dir := t.TempDir()
	for _, format := range []string{"jsonl", "csv"} {
		path := filepath.Join(dir, "audit."+format)
		var last int
		n, err := exportAudit(auditSource{g, mcpserver.TransportGUI}, q, 0, 0, path, format, func(n int) { last = n })
		if err != nil {
			t.Fatal(err)
		}
		if n != want || last != want {
			t.Errorf("%s: exported %d (progress said %d), want %d", format, n, last, want)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", format, fi.Mode().Perm())
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := 0
		if format == "jsonl" {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var r store.AuditRecord
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatalf("line %d: %v", lines+1, err)
				}
				if r.Method != "status" || r.Outcome == "ok" {
					t.Errorf("exported %+v outside the filter", r)
				}
				lines++
			}
		} else {
			recs, err := csv.NewReader(f).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(recs[0], ",") != strings.Join(auditCSVHeader, ",") {
				t.Errorf("CSV header %q", recs[0])
			}
			for _, r := range recs[1:] {
				if r[6] != "status" || r[8] == "ok" {
					t.Errorf("exported %q outside the filter", r)
				}
			}
			lines = len(recs) - 1
		}
		f.Close()
		if lines != want {
			t.Errorf("%s: %d records in the file, want %d", format, lines, want)
		}
	}
}

// A method name is whatever the caller sent; in a CSV export it cannot
// become a spreadsheet formula.
func TestAuditExportCSVDefusesFormulas(t *testing.T) {
	g := auditTestGUI(t)
	if res := g.core.Registry().Invoke(context.Background(), mcpserver.Principal{KeyID: "k_stranger"}, mcpserver.TransportMCP, "=HYPERLINK(\"x\")", nil); res.Err == nil {
		t.Fatal("an unknown method succeeded")
	}
	path := filepath.Join(t.TempDir(), "audit.csv")
	if _, err := exportAudit(auditSource{g, mcpserver.TransportGUI}, auditQuery{notOK: true}, 0, 0, path, "csv", nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[1][6] != `'=HYPERLINK("x")` {
		t.Fatalf("export = %q; want the method defused with a leading quote", recs)
	}
}

// An export is offered in Downloads, or home without one: never in
// whatever folder the app was started from, which may be a repository.
func TestExportFolder(t *testing.T) {
	home := t.TempDir()
	if got := exportFolder(home); got != home {
		t.Errorf("without Downloads: %q, want home %q", got, home)
	}
	if err := os.Mkdir(filepath.Join(home, "Downloads"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got, want := exportFolder(home), filepath.Join(home, "Downloads"); got != want {
		t.Errorf("with Downloads: %q, want %q", got, want)
	}
	if got := exportFolder(""); got != "" {
		t.Errorf("without a home: %q", got)
	}
}
