package main

import (
	"strings"
	"testing"
)

// A benchmark that skips says why only under -v: the reason becomes its
// row, and the figures of the others are read as before.
func TestParseGoBenchSkip(t *testing.T) {
	out := `goos: linux
BenchmarkConfinedStart
    confine_bench_linux_test.go:43: bubblewrap is not installed (Debian and Ubuntu: apt install bubblewrap)
--- SKIP: BenchmarkConfinedStart
BenchmarkPTY
BenchmarkPTY-2   	       5	1551188396 ns/op	        44.88 bare-MB/s	         0.9375 ratio	        42.08 supervised-MB/s
PASS
`
	res := parseGoBench(strings.NewReader(out))
	r := &report{gobench: res}
	if got, want := r.notMeasured("BenchmarkConfinedStart"), "skipped: bubblewrap is not installed (Debian and Ubuntu: apt install bubblewrap)"; got != want {
		t.Errorf("notMeasured = %q, want %q", got, want)
	}
	if _, ok := r.goBench("BenchmarkConfinedStart", "overhead-ms"); ok {
		t.Error("a skipped benchmark has a figure")
	}
	if v, ok := r.goBench("BenchmarkPTY", "ratio"); !ok || v != 0.9375 {
		t.Errorf("BenchmarkPTY ratio = %v, %v; want 0.9375", v, ok)
	}
	rows := r.confinedRows()
	if len(rows) != 2 {
		t.Fatalf("got %d confined rows, want the two printed ones saying why", len(rows))
	}
	for _, row := range rows {
		if !row.printOnly || !strings.Contains(row.display, "bubblewrap is not installed") && !strings.Contains(row.display, "not measured") {
			t.Errorf("row %s: printOnly %v, %q; want a printed row that says why", row.Name, row.printOnly, row.display)
		}
	}
}
