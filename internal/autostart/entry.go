package autostart

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file is the little of the Desktop Entry spec (1.5) the package
// needs: reading the keys of the [Desktop Entry] group, the escapes of a
// string value, and the quoting of the Exec key.

// entry is the [Desktop Entry] group's keys, values unescaped.
type entry map[string]string

func (e entry) get(key string) string { return e[key] }

// parse reads the [Desktop Entry] group. ok is false when data is not a
// desktop entry: not UTF-8, or that group is not the first.
func parse(data []byte) (entry, bool) {
	if !utf8.Valid(data) {
		return nil, false
	}
	e := entry{}
	group := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
			continue
		case strings.HasPrefix(trimmed, "[") && strings.HasSuffix(trimmed, "]"):
			if group == "" && trimmed != "[Desktop Entry]" {
				return nil, false
			}
			group = trimmed
			continue
		case group == "":
			return nil, false // a key before any group
		case group != "[Desktop Entry]":
			continue
		}
		key, value, found := strings.Cut(line, "=")
		if !found {
			return nil, false
		}
		key = strings.TrimSpace(key)
		if _, dup := e[key]; dup {
			// The spec forbids it; which one a desktop uses is anyone's guess.
			return nil, false
		}
		e[key] = unescapeString(strings.TrimLeft(value, " \t"))
	}
	if group == "" {
		return nil, false
	}
	return e, true
}

// escapeString escapes a string value: backslashes, and the control
// characters quoteExec has already refused for paths.
func escapeString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`)
	s = r.Replace(s)
	if strings.HasPrefix(s, " ") {
		s = `\s` + s[1:] // a leading space would be trimmed
	}
	return s
}

// unescapeString undoes the spec's escapes: \s \n \t \r \\.
func unescapeString(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 's':
			b.WriteByte(' ')
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		default:
			// Not a string escape: Exec's own quoting uses these (\" \$ …),
			// so it is kept for splitExec.
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// execReserved are the characters that make the spec require an Exec
// argument to be quoted.
const execReserved = " \t\n\"'\\><~|&;$*?#()`"

// quoteExec is path as an Exec value (the one argument, quoted when it
// holds a reserved character, % doubled), string escapes applied.
func quoteExec(path string) (string, error) {
	if !utf8.ValidString(path) {
		return "", fmt.Errorf("the program path %q is not UTF-8", path)
	}
	for _, r := range path {
		if r < 0x20 || r == 0x7f {
			return "", fmt.Errorf("the program path %q holds a control character", path)
		}
	}
	arg := strings.ReplaceAll(path, "%", "%%")
	if strings.ContainsAny(path, execReserved) {
		arg = `"` + strings.NewReplacer(`"`, `\"`, "`", "\\`", `$`, `\$`, `\`, `\\`).Replace(arg) + `"`
	}
	return escapeString(arg), nil
}

// splitExec splits an Exec value (string escapes already undone) into its
// arguments, quotes removed and %% made %. Field codes such as %f are kept
// as they are: nothing here expands them.
func splitExec(value string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(value); i++ {
		c := value[i]
		switch {
		case quoted && c == '\\':
			if i+1 == len(value) {
				return nil, errors.New("Exec ends inside an escape")
			}
			i++
			cur.WriteByte(value[i])
		case quoted && c == '"':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == ' ' || c == '\t':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
			continue
		case c == '"':
			quoted = true
		default:
			cur.WriteByte(c)
		}
		inArg = true
	}
	if quoted {
		return nil, errors.New("Exec has an unterminated quote")
	}
	if inArg {
		args = append(args, cur.String())
	}
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "%%", "%")
	}
	return args, nil
}
