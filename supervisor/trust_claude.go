package supervisor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/internal/atomicfile"
)

// Claude Code keeps what a person answered to its folder-trust question in
// its global config, ~/.claude.json (or $CLAUDE_CONFIG_DIR/.claude.json):
// projects["<folder>"].hasTrustDialogAccepted. It looks up the folder it
// runs in and its parents there, so an entry for a worktree's exact path
// trusts that worktree and nothing else. Claude Code itself rewrites the
// file often and merges "projects" from disk when it does, so an entry
// added between its writes stays.

// maxClaudeConfig bounds the config file as read: Claude Code reads at most
// the same.
const maxClaudeConfig = 8 << 20

// claudeProjectDefaults are the fields Claude Code writes for a folder it
// has not seen, in its order; it reads some of them without a fallback, so
// a new entry carries them all, as one it wrote itself would.
var claudeProjectDefaults = []member{
	{"allowedTools", json.RawMessage(`[]`)},
	{"mcpContextUris", json.RawMessage(`[]`)},
	{"mcpServers", json.RawMessage(`{}`)},
	{"enabledMcpjsonServers", json.RawMessage(`[]`)},
	{"disabledMcpjsonServers", json.RawMessage(`[]`)},
	{"hasTrustDialogAccepted", json.RawMessage(`true`)},
	{"hasClaudeMdExternalIncludesApproved", json.RawMessage(`false`)},
	{"hasClaudeMdExternalIncludesWarningShown", json.RawMessage(`false`)},
}

// trustClaude records dir, a worktree Switchboard made, as trusted in the
// Claude Code config of the agent's environment env.
func trustClaude(sv *Supervisor, env []string, dir string) error {
	path, err := claudeConfigPath(env)
	if err != nil {
		return fmt.Errorf("trusting %s for Claude Code: %w", dir, err)
	}
	keys := []string{dir}
	// Claude Code keys the folder by its working directory, which the
	// kernel reports with symbolic links resolved (macOS's /var is
	// /private/var); the resolved form names the same worktree.
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		keys = append(keys, real)
	}
	unlock, err := lockFile(filepath.Join(sv.cfg.RuntimeDir, "claude-config.lock"))
	if err != nil {
		return fmt.Errorf("trusting %s for Claude Code: %w", dir, err)
	}
	defer unlock()
	changed, err := trustClaudeFile(path, keys)
	if err != nil {
		return fmt.Errorf("trusting %s for Claude Code in %s: %w", dir, path, err)
	}
	if changed {
		sv.cfg.Log.Info("trusted a worktree in Claude Code's config", "dir", dir, "config", path)
	}
	return nil
}

// claudeConfigPath is where Claude Code, started with env, keeps its
// global config: $CLAUDE_CONFIG_DIR/.claude.json, else $HOME/.claude.json
// (the account's home folder when HOME is not set).
func claudeConfigPath(env []string) (string, error) {
	if d := envValue(env, "CLAUDE_CONFIG_DIR"); strings.TrimSpace(d) != "" {
		return filepath.Join(strings.TrimSpace(d), ".claude.json"), nil
	}
	home := envValue(env, "HOME")
	if home == "" {
		u, err := user.Current()
		if err != nil || u.HomeDir == "" {
			return "", errors.New("no home folder: HOME is not set")
		}
		home = u.HomeDir
	}
	return filepath.Join(home, ".claude.json"), nil
}

