package vt

import (
	"fmt"
	"math/rand/v2"
)

// BenchStream returns about size bytes of the output this package is tuned
// for: a compiler or test runner printing coloured diagnostics (SGR colours
// and bold around file names, positions and severities, 100–130 columns,
// some CJK text, CRLF line ends), now and then a progress line redrawn in
// place with ESC[2K and CR and a status line reached with cursor up/down.
//
// It is exported, under a name no caller would reach for by accident, so
// that the benchmarks here and the comparison with other emulators in
// bench/vtcompare feed every emulator identical bytes. The stream is the
// same on every call.
func BenchStream(size int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{
		"cannot", "use", "value", "of", "type", "int", "as", "string", "in",
		"argument", "to", "function", "undefined:", "missing", "return",
		"declared", "and", "not", "used", "imported", "mismatched", "types",
		"unexpected", "newline,", "expected", "comma", "or", "closing", "paren",
		"日本語", "エラー", "変数", "型",
	}
	files := []string{
		"supervisor/pty.go", "store/bolt/migrations.go", "mcpserver/tools/search.go",
		"app/ui/window_main.go", "internal/proto/codec_test.go",
	}
	kinds := []struct{ name, sgr string }{
		{"error", "\x1b[1;31m"},
		{"warning", "\x1b[1;38;5;214m"},
		{"note", "\x1b[38;2;90;160;255m"},
	}
	out := make([]byte, 0, size+256)
	for line := 0; len(out) < size; line++ {
		if line%40 == 39 {
			// A progress bar redrawn in place, then a status line one row
			// up refreshed and the cursor put back.
			for step := 0; step <= 100; step += 25 {
				bar := step / 5
				out = fmt.Appendf(out, "\x1b[2K\r\x1b[32m[%-20s]\x1b[0m %3d%% compiling package %d",
					string(make20('#', bar)), step, line)
			}
			out = append(out, "\x1b[1A\x1b[2K\r\x1b[7m building \x1b[0m"...)
			out = fmt.Appendf(out, " %d packages, %d errors\x1b[1B\r\n", line/40, line/7)
			continue
		}
		k := kinds[rng.IntN(len(kinds))]
		out = fmt.Appendf(out, "\x1b[1m%s\x1b[0m:\x1b[36m%d\x1b[0m:\x1b[36m%d\x1b[0m: %s%s:\x1b[0m ",
			files[rng.IntN(len(files))], 1+rng.IntN(2000), 1+rng.IntN(120), k.sgr, k.name)
		target := 100 + rng.IntN(31)
		for col := 40; col < target; {
			w := words[rng.IntN(len(words))]
			out = append(out, w...)
			out = append(out, ' ')
			col += len(w) + 1
		}
		out = append(out, "\r\n"...)
	}
	return out
}

// make20 returns n copies of b (n at most 20).
func make20(b byte, n int) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = b
	}
	return s
}
