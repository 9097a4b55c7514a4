package unidiff

import (
	"errors"
	"reflect"
	"testing"

	"github.com/switchboard-dev/switchboard/internal/unidiff/difftest"
)

// realDiff is what git writes for a repository where one file changed, one
// was added, one deleted, one renamed with an edit, one became executable,
// one binary file changed and one path has a space and an accent.
const realDiff = `diff --git a/main.go b/main.go
index 3b18e51..a2c4f7e 100644
--- a/main.go
+++ b/main.go
@@ -1,5 +1,7 @@ package main
 package main
 
-import "fmt"
+import (
+	"fmt"
+)
 
 func main() { fmt.Println("hi") }
@@ -10,2 +11,2 @@ func helper() {
-	return 1
+	return 2
 }
diff --git a/new.txt b/new.txt
new file mode 100644
index 0000000..ce01362
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+hello
\ No newline at end of file
diff --git a/old.txt b/old.txt
deleted file mode 100644
index ce01362..0000000
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-bye
--- not a header
diff --git a/docs/a.md b/docs/b.md
similarity index 90%
rename from docs/a.md
rename to docs/b.md
index 1111111..2222222 100644
--- a/docs/a.md
+++ b/docs/b.md
@@ -3 +3 @@ Title
-old
+new
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
diff --git a/logo.png b/logo.png
index 5b1f..9a0c 100644
Binary files a/logo.png and b/logo.png differ
diff --git "a/caf\303\251 menu.txt" "b/caf\303\251 menu.txt"
index 1..2 100644
--- "a/caf\303\251 menu.txt"
+++ "b/caf\303\251 menu.txt"
@@ -1 +1 @@
-x
+y
diff --git a/with b/space.txt b/with b/space.txt
new file mode 100644
index 0000000..e69de29
`

func TestParseReal(t *testing.T) {
	files, err := Parse(realDiff)
	if err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Letter, Old, New string
		Status           Status
		Binary           bool
		OldMode, NewMode string
		Sim              int
		Added, Deleted   int
		Hunks            int
	}
	var got []summary
	for _, f := range files {
		got = append(got, summary{f.Letter(), f.OldPath, f.NewPath, f.Status, f.Binary, f.OldMode, f.NewMode, f.Similarity, f.Added, f.Deleted, len(f.Hunks)})
	}
	want := []summary{
		{"M", "main.go", "main.go", Modified, false, "100644", "100644", 0, 4, 2, 2},
		{"A", "", "new.txt", Added, false, "", "100644", 0, 1, 0, 1},
		{"D", "old.txt", "", Deleted, false, "100644", "", 0, 0, 2, 1},
		{"R", "docs/a.md", "docs/b.md", Renamed, false, "100644", "100644", 90, 1, 1, 1},
		{"T", "run.sh", "run.sh", ModeChanged, false, "100644", "100755", 0, 0, 0, 0},
		{"B", "logo.png", "logo.png", Modified, true, "100644", "100644", 0, 0, 0, 0},
		{"M", "café menu.txt", "café menu.txt", Modified, false, "100644", "100644", 0, 1, 1, 1},
		{"A", "", "with b/space.txt", Added, false, "", "100644", 0, 0, 0, 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files:\n got %+v\nwant %+v", got, want)
	}

	h := files[0].Hunks[0]
	if h.Header() != "@@ -1,5 +1,7 @@ package main" {
		t.Errorf("header %q", h.Header())
	}
	wantLines := []Line{
		{Context, 1, 1, "package main"},
		{Context, 2, 2, ""},
		{Delete, 3, 0, `import "fmt"`},
		{Add, 0, 3, "import ("},
		{Add, 0, 4, "\t\"fmt\""},
		{Add, 0, 5, ")"},
		{Context, 4, 6, ""},
		{Context, 5, 7, `func main() { fmt.Println("hi") }`},
	}
	if !reflect.DeepEqual(h.Lines, wantLines) {
		t.Errorf("lines:\n got %+v\nwant %+v", h.Lines, wantLines)
	}
	if l := files[1].Hunks[0].Lines; len(l) != 2 || l[1].Kind != NoNewline || l[1].Text != "No newline at end of file" {
		t.Errorf("no-newline marker: %+v", l)
	}
	if l := files[2].Hunks[0].Lines[1]; l.Kind != Delete || l.Text != "-- not a header" || l.OldLine != 2 {
		t.Errorf("a deleted line that looks like a header: %+v", l)
	}
}

func TestParseTable(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		files   int
		lines   int
		wantErr bool
	}{
		{"empty", "", 0, 0, false},
		{"preamble only", "commit abc\nAuthor: x\n\n    msg\n", 0, 0, false},
		{"plain unified, two files", "--- a.txt\t2024-01-01\n+++ a.txt\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n--- b.txt\n+++ b.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n", 2, 5, false},
		{"CRLF", "diff --git a/x b/x\r\n--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n", 1, 2, false},
		{"trimmed empty context line", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n", 1, 4, false},
		{"hunk ends early", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n", 0, 0, true},
		{"bad header", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -x +1 @@\n", 0, 0, true},
		{"unclosed header", "diff --git a/x b/x\n@@ -1 +1\n", 0, 0, true},
		{"garbage in a hunk", "diff --git a/x b/x\n@@ -1 +1 @@\n?what\n", 0, 0, true},
		{"lying counts", "diff --git a/x b/x\n@@ -1,1000000000 +1,1000000000 @@\n a\n", 0, 0, true},
		{"too many adds", "diff --git a/x b/x\n@@ -1 +1 @@\n+a\n+b\n", 1, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := Parse(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("err = %v, want ErrMalformed", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for i := range files {
				n += files[i].LineCount()
			}
			if len(files) != tt.files || n != tt.lines {
				t.Errorf("%d files, %d lines; want %d, %d", len(files), n, tt.files, tt.lines)
			}
		})
	}
}

func TestUnquote(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:              `plain`,
		`"a\tb"`:             "a\tb",
		`"caf\303\251"`:      "café",
		`"q\"uote\\"`:        `q"uote\`,
		`"unterminated`:      `"unterminated`,
		`"bad\9"`:            "bad9",
		`"trailing\"`:        `"trailing\"`,
		`"octal at end \30"`: "octal at end 30",
	} {
		if got := unquote(in); got != want {
			t.Errorf("unquote(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(realDiff)
	f.Add("--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n")
	f.Add("diff --git \"a/x\" \"b/y\"\nrename from x\nrename to y\n")
	f.Add("@@ -0,0 +1,2 @@\n+a\n\\ No newline\n")
	f.Fuzz(func(t *testing.T, in string) {
		files, err := Parse(in)
		if err != nil {
			return
		}
		for _, fl := range files {
			add, del := 0, 0
			for _, h := range fl.Hunks {
				for _, l := range h.Lines {
					switch l.Kind {
					case Add:
						add++
					case Delete:
						del++
					}
				}
			}
			if add != fl.Added || del != fl.Deleted {
				t.Fatalf("counts %d/%d, lines say %d/%d", fl.Added, fl.Deleted, add, del)
			}
		}
	})
}

func TestSynthetic(t *testing.T) {
	files, err := Parse(difftest.Synthetic(500, 10000))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 500 {
		t.Fatalf("%d files", len(files))
	}
}

// BenchmarkParse reads a change of 5,000 files and 100,000 lines.
func BenchmarkParse(b *testing.B) {
	in := difftest.Synthetic(5000, 100000)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(in); err != nil {
			b.Fatal(err)
		}
	}
}
