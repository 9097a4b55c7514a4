package store

import (
	"fmt"
	"testing"
)

func TestWriteScopeGlobs(t *testing.T) {
	w := newWorkEnv(t)
	for _, c := range []struct {
		glob, want string
		code       Code
	}{
		{glob: "src/*.go", want: "src/*.go"},
		{glob: "./src//*.go", want: "src/*.go"},
		{glob: "src/", want: "src/**"},
		{glob: "src/**/", want: "src/**"},
		{glob: "src", want: "src"},
		{glob: "**", want: "**"},
		{glob: "**/*.md", want: "**/*.md"},
		{glob: "a/[bc]/d?", want: "a/[bc]/d?"},
		{glob: "", code: CodeInvalidArgument},
		{glob: ".", code: CodeInvalidArgument},
		{glob: "./", code: CodeInvalidArgument},
		{glob: "/abs/*", code: CodeInvalidArgument},
		{glob: `\abs`, code: CodeInvalidArgument},
		{glob: `C:\x`, code: CodeInvalidArgument},
		{glob: "c:/x", code: CodeInvalidArgument},
		{glob: "../x", code: CodeInvalidArgument},
		{glob: "a/../b", code: CodeInvalidArgument},
		{glob: "a/..", code: CodeInvalidArgument},
		{glob: "a/[", code: CodeInvalidArgument},
		{glob: "a**", code: CodeInvalidArgument},
		{glob: "a/**b/c", code: CodeInvalidArgument},
	} {
		got, err := CleanWriteScopeGlob(c.glob)
		wantWorkCode(t, err, c.code, fmt.Sprintf("CleanWriteScopeGlob(%q)", c.glob))
		if err == nil && got != c.want {
			t.Errorf("CleanWriteScopeGlob(%q) = %q, want %q", c.glob, got, c.want)
		}
		if c.code != "" {
			_, err := w.pkt(func(tx *Tx) (Packet, error) {
				return tx.CreatePacket(PacketSpec{RepositoryID: w.repo.ID, Title: "t", WriteScope: []string{"ok/*", c.glob}})
			})
			wantWorkCode(t, err, c.code, fmt.Sprintf("CreatePacket with glob %q", c.glob))
		}
	}
	for _, c := range []struct {
		globs []string
		path  string
		want  bool
	}{
		{[]string{"**"}, "a/b/c", true},
		{[]string{"**"}, "a", true},
		{[]string{"docs/**"}, "docs", true},
		{[]string{"docs/**"}, "docs/a/b.md", true},
		{[]string{"docs/**"}, "docsx/a", false},
		{[]string{"**/*.md"}, "c.md", true},
		{[]string{"**/*.md"}, "a/b/c.md", true},
		{[]string{"**/*.md"}, "a/b/c.go", false},
		{[]string{"a/**/b"}, "a/b", true},
		{[]string{"a/**/b"}, "a/x/y/b", true},
		{[]string{"a/**/b"}, "a/x/y/c", false},
		{[]string{"a/**/**/b"}, "a/b", true},
		{[]string{"a/**/b/**"}, "a/x/b/y/z", true},
		{[]string{"*.go"}, "a/b.go", false},
		{[]string{"*.go"}, "b.go", true},
		{[]string{"src/*"}, "src/a/b", false},
		{[]string{"src/*"}, "src", false},
		{[]string{"src"}, "src", true},
		{[]string{"src"}, "src/a", false},
		{[]string{"x", "src/?.go"}, "src/a.go", true},
		{nil, "a", false},
	} {
		if got := MatchWriteScope(c.globs, c.path); got != c.want {
			t.Errorf("MatchWriteScope(%q, %q) = %v, want %v", c.globs, c.path, got, c.want)
		}
	}
}
