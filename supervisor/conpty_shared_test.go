package supervisor

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf16"
)

func TestHoldCount(t *testing.T) {
	tests := []struct {
		name string
		// ops: '+' acquire, '-' release.
		ops       string
		acquired  []bool // result of each '+', in order
		zeroCalls int32
	}{
		{"caller's hold only", "-", nil, 1},
		{"process outlives the caller's hold", "+--", []bool{true}, 1},
		{"setup then agent", "+-+--", []bool{true, true}, 1},
		{"no hold after zero", "-+", []bool{false}, 1},
		{"extra release is ignored", "---", nil, 1},
		{"still held", "++-", []bool{true, true}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var zero atomic.Int32
			h := newHoldCount(func() { zero.Add(1) })
			var got []bool
			for _, op := range tt.ops {
				if op == '+' {
					got = append(got, h.acquire())
				} else {
					h.release()
				}
			}
			if !slices.Equal(got, tt.acquired) {
				t.Errorf("acquire results %v, want %v", got, tt.acquired)
			}
			if n := zero.Load(); n != tt.zeroCalls {
				t.Errorf("onZero ran %d times, want %d", n, tt.zeroCalls)
			}
		})
	}
}

func TestWindowsEnvBlock(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		root string
		want []string
	}{
		{"empty adds SYSTEMROOT", nil, `C:\Windows`, []string{`SYSTEMROOT=C:\Windows`}},
		{"empty without a root", nil, "", nil},
		{"kept in order", []string{"A=1", "B=2", "SystemRoot=D:\\W"}, `C:\Windows`, []string{"A=1", "B=2", `SystemRoot=D:\W`}},
		{"last of a name wins, any case", []string{"Path=a", "X=1", "PATH=b"}, "", []string{"X=1", "PATH=b"}},
		{"per-drive folders keep their name", []string{`=C:=C:\x`, `=D:=D:\y`}, "", []string{`=C:=C:\x`, `=D:=D:\y`}},
		{"NUL dropped", []string{"A=1\x00B=2", "C=3"}, "", []string{"C=3"}},
		{"UTF-16", []string{"NAME=héllo €"}, "", []string{"NAME=héllo €"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			block := windowsEnvBlock(tt.env, tt.root)
			if len(block) < 2 || block[len(block)-1] != 0 || block[len(block)-2] != 0 {
				t.Fatalf("block %v does not end in two NULs", block)
			}
			var got []string
			for _, s := range strings.Split(string(utf16.Decode(block[:len(block)-2])), "\x00") {
				if s != "" {
					got = append(got, s)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("entries %q, want %q", got, tt.want)
			}
		})
	}
}
