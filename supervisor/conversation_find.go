package supervisor

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
)

// findEvery is how often FindConversation looks for the id.
const findEvery = 250 * time.Millisecond

// FindConversation waits until the conversation id the session's CLI
// picked for itself can be read (a profile whose Conversation.Find is set),
// and returns it; "" with no error when the profile has none to find. It
// gives up when the session ends (a CLI that exits before it wrote its id
// has no conversation to resume) or ctx ends.
func (sv *Supervisor) FindConversation(ctx context.Context, s *Session, p profile.Profile, dir string) (string, error) {
	if p.Conversation == nil || p.Conversation.Find == "" {
		return "", nil
	}
	find := func() (string, error) { return sv.FindConversationNow(p, dir, s.started) }
	t := time.NewTicker(findEvery)
	defer t.Stop()
	for {
		id, err := find()
		if id != "" || err != nil {
			return id, err
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("find %s's conversation id: %w", p.ID, ctx.Err())
		case <-s.Done():
			// One last look: the CLI may have written it as it exited.
			if id, err := find(); id != "" || err != nil {
				return id, err
			}
			return "", fmt.Errorf("find %s's conversation id: the agent exited before it wrote one", p.ID)
		case <-t.C:
		}
	}
}

// FindConversationNow looks once for the conversation id p's CLI picked
// for itself in folder dir since a start at since, without waiting: ""
// when it is not (yet) there. The daemon asks it for a session a crash
// cut off before FindConversation saw the id.
func (sv *Supervisor) FindConversationNow(p profile.Profile, dir string, since time.Time) (string, error) {
	if p.Conversation == nil {
		return "", nil
	}
	switch p.Conversation.Find {
	case "":
		return "", nil
	case profile.FindCodex:
		return findCodexConversation(codexHome(slices.Concat(sv.cfg.Env, p.Env)), dir, since)
	}
	return "", fmt.Errorf("%s: unknown conversation finder %q", p.ID, p.Conversation.Find)
}

// codexHome is the folder Codex keeps its state in for an agent with env:
// $CODEX_HOME, else ~/.codex.
func codexHome(env []string) string {
	var home, codex string
	for _, kv := range env {
		switch name, v, _ := strings.Cut(kv, "="); name {
		case "CODEX_HOME":
			codex = v
		case "HOME":
			home = v
		}
	}
	if codex != "" {
		return codex
	}
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".codex")
}

// maxMetaLine bounds the first line of a rollout file that is read: its
// session_meta carries Codex's whole base instructions.
const maxMetaLine = 4 << 20

// findCodexConversation looks in Codex's rollout files,
// sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl, of the days around since,
// for one written since then whose first line (session_meta) has cwd dir,
// and returns its id. Sessions in other folders are someone else's: each
// Switchboard session has a worktree of its own, so the folder tells the
// session's conversation from every other.
func findCodexConversation(home, dir string, since time.Time) (string, error) {
	want := canonical(dir)
	var days []string
	for d := since.Add(-24 * time.Hour); !d.After(time.Now().Add(24 * time.Hour)); d = d.Add(24 * time.Hour) {
		for _, t := range []time.Time{d.Local(), d.UTC()} {
			if day := t.Format("2006/01/02"); !slices.Contains(days, day) {
				days = append(days, day)
			}
		}
	}
	for _, day := range days {
		files, _ := filepath.Glob(filepath.Join(home, "sessions", filepath.FromSlash(day), "rollout-*.jsonl"))
		for _, f := range files {
			if fi, err := os.Stat(f); err != nil || fi.ModTime().Before(since.Add(-time.Second)) {
				continue
			}
			id, cwd, err := readSessionMeta(f)
			if err != nil || id == "" {
				continue // being written, or not a rollout we can read
			}
			if canonical(cwd) == want {
				return id, nil
			}
		}
	}
	return "", nil
}

// readSessionMeta reads the id and cwd of a rollout file's session_meta.
func readSessionMeta(path string) (id, cwd string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, maxMetaLine), 64<<10).ReadBytes('\n')
	if err != nil {
		return "", "", err // no whole first line yet
	}
	var meta struct {
		Type    string `json:"type"`
		Payload struct {
			ID  string `json:"id"`
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(line, &meta); err != nil {
		return "", "", err
	}
	if meta.Type != "session_meta" {
		return "", "", nil
	}
	return meta.Payload.ID, meta.Payload.Cwd, nil
}

// canonical resolves symbolic links, as a CLI that reports its real
// working folder does.
func canonical(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
