package usage

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// Codex (checked against 0.171.0's binary and a codex exec run) writes
// each session to $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl
// (~/.codex without the variable), the date being the local one at the
// session's start. Its first line is the session's metadata, with its id and working
// folder:
//
//	{"timestamp":"…","type":"session_meta","payload":{"id":"…","cwd":"/…",…}}
//
// and each model reply's usage comes twice with the session's running
// totals: a record written as the reply ends, before its tool calls run,
//
//	{"timestamp":"…","type":"token_usage_record","payload":{"usage":{…},
//	 "turn_token_usage":{…},"thread_token_usage":{"input_tokens":…,
//	  "cached_input_tokens":…,"cache_write_input_tokens":…,"output_tokens":…,
//	  "reasoning_output_tokens":…,"total_tokens":…},…}}
//
// and an event once they returned:
//
//	{"timestamp":"…","type":"event_msg","payload":{"type":"token_count",
//	 "info":{"total_token_usage":{…},"last_token_usage":{…}},"rate_limits":{…}}}
//
// The reader takes the larger total of either (they agree once both are
// written): the record lets a completion count the reply that asked for
// it.
// input_tokens include the cached ones and output_tokens the reasoning
// ones (OpenAI's way); info is null in an event that only updates rate
// limits. The session's usage is the last total less the last total
// stamped before the session started (a resumed conversation's earlier
// part).

// codexMaxDays bounds the day folders looked at: a session's start to
// today.
const codexMaxDays = 62

// codexFiles lists the rollout files written since the session started,
// in the day folders from its start (a day early, for time zones) to
// today; the parser keeps only those whose metadata names the session's
// folder (and conversation, when known).
func codexFiles(l Locate) ([]string, error) {
	home := l.getenv("CODEX_HOME")
	if home == "" {
		home = filepath.Join(l.home(), ".codex")
	}
	sessions := filepath.Join(home, "sessions")
	day := time.Now().AddDate(0, 0, 1)
	first := day.AddDate(0, 0, -codexMaxDays)
	if !l.Since.IsZero() && l.Since.AddDate(0, 0, -1).After(first) {
		first = l.Since.AddDate(0, 0, -1)
	}
	match := func(n string) bool {
		return strings.HasPrefix(n, "rollout-") && strings.HasSuffix(n, ".jsonl") &&
			(l.ConversationID == "" || strings.Contains(n, l.ConversationID))
	}
	var out []string
	for d := first; !d.After(day); d = d.AddDate(0, 0, 1) {
		out = append(out, recentFiles(l, filepath.Join(sessions, d.Format("2006"), d.Format("01"), d.Format("02")), match)...)
	}
	return out, nil
}

// codexTokens is one of Codex's TokenUsage.
type codexTokens struct {
	Input      int64 `json:"input_tokens"`
	Cached     int64 `json:"cached_input_tokens"`
	CacheWrite int64 `json:"cache_write_input_tokens"`
	Output     int64 `json:"output_tokens"`
}

func (t codexTokens) usage() store.Usage {
	u := store.Usage{InputTokens: t.Input, OutputTokens: t.Output, CacheReadTokens: t.Cached, CacheWriteTokens: t.CacheWrite}
	if t.Input >= t.Cached+t.CacheWrite {
		u.InputTokens = t.Input - t.Cached - t.CacheWrite // counted once, in the cache's counts
	}
	return u
}

// codexLine is what the reader takes from a rollout line.
type codexLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   struct {
		Type string `json:"type"` // of an event_msg
		ID   string `json:"id"`   // of session_meta
		Cwd  string `json:"cwd"`  // of session_meta
		Info *struct {
			Total *codexTokens `json:"total_token_usage"`
		} `json:"info"`
		Thread *codexTokens `json:"thread_token_usage"` // of token_usage_record
	} `json:"payload"`
}

type codexParser struct {
	loc         Locate
	ours        bool   // the first line named the session's folder
	id          string // the thread's id, from that line
	before, now store.Usage
}

// confirmed reports whether the first line named the session's folder.
func (p *codexParser) confirmed() bool { return p.ours }

// thread is the rollout's thread: a resumed thread written to a new file
// carries its running total on, so its files are not summed.
func (p *codexParser) thread() string { return p.id }

func newCodexParser(l Locate) parser { return &codexParser{loc: l} }

var (
	tokenCountKey  = []byte(`"token_count"`)
	tokenRecordKey = []byte(`"token_usage_record"`)
)

func (p *codexParser) line(b []byte) bool {
	if p.ours && !bytes.Contains(b, tokenCountKey) && !bytes.Contains(b, tokenRecordKey) {
		return true
	}
	var l codexLine
	if json.Unmarshal(b, &l) != nil {
		return p.ours // a rollout's first line must be its metadata
	}
	if !p.ours {
		if l.Type != "session_meta" || l.Payload.Cwd == "" || !sameDir(p.loc, l.Payload.Cwd) ||
			p.loc.ConversationID != "" && l.Payload.ID != p.loc.ConversationID {
			return false
		}
		p.ours, p.id = true, l.Payload.ID
		return true
	}
	var total *codexTokens
	switch {
	case l.Type == "token_usage_record":
		total = l.Payload.Thread
	case l.Type == "event_msg" && l.Payload.Type == "token_count" && l.Payload.Info != nil:
		total = l.Payload.Info.Total
	}
	if total == nil {
		return true
	}
	u := total.usage()
	if u.Tokens() < p.now.Tokens() {
		return true // an event repeating an earlier total
	}
	if p.loc.stamped(l.Timestamp) {
		p.now = u
	} else {
		p.before, p.now = u, u
	}
	return true
}

func (p *codexParser) counts() store.Usage { return p.now.Minus(p.before) }

// sameDir reports whether dir, as a CLI recorded it, is the session's
// folder.
func sameDir(l Locate, dir string) bool {
	dir = filepath.Clean(dir)
	for _, d := range l.dirs() {
		if d == dir {
			return true
		}
	}
	return false
}