// envValue is the last value of name in env, as a process would see it.
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// trustClaudeFile sets projects[key].hasTrustDialogAccepted for each key
// in the config at path, creating the file (0600) when there is none. The
// rest of the file is kept as it is: members in their order, values byte
// for byte. A file that is not a JSON object is refused, never
// overwritten. The caller holds the lock. changed is false when every key was trusted already.
func trustClaudeFile(path string, keys []string) (changed bool, err error) {
	// A config that is a link to a dotfiles checkout stays a link: the
	// target is what gets replaced.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	data, mode, err := readBounded(path, maxClaudeConfig)
	if err != nil {
		return false, err
	}
	var top []member
	if len(bytes.TrimSpace(data)) > 0 {
		if top, err = objectMembers(data); err != nil {
			return false, fmt.Errorf("not a JSON object, left as it is: %w", err)
		}
	}
	var projects []member
	pi := lastMember(top, "projects")
	if pi >= 0 {
		if projects, err = objectMembers(top[pi].raw); err != nil {
			return false, fmt.Errorf(`"projects" is not a JSON object, left as it is: %w`, err)
		}
	}
	for _, key := range keys {
		i := lastMember(projects, key)
		if i < 0 {
			projects = append(projects, member{key, encodeObject(claudeProjectDefaults, 2)})
			changed = true
			continue
		}
		entry, err := objectMembers(projects[i].raw)
		if err != nil {
			return false, fmt.Errorf("projects[%q] is not a JSON object, left as it is: %w", key, err)
		}
		j := lastMember(entry, "hasTrustDialogAccepted")
		switch {
		case j >= 0 && string(entry[j].raw) == "true":
			continue
		case j >= 0:
			entry[j].raw = json.RawMessage(`true`)
		default:
			entry = append(entry, member{"hasTrustDialogAccepted", json.RawMessage(`true`)})
		}
		projects[i].raw = encodeObject(entry, 2)
		changed = true
	}
	if !changed {
		return false, nil
	}
	if pi >= 0 {
		top[pi].raw = encodeObject(projects, 1)
	} else {
		top = append(top, member{"projects", encodeObject(projects, 1)})
	}
	out := encodeObject(top, 0)
	if bytes.HasSuffix(data, []byte("\n")) {
		out = append(out, '\n')
	}
	if mode == 0 {
		mode = 0o600
		// A CLAUDE_CONFIG_DIR not made yet: Claude Code would make it.
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return false, err
		}
	}
	// Replaced whole, so Claude Code reading it sees the old file or
	// the new one, never half of one.
	return true, atomicfile.Write(path, out, mode)
}

// member is one member of a JSON object, its value as it was written.
type member struct {
	key string
	raw json.RawMessage
}

// objectMembers reads a JSON object's members in their order, each value
// as its bytes. Anything but one object (and white space) is an error.
func objectMembers(data []byte) ([]member, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("no object at the start (%v)", err)
	}
	var ms []member
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return nil, fmt.Errorf("member %q: %w", key, err)
		}
		ms = append(ms, member{key, raw})
	}
	if t, err := d.Token(); err != nil || t != json.Delim('}') {
		return nil, fmt.Errorf("object not closed (%v)", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("more after the object")
	}
	return ms, nil
}

// lastMember is the index of the member named key, the last one when it
// appears twice (as JavaScript's JSON.parse reads it), or -1.
func lastMember(ms []member, key string) int {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].key == key {
			return i
		}
	}
	return -1
}

// encodeObject writes members the way Claude Code writes its config
// (JSON.stringify with two spaces), for an object nested depth levels
// deep: values kept byte for byte line up as they did.
func encodeObject(ms []member, depth int) json.RawMessage {
	if len(ms) == 0 {
		return json.RawMessage(`{}`)
	}
	indent := strings.Repeat("  ", depth)
	var b bytes.Buffer
	b.WriteString("{")
	for i, m := range ms {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n" + indent + "  ")
		b.Write(jsonString(m.key))
		b.WriteString(": ")
		b.Write(m.raw)
	}
	b.WriteString("\n" + indent + "}")
	return b.Bytes()
}

// jsonString quotes s as JSON without Go's HTML escaping, as JavaScript
// would.
func jsonString(s string) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// readBounded reads a file of at most max bytes. A missing file is empty
// with mode 0.
func readBounded(path string, max int64) ([]byte, fs.FileMode, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return nil, 0, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, 0, err
	}
	if int64(len(data)) > max {
		return nil, 0, fmt.Errorf("larger than %d bytes, left as it is", max)
	}
	return data, st.Mode().Perm(), nil
}
