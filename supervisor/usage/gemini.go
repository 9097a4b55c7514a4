package usage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/store"
)

// Gemini CLI (checked against 0.61.0's bundle and a gemini -p run) keeps
// each session in <home>/.gemini/tmp/<project>/chats/session-<YYYY-MM-DD
// THH-MM>-<first 8 of its id>.jsonl, <home> being $GEMINI_CLI_HOME or the home folder. The
// project's short name comes from <home>/.gemini/projects.json
// ({"projects":{"/abs/folder":"name"}}), each project folder holding a
// .project_root file with the folder's path; older versions used the
// folder's SHA-256 as the name. The file is appended to: a first line of
// metadata ({"sessionId":…,"projectHash":…,"startTime":…}), then each
// message as a whole each time it changes (a reply again once its tokens
// are known), "$set" updates (of metadata, or of the first messages, which
// are not counted) and "$rewindTo" marks:
//
//	{"id":"…","timestamp":"…","type":"gemini","content":…,
//	 "tokens":{"input":…,"output":…,"cached":…,"thoughts":…,"tool":…,"total":…},…}
//
// so a message counts once, with its last tokens; a rewind drops
// messages from the conversation but not the tokens they cost. input (the
// API's promptTokenCount) includes the cached tokens; thoughts and tool
// prompts are counted apart from output and input. Subagents' chats
// (chats/<parent id>/) are not read.

// geminiFiles lists the session files of the session's project written
// since the session started.
func geminiFiles(l Locate) ([]string, error) {
	home := l.getenv("GEMINI_CLI_HOME")
	if home == "" {
		home = l.home()
	}
	gdir := filepath.Join(home, ".gemini")
	var out []string
	for _, project := range geminiProjects(gdir, l) {
		out = append(out, recentFiles(l, filepath.Join(gdir, "tmp", project, "chats"), func(n string) bool {
			return strings.HasPrefix(n, "session-") && strings.HasSuffix(n, ".jsonl") &&
				(len(l.ConversationID) < 8 || strings.HasSuffix(n, "-"+l.ConversationID[:8]+".jsonl"))
		})...)
	}
	return out, nil
}

// geminiProjects names the project folders under tmp/ that may be the
// session's folder's: its registered short name, a folder whose
// .project_root names it, the legacy hash.
func geminiProjects(gdir string, l Locate) []string {
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	var out []string
	add := func(name string) {
		if name != "" && name == filepath.Base(name) && name != "." && name != ".." {
			for _, o := range out {
				if o == name {
					return
				}
			}
			out = append(out, name)
		}
	}
	if b, err := readSmall(filepath.Join(gdir, "projects.json")); err == nil && json.Unmarshal(b, &reg) == nil {
		for _, d := range l.dirs() {
			add(reg.Projects[d])
		}
	}
	if len(out) == 0 {
		entries, _ := os.ReadDir(filepath.Join(gdir, "tmp"))
		for _, e := range entries {
			if b, err := readSmall(filepath.Join(gdir, "tmp", e.Name(), ".project_root")); err == nil && sameDir(l, strings.TrimSpace(string(b))) {
				add(e.Name())
			}
		}
	}
	for _, d := range l.dirs() {
		sum := sha256.Sum256([]byte(d))
		add(hex.EncodeToString(sum[:]))
	}
	return out
}

// readSmall reads a small metadata file, refusing one over 1 MiB.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
	if err == nil && len(b) > 1<<20 {
		err = fmt.Errorf("%s is larger than 1 MiB", path)
	}
	return b, err
}

// geminiLine is what the reader takes from a session file's line.
type geminiLine struct {
	SessionID string `json:"sessionId"` // of the metadata line
	ID        string `json:"id"`
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Tokens    *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
		Tool     int64 `json:"tool"`
	} `json:"tokens"`
}

type geminiParser struct {
	loc   Locate
	first bool // the metadata line was read
	seen  map[string]store.Usage
	total store.Usage
}

func newGeminiParser(l Locate) parser { return &geminiParser{loc: l, seen: map[string]store.Usage{}} }

var tokensKey = []byte(`"tokens"`)

func (p *geminiParser) line(b []byte) bool {
	if p.first && !bytes.Contains(b, tokensKey) {
		return true
	}
	var l geminiLine
	if json.Unmarshal(b, &l) != nil {
		return true
	}
	if !p.first {
		p.first = true
		if l.SessionID != "" && p.loc.ConversationID != "" && l.SessionID != p.loc.ConversationID {
			return false
		}
	}
	if l.Type != "gemini" || l.Tokens == nil || l.ID == "" || !p.loc.stamped(l.Timestamp) {
		return true
	}
	t := l.Tokens
	got := store.Usage{InputTokens: t.Input + t.Tool, OutputTokens: t.Output + t.Thoughts, CacheReadTokens: t.Cached}
	if t.Input >= t.Cached {
		got.InputTokens = t.Input - t.Cached + t.Tool
	}
	old, ok := p.seen[l.ID]
	if !ok && len(p.seen) >= maxMessages {
		p.total = p.total.Plus(got)
		return true
	}
	p.seen[l.ID] = got
	p.total = p.total.Minus(old).Plus(got)
	return true
}

func (p *geminiParser) counts() store.Usage { return p.total }
