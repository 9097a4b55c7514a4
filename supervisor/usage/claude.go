package usage

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"github.com/switchboard-dev/switchboard/store"
)

// Claude Code (checked against 2.1.332's binary and a run of it) keeps
// each conversation in $CLAUDE_CONFIG_DIR/projects/<folder>/<conversation
// id>.jsonl (~/.claude without the variable; set but empty, the working
// folder itself), <folder> being the working folder with
// every character but ASCII letters and digits replaced by "-" (cut at 200
// UTF-16 units and followed by "-" and a hash when longer). An assistant
// message is written as one line per content block (text, tool use), each
// with the same message id and the API's usage:
//
//	{"type":"assistant","timestamp":"…","requestId":"req_…",
//	 "message":{"id":"msg_…","usage":{"input_tokens":…,"output_tokens":…,
//	  "cache_creation_input_tokens":…,"cache_read_input_tokens":…}},…}
//
// so a message is counted once, with the largest count any of its lines
// gives (a streamed message's early lines may carry a partial output
// count). Subagents' conversations (<conversation>/subagents/) are not
// read.

// claudeMaxName is where Claude Code cuts a folder's name.
const claudeMaxName = 200

// claudeFolder is Claude Code's name for the folder of dir's
// conversations; long is set when the name is cut and a hash follows.
func claudeFolder(dir string) (name string, long bool) {
	var b strings.Builder
	units := 0
	for _, r := range dir {
		n := utf16.RuneLen(r)
		if n < 0 {
			n = 1
		}
		units += n
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteString(strings.Repeat("-", n)) // JavaScript replaces each UTF-16 unit
		}
	}
	name = b.String()
	if units <= claudeMaxName {
		return name, false
	}
	return name[:claudeMaxName], true // only ASCII bytes were written
}

// claudeFiles lists the conversations Claude Code filed under the
// session's folder: the conversation's own file when its id is known,
// else every one written since the session started.
func claudeFiles(l Locate) ([]string, error) {
	// Set but empty, the variable is still taken (JavaScript's ??): the
	// folder is then relative, in the agent's working folder.
	base, set := l.lookupEnv("CLAUDE_CONFIG_DIR")
	if !set {
		base = filepath.Join(l.home(), ".claude")
	} else if !filepath.IsAbs(base) {
		base = filepath.Join(l.Dir, base)
	}
	projects := filepath.Join(base, "projects")
	var folders []string
	for _, d := range l.dirs() {
		name, long := claudeFolder(d)
		if !long {
			folders = append(folders, filepath.Join(projects, name))
			continue
		}
		// The hash that follows a cut name is Claude Code's own; find the
		// folder by the cut name instead.
		m, _ := filepath.Glob(filepath.Join(projects, globQuote(name)+"-*"))
		folders = append(folders, m...)
	}
	var out []string
	for _, folder := range folders {
		if l.ConversationID != "" {
			p := filepath.Join(folder, filepath.Base(l.ConversationID)+".jsonl")
			if _, err := os.Stat(p); err == nil {
				out = append(out, p)
			}
			continue
		}
		out = append(out, recentFiles(l, folder, func(n string) bool { return strings.HasSuffix(n, ".jsonl") })...)
	}
	return out, nil
}

// recentFiles lists the files in folder whose names match and that were
// written since the session started, oldest name first.
func recentFiles(l Locate, folder string, match func(string) bool) []string {
	entries, err := os.ReadDir(folder)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.Type().IsRegular() || !match(e.Name()) {
			continue
		}
		if fi, err := e.Info(); err == nil && l.recent(fi.ModTime()) {
			out = append(out, filepath.Join(folder, e.Name()))
		}
	}
	return out
}

// globQuote escapes the glob's own characters in a literal name.
func globQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// claudeLine is what the reader takes from a transcript line.
type claudeLine struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	RequestID string `json:"requestId"`
	UUID      string `json:"uuid"`
	Message   struct {
		ID    string `json:"id"`
		Usage *struct {
			Input      int64 `json:"input_tokens"`
			Output     int64 `json:"output_tokens"`
			CacheWrite int64 `json:"cache_creation_input_tokens"`
			CacheRead  int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// maxMessages bounds the message ids a parser remembers; past it a new
// message is counted without being remembered (a repeat of it would count
// twice).
const maxMessages = 100000

type claudeParser struct {
	loc   Locate
	seen  map[string]store.Usage
	total store.Usage
}

func newClaudeParser(l Locate) parser {
	return &claudeParser{loc: l, seen: map[string]store.Usage{}}
}

var usageKey = []byte(`"usage"`)

func (p *claudeParser) line(b []byte) bool {
	if !bytes.Contains(b, usageKey) {
		return true // most lines: the user's, tool results, metadata
	}
	var l claudeLine
	if json.Unmarshal(b, &l) != nil || l.Type != "assistant" || l.Message.Usage == nil || !p.loc.stamped(l.Timestamp) {
		return true
	}
	u := l.Message.Usage
	got := store.Usage{InputTokens: u.Input, OutputTokens: u.Output, CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheWrite}
	key := l.Message.ID
	if key == "" {
		key = l.RequestID
	}
	if key == "" {
		key = l.UUID
	}
	old, ok := p.seen[key]
	if key == "" || !ok && len(p.seen) >= maxMessages {
		p.total = p.total.Plus(got)
		return true
	}
	best := store.Usage{
		InputTokens:      max(old.InputTokens, got.InputTokens),
		OutputTokens:     max(old.OutputTokens, got.OutputTokens),
		CacheReadTokens:  max(old.CacheReadTokens, got.CacheReadTokens),
		CacheWriteTokens: max(old.CacheWriteTokens, got.CacheWriteTokens),
	}
	p.seen[key] = best
	p.total = p.total.Minus(old).Plus(best)
	return true
}

func (p *claudeParser) counts() store.Usage { return p.total }
