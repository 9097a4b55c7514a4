//go:build unix

package e2e

import (
	"path/filepath"
	"testing"
)

// The same with Codex, whose conversation id Switchboard reads from its
// rollout file, and `codex resume ID`.
func TestResumeCodexAfterKill(t *testing.T) {
	resumeAfterKill(t, codexCLI, func(d dirs) []string {
		files, _ := filepath.Glob(filepath.Join(d.home, ".codex", "sessions", "*", "*", "*", "rollout-*.jsonl"))
		return idsOf(files, "rollout-")
	}, nil)
}

// The same with Gemini CLI (--session-id, then --resume with that id).
func TestResumeGeminiAfterKill(t *testing.T) {
	resumeAfterKill(t, geminiCLI, nil, nil)
}
