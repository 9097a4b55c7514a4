package supervisor

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// settingsFlag is Claude Code's flag for a settings document (a file or
// inline JSON) that applies to one run only.
const settingsFlag = "--settings"

// joinSettings makes the several --settings a session's extenders added
// (full auto's consent, the hooks' file) into one: Claude Code reads only
// the last one it is given, so the consent would otherwise be lost behind
// the hooks and the bypass mode would stop at its disclaimer. The documents
// are merged key by key (objects merged, later values win), into the
// session's own settings file when one of them is a file it wrote (it stays
// owner-only and is removed with the session), else inline, where the
// first of them stood.
func joinSettings(_ *Supervisor, _ LaunchSpec, _ map[string]string, x *launchExtras) error {
	var (
		merged map[string]any
		file   string // the last settings file the session wrote
		first  = -1
		n      int
		rest   []string
	)
	for i := 0; i < len(x.Args); i++ {
		a := x.Args[i]
		value, ok := strings.CutPrefix(a, settingsFlag+"=")
		if !ok {
			if a != settingsFlag || i+1 >= len(x.Args) {
				rest = append(rest, a)
				continue
			}
			i++
			value = x.Args[i]
		}
		doc, isFile, err := settingsDoc(value, x.Files)
		if err != nil {
			return err
		}
		if isFile {
			file = value
		}
		if first < 0 {
			first = len(rest)
		}
		merged = mergeSettings(merged, doc)
		n++
	}
	if n < 2 {
		return nil
	}
	data, err := json.Marshal(merged)
	if err != nil {
		return fmt.Errorf("encode the session's settings: %w", err)
	}
	value := string(data)
	if file != "" {
		if err := writePrivate(file, data); err != nil {
			return err
		}
		value = file
	}
	x.Args = slices.Concat(rest[:first], []string{settingsFlag, value}, rest[first:])
	return nil
}

// settingsDoc reads one --settings value: inline JSON, or a file this
// session wrote (files), never one of the person's, which is not ours to
// merge or rewrite.
func settingsDoc(value string, files []string) (doc map[string]any, isFile bool, err error) {
	data := []byte(value)
	if !strings.HasPrefix(strings.TrimSpace(value), "{") {
		if !slices.Contains(files, value) {
			return nil, false, fmt.Errorf("%s %s: a session's own settings can be joined only with its own files", settingsFlag, value)
		}
		if data, err = os.ReadFile(value); err != nil {
			return nil, false, fmt.Errorf("read the session's settings: %w", err)
		}
		isFile = true
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, false, fmt.Errorf("%s is not a JSON object: %w", settingsFlag, err)
	}
	return doc, isFile, nil
}

// mergeSettings lays b over a: objects are merged key by key, anything
// else in b replaces what a has.
func mergeSettings(a, b map[string]any) map[string]any {
	if a == nil {
		a = map[string]any{}
	}
	for k, v := range b {
		if bv, ok := v.(map[string]any); ok {
			if av, ok := a[k].(map[string]any); ok {
				a[k] = mergeSettings(av, bv)
				continue
			}
		}
		a[k] = v
	}
	return a
}
