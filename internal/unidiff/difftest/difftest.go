// Package difftest writes synthetic unified diffs of any size, for the
// parser's and the Changes view's benchmarks.
package difftest

import (
	"fmt"
	"strings"
)

// Synthetic writes a change of files files and about lines lines, as git
// would: every fifth file added, every seventh deleted, every eleventh
// renamed, every thirteenth binary.
func Synthetic(files, lines int) string {
	var b strings.Builder
	per := lines / files
	for i := range files {
		p := fmt.Sprintf("pkg%03d/file%05d.go", i%97, i)
		switch {
		case i%13 == 12:
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1..2 100644\nBinary files a/%s and b/%s differ\n", p, p, p, p)
			continue
		case i%5 == 4:
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0..1\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", p, p, p, per)
			for j := range per {
				fmt.Fprintf(&b, "+func f%d() int { return %d }\n", j, j)
			}
			continue
		case i%7 == 6:
			fmt.Fprintf(&b, "diff --git a/%s b/%s\ndeleted file mode 100644\nindex 1..0\n--- a/%s\n+++ /dev/null\n@@ -1,%d +0,0 @@\n", p, p, p, per)
			for j := range per {
				fmt.Fprintf(&b, "-func f%d() int { return %d }\n", j, j)
			}
			continue
		}
		old := p
		if i%11 == 10 {
			old = "old/" + p
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nsimilarity index 80%%\nrename from %s\nrename to %s\nindex 1..2 100644\n", old, p, old, p)
		} else {
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1..2 100644\n", p, p)
		}
		fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n@@ -1,%d +1,%d @@ func x() {\n", old, p, per-per/4, per-per/4)
		for j := range per {
			switch j % 4 {
			case 1:
				fmt.Fprintf(&b, "-\tv := old(%d) // was\n", j)
			case 2:
				fmt.Fprintf(&b, "+\tv := next(%d) + \"s\"\n", j)
			default:
				fmt.Fprintf(&b, " \tctx = step(ctx, %d)\n", j)
			}
		}
	}
	return b.String()
}
