package confine

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The profile is tested as data here, on every system: its lines, their
// order, and what a last-match-wins reading of them decides for chosen
// paths. Only macOS runs it.

// sbplAccess is one operation on one path and whether the profile allows it.
type sbplAccess struct {
	op    string // read, stat, write, connect (a Unix socket)
	path  string
	allow bool
}

func TestSeatbeltProfile(t *testing.T) {
	const (
		data    = "/Users/p/Library/Application Support/Switchboard"
		wt      = data + "/worktrees/r/ses_a"
		runtime = "/private/var/folders/xy/abc123/T/switchboard-501"
		token   = runtime + "/sessions/ses_a.token"
	)
	tests := []struct {
		name   string
		c      Checked
		want   []string // the policy's lines, after the fixed part
		checks []sbplAccess
	}{{
		name: "worktree inside the hidden data folder",
		c: Checked{
			Dir:         wt,
			Writable:    []string{wt, "/Users/p/.claude"},
			HiddenDirs:  []string{data, "/Users/p/.ssh", runtime},
			HiddenFiles: []string{"/Users/p/.netrc"},
			Files:       []File{{Src: token, Dst: "/tmp/switchboard/ses_a.token"}},
		},
		want: []string{
			`(deny file-read* file-write* (literal "/Users/p/.netrc"))`,
			`(deny network-outbound (remote unix-socket (subpath "/Users/p/.netrc")))`,
			`(deny file-read* file-write* (subpath "/Users/p/.ssh"))`,
			`(deny network-outbound (remote unix-socket (subpath "/Users/p/.ssh")))`,
			`(allow file-read* file-write* (subpath "/Users/p/.claude"))`,
			`(allow network-outbound (remote unix-socket (subpath "/Users/p/.claude")))`,
			`(deny file-read* file-write* (subpath "/Users/p/Library/Application Support/Switchboard"))`,
			`(deny network-outbound (remote unix-socket (subpath "/Users/p/Library/Application Support/Switchboard")))`,
			`(allow file-read-metadata (literal "/Users/p/Library/Application Support/Switchboard"))`,
			`(allow file-read-metadata (literal "/Users/p/Library/Application Support/Switchboard/worktrees"))`,
			// Depth 7: hidden first, then what is made statable again.
			`(deny file-read* file-write* (subpath "/private/var/folders/xy/abc123/T/switchboard-501"))`,
			`(deny network-outbound (remote unix-socket (subpath "/private/var/folders/xy/abc123/T/switchboard-501")))`,
			`(allow file-read-metadata (literal "/Users/p/Library/Application Support/Switchboard/worktrees/r"))`,
			`(allow file-read-metadata (literal "/private/var/folders/xy/abc123/T/switchboard-501"))`,
			// Depth 8: the worktree, after everything that holds it.
			`(allow file-read-metadata (literal "/private/var/folders/xy/abc123/T/switchboard-501/sessions"))`,
			`(allow file-read* file-write* (subpath "/Users/p/Library/Application Support/Switchboard/worktrees/r/ses_a"))`,
			`(allow network-outbound (remote unix-socket (subpath "/Users/p/Library/Application Support/Switchboard/worktrees/r/ses_a")))`,
			`(allow file-read* (literal "/private/var/folders/xy/abc123/T/switchboard-501/sessions/ses_a.token"))`,
			`(deny file-write* (literal "/private/var/folders/xy/abc123/T/switchboard-501/sessions/ses_a.token"))`,
		},
		checks: []sbplAccess{
			// The worktree is readable and writable, though its folder is hidden.
			{"read", wt + "/main.go", true},
			{"write", wt + "/main.go", true},
			{"write", wt, true},
			{"connect", wt + "/.git/fsmonitor.sock", true},
			// What else is in the data folder is not.
			{"read", data + "/state.db", false},
			{"write", data + "/state.db", false},
			{"stat", data + "/state.db", false},
			{"read", data + "/worktrees/r/ses_b/secret", false},
			{"write", data + "/worktrees/r/ses_b/secret", false},
			// The folders on the way to the worktree can be stat'ed, not listed.
			{"stat", data, true},
			{"stat", data + "/worktrees", true},
			{"stat", data + "/worktrees/r", true},
			{"read", data + "/worktrees/r", false},
			{"write", data + "/worktrees/r/ses_c", false},
			// The person's keys.
			{"read", "/Users/p/.ssh/id_ed25519", false},
			{"stat", "/Users/p/.ssh", false},
			{"read", "/Users/p/.netrc", false},
			{"write", "/Users/p/.netrc", false},
			{"read", "/Users/p/.netrc2", true},
			// The CLI's own state is writable; the rest of home is read-only.
			{"write", "/Users/p/.claude/settings.json", true},
			{"write", "/Users/p/code/r/main.go", false},
			{"read", "/Users/p/code/r/main.go", true},
			{"write", "/Users/p/.zshrc", false},
			// The session's token is readable where it is, and nothing beside it.
			{"read", token, true},
			{"write", token, false},
			{"read", runtime + "/sessions/ses_b.token", false},
			{"connect", runtime + "/control.sock", false},
			// Temporary folders, but for what is hidden in them.
			{"write", "/private/var/folders/xy/abc123/T/go-build1", true},
			{"write", "/private/var/folders/xy/abc123/C/com.apple.nsurlsessiond", true},
			{"write", "/private/var/folders/xy/abc123/0/com.apple.LaunchServices", false},
			{"write", runtime + "/new", false},
			{"write", "/private/tmp/x", true},
			{"connect", "/private/tmp/x.sock", true},
			// The system and the devices.
			{"read", "/private/etc/passwd", true},
			{"write", "/private/etc/passwd", false},
			{"write", "/dev/null", true},
			{"write", "/dev/ttys003", true},
			{"write", "/dev/disk0", false},
		},
	}, {
		name: "read-only .git parts inside a writable checkout",
		c: Checked{
			Dir:      "/Users/p/code/r",
			Writable: []string{"/Users/p/code/r"},
			ReadOnly: []string{"/Users/p/code/r/.git/hooks", "/Users/p/code/r/.git/config"},
		},
		want: []string{
			`(allow file-read* file-write* (subpath "/Users/p/code/r"))`,
			`(allow network-outbound (remote unix-socket (subpath "/Users/p/code/r")))`,
			`(allow file-read* (subpath "/Users/p/code/r/.git/config"))`,
			`(deny file-write* (subpath "/Users/p/code/r/.git/config"))`,
			`(allow file-read* (subpath "/Users/p/code/r/.git/hooks"))`,
			`(deny file-write* (subpath "/Users/p/code/r/.git/hooks"))`,
		},
		checks: []sbplAccess{
			{"write", "/Users/p/code/r/main.go", true},
			{"write", "/Users/p/code/r/.git/objects/ab/cdef", true},
			{"read", "/Users/p/code/r/.git/config", true},
			{"write", "/Users/p/code/r/.git/config", false},
			{"write", "/Users/p/code/r/.git/config.lock", true}, // a sibling: subpath stops at a name's end
			{"write", "/Users/p/code/r/.git/hooks/pre-commit", false},
			{"write", "/Users/p/code/r/.git/hooks", false},
			{"write", "/Users/p/code/r2/main.go", false},
		},
	}, {
		name: "hidden files and paths with quotes and backslashes",
		c: Checked{
			Dir:         `/Users/p/src/a"b`,
			Writable:    []string{`/Users/p/src/a"b`},
			HiddenFiles: []string{`/Users/p/say "hi"`, `/Users/p/back\slash`},
		},
		want: []string{
			`(deny file-read* file-write* (literal "/Users/p/back\\slash"))`,
			`(deny network-outbound (remote unix-socket (subpath "/Users/p/back\\slash")))`,
			`(deny file-read* file-write* (literal "/Users/p/say \"hi\""))`,
			`(deny network-outbound (remote unix-socket (subpath "/Users/p/say \"hi\"")))`,
			`(allow file-read* file-write* (subpath "/Users/p/src/a\"b"))`,
			`(allow network-outbound (remote unix-socket (subpath "/Users/p/src/a\"b")))`,
		},
		checks: []sbplAccess{
			{"read", `/Users/p/say "hi"`, false},
			{"read", `/Users/p/say "hi" again`, true},
			{"read", `/Users/p/back\slash`, false},
			{"write", `/Users/p/src/a"b/f.go`, true},
			{"write", `/Users/p/src/a`, false},
		},
	}, {
		name: "a hidden folder in the shared /private/tmp",
		c: Checked{
			Dir:        "/Users/p/code/r",
			Writable:   []string{"/Users/p/code/r"},
			HiddenDirs: []string{"/private/tmp/switchboard-501"},
		},
		want: []string{
			`(deny file-read* file-write* (subpath "/private/tmp/switchboard-501"))`,
			`(deny network-outbound (remote unix-socket (subpath "/private/tmp/switchboard-501")))`,
			`(allow file-read* file-write* (subpath "/Users/p/code/r"))`,
			`(allow network-outbound (remote unix-socket (subpath "/Users/p/code/r")))`,
		},
		checks: []sbplAccess{
			{"write", "/private/tmp/build.log", true},
			{"write", "/private/tmp/switchboard-501/x", false},
			{"read", "/private/tmp/switchboard-501/x", false},
			{"connect", "/private/tmp/switchboard-501/control.sock", false},
			{"write", "/private/tmp/switchboard-5010/x", true},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile := SeatbeltProfile(tt.c)
			lines := strings.Split(strings.TrimSuffix(profile, "\n"), "\n")
			if !slices.Equal(lines[:len(seatbeltBase)], seatbeltBase) || lines[len(seatbeltBase)] != seatbeltPathsHeader {
				t.Fatalf("the profile does not start with the fixed rules:\n%s", profile)
			}
			if got := lines[len(seatbeltBase)+1:]; !slices.Equal(got, tt.want) {
				t.Errorf("path rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			rules, err := parseSBPL(profile)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range tt.checks {
				if got := decide(rules, a.op, a.path); got != a.allow {
					t.Errorf("%s %s: allowed %v, want %v", a.op, a.path, got, a.allow)
				}
			}
		})
	}
}

// TestSeatbeltFixedRules checks the order the fixed part depends on: deny
// by default first, then what is allowed, with every file readable and the
// temporary folders writable before the policy's paths can take them back.
func TestSeatbeltFixedRules(t *testing.T) {
	at := func(rule string) int {
		i := slices.Index(seatbeltBase, rule)
		if i < 0 {
			t.Fatalf("no rule %s", rule)
		}
		return i
	}
	if seatbeltBase[0] != "(version 1)" || at("(deny default)") > at("(allow process-exec)") {
		t.Errorf("the profile must start with (version 1) and deny by default before it allows: %q", seatbeltBase[:4])
	}
	for _, r := range []string{"(allow file-read*)", "(allow network*)", `(allow file-write* (subpath "/private/tmp"))`} {
		at(r)
	}
	if slices.ContainsFunc(seatbeltBase, func(l string) bool {
		return strings.Contains(l, `"com.apple.SecurityServer"`) && !strings.HasPrefix(l, ";")
	}) {
		t.Error("the keychain's service is reachable")
	}
	rules, err := parseSBPL(strings.Join(seatbeltBase, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []sbplAccess{
		{"write", "/Users/p/anything", false},
		{"read", "/Users/p/anything", true},
		{"write", "/private/var/folders/xy/abc123/T", true},
		{"write", "/private/var/folders/xy/abc123/Temp", false},
		{"write", "/private/var/folders/xy/abc123", false},
		{"write", "/private/var/tmp/x", false},
		{"write", "/dev/tty", true},
		{"write", "/dev/ttys", false},
	} {
		if got := decide(rules, a.op, a.path); got != a.allow {
			t.Errorf("%s %s: allowed %v, want %v", a.op, a.path, got, a.allow)
		}
	}
}

func TestSeatbeltArgs(t *testing.T) {
	c := Checked{Dir: "/Users/p/code/r", Writable: []string{"/Users/p/code/r"}}
	got := SeatbeltArgs(c)
	if want := []string{"-p", SeatbeltProfile(c), "--"}; !slices.Equal(got, want) {
		t.Errorf("SeatbeltArgs = %q, want %q", got, want)
	}
}

func TestSBPLString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/Users/p/code", `"/Users/p/code"`},
		{`/Users/p/a"b`, `"/Users/p/a\"b"`},
		{`/Users/p/a\b`, `"/Users/p/a\\b"`},
		{`/Users/p/a\"b`, `"/Users/p/a\\\"b"`},
		{"/Users/p/a\nb", `"/Users/p/a\nb"`},
		{"/Users/p/(a); b", `"/Users/p/(a); b"`},
	} {
		if got := sbplString(tt.in); got != tt.want {
			t.Errorf("sbplString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestSeatbeltProfileParses reads profiles made of awkward paths back:
// every rule is one balanced form on one line, every string ends, and the
// strings hold the paths given.
func TestSeatbeltProfileParses(t *testing.T) {
	odd := []string{
		`/Users/p/a"b`, `/Users/p/back\slash`, `/Users/p/trailing\`, "/Users/p/new\nline",
		"/Users/p/(paren", "/Users/p/paren)", "/Users/p/semi;colon", `/Users/p/#"regex"`,
	}
	c := Checked{
		Dir: odd[0], Writable: odd[:2], ReadOnly: odd[2:4], HiddenDirs: odd[4:6], HiddenFiles: odd[6:],
		Files: []File{{Src: "/Users/p/(paren/tok\"en", Dst: "/tmp/t"}},
	}
	profile := SeatbeltProfile(c)
	for i, line := range strings.Split(strings.TrimSuffix(profile, "\n"), "\n") {
		if strings.HasPrefix(line, ";") {
			continue
		}
		forms, err := parseSBPL(line)
		if err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		if len(forms) != 1 {
			t.Errorf("line %d holds %d forms, want 1: %s", i+1, len(forms), line)
		}
	}
	forms, err := parseSBPL(profile)
	if err != nil {
		t.Fatal(err)
	}
	var strs []string
	var walk func(n sbplNode)
	walk = func(n sbplNode) {
		if n.kind == sbplStr {
			strs = append(strs, n.text)
		}
		for _, k := range n.list {
			walk(k)
		}
	}
	for _, f := range forms {
		walk(f)
	}
	for _, p := range append(odd, c.Files[0].Src) {
		if !slices.Contains(strs, p) {
			t.Errorf("%q is not one of the profile's strings", p)
		}
	}
	for _, bad := range []string{`(allow`, `(allow))`, `(allow file-read* (literal "/a))`, `(allow (regex #"^/a)`, `"a\`} {
		if _, err := parseSBPL(bad); err == nil {
			t.Errorf("parseSBPL(%q) found nothing wrong", bad)
		}
	}
}

// sbplNode is one SBPL form: an atom, a string, a regex literal or a list.
type sbplNode struct {
	kind int
	text string
	list []sbplNode
}

const (
	sbplAtom = iota
	sbplStr
	sbplRegex
	sbplList
)

// parseSBPL reads src as a sequence of forms: comments from ";" to the
// line's end, strings "…" and regexes #"…" with backslash escapes (\n is a
// newline), lists in parentheses. It refuses an unbalanced parenthesis and
// an unterminated string.
func parseSBPL(src string) ([]sbplNode, error) {
	var stack [][]sbplNode
	cur := []sbplNode{}
	for i := 0; i < len(src); {
		switch ch := src[i]; {
		case ch == ';':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case ch == ' ' || ch == '\t' || ch == '\n':
			i++
		case ch == '(':
			stack = append(stack, cur)
			cur = []sbplNode{}
			i++
		case ch == ')':
			if len(stack) == 0 {
				return nil, fmt.Errorf("unbalanced ) at %d", i)
			}
			l := sbplNode{kind: sbplList, list: cur}
			cur = append(stack[len(stack)-1], l)
			stack = stack[:len(stack)-1]
			i++
		case ch == '"' || strings.HasPrefix(src[i:], `#"`):
			kind := sbplStr
			if ch == '#' {
				kind, i = sbplRegex, i+1
			}
			var b strings.Builder
			closed := false
			for i++; i < len(src); i++ {
				if src[i] == '"' {
					closed = true
					i++
					break
				}
				if src[i] == '\\' {
					if i++; i == len(src) {
						break
					}
					if src[i] == 'n' {
						b.WriteByte('\n')
						continue
					}
				}
				b.WriteByte(src[i])
			}
			if !closed {
				return nil, errors.New("unterminated string")
			}
			cur = append(cur, sbplNode{kind: kind, text: b.String()})
		default:
			j := i
			for j < len(src) && !strings.ContainsRune(" \t\n()\";", rune(src[j])) {
				j++
			}
			cur = append(cur, sbplNode{kind: sbplAtom, text: src[i:j]})
			i = j
		}
	}
	if len(stack) != 0 {
		return nil, fmt.Errorf("%d ( left open", len(stack))
	}
	return cur, nil
}

// decide reads rules as Seatbelt does for the file and Unix-socket rules
// the profile uses: the last rule whose operation and filter match decides;
// none denies.
func decide(rules []sbplNode, op, path string) bool {
	allowed := false
	for _, r := range rules {
		if r.kind != sbplList || len(r.list) < 2 || r.list[0].kind != sbplAtom {
			continue
		}
		action := r.list[0].text
		if action != "allow" && action != "deny" {
			continue
		}
		var ops []string
		var filters []sbplNode
		for _, n := range r.list[1:] {
			if n.kind == sbplAtom {
				ops = append(ops, n.text)
			} else {
				filters = append(filters, n)
			}
		}
		if !slices.ContainsFunc(ops, func(o string) bool { return opCovers(o, op) }) {
			continue
		}
		if len(filters) > 0 && !slices.ContainsFunc(filters, func(f sbplNode) bool { return filterMatches(f, op, path) }) {
			continue
		}
		allowed = action == "allow"
	}
	return allowed
}

func opCovers(rule, op string) bool {
	switch rule {
	case "default":
		return true
	case "file-read*":
		return op == "read" || op == "stat"
	case "file-read-metadata":
		return op == "stat"
	case "file-write*", "file-write-data":
		return op == "write"
	case "network*", "network-outbound":
		return op == "connect"
	}
	return false
}

func filterMatches(f sbplNode, op, path string) bool {
	if f.kind != sbplList || len(f.list) == 0 {
		return false
	}
	args := f.list[1:]
	switch f.list[0].text {
	case "literal":
		return op != "connect" && len(args) == 1 && args[0].text == path
	case "subpath":
		return op != "connect" && len(args) == 1 && (path == args[0].text || isUnder(path, args[0].text))
	case "regex":
		return op != "connect" && len(args) == 1 && regexp.MustCompile(args[0].text).MatchString(path)
	case "remote":
		if op != "connect" || len(args) != 2 || args[0].text != "unix-socket" {
			return false
		}
		return filterMatches(args[1], "write", path) // the same path filters, for a socket's path
	}
	return false
}
