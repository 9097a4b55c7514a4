package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAgentCLIRows(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	base := agentKindResult{name: agentBaseline, audited: ms(50, 40, 60)}
	tests := []struct {
		name string
		res  agentCLIResult
		// want: JSON row name → value and baseline value (-1: none).
		want map[string][2]float64
		// printed: summary label prefix → what "ours" shows.
		printed map[string]string
	}{
		{
			name: "measured",
			res: agentCLIResult{baseline: base, clis: []agentKindResult{
				{name: "claude", modelCall: ms(1000, 1200, 900, 1100), audited: ms(1100, 1300, 1000, 1200)},
			}},
			want: map[string][2]float64{
				"agent_cli_first_tool_call/claude/model":    {1050, 50},
				"agent_cli_first_tool_call/claude/audited":  {1150, 50},
				"agent_cli_first_tool_call/standin/audited": {50, -1},
			},
			printed: map[string]string{
				"Start agent to first tool call, Claude Code": "1.05s (900.00ms–1.20s)",
				"Start agent to first MCP call, the stand-in": "50.00ms (40.00ms–60.00ms)",
			},
		},
		{
			name: "not installed",
			res: agentCLIResult{baseline: base, clis: []agentKindResult{
				{name: "codex", skipped: "not installed: no codex in test/agents/node_modules/.bin"},
			}},
			want: map[string][2]float64{"agent_cli_first_tool_call/standin/audited": {50, -1}},
			printed: map[string]string{
				"Start agent to first tool call, Codex": "not installed: no codex in test/agents/node_modules/.bin",
			},
		},
		{
			name: "no baseline",
			res: agentCLIResult{clis: []agentKindResult{
				{name: "gemini", modelCall: ms(3000), audited: ms(3100)},
			}},
			want: map[string][2]float64{
				"agent_cli_first_tool_call/gemini/model":   {3000, -1},
				"agent_cli_first_tool_call/gemini/audited": {3100, -1},
			},
			printed: map[string]string{"Start agent to first tool call, Gemini CLI": "3.00s (3.00s–3.00s)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &report{agentCLI: &tt.res}
			path := filepath.Join(t.TempDir(), "latest.json")
			if err := r.writeJSON(path); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var rows []jsonRow
			if err := json.Unmarshal(b, &rows); err != nil {
				t.Fatal(err)
			}
			got := map[string][2]float64{}
			for _, row := range rows {
				bv := -1.0
				if row.BaselineValue != nil {
					bv = *row.BaselineValue
				}
				got[row.Name] = [2]float64{row.Value, bv}
			}
			if len(got) != len(tt.want) {
				t.Errorf("JSON rows %v, want %v", got, tt.want)
			}
			for name, w := range tt.want {
				if got[name] != w {
					t.Errorf("%s = %v, want %v", name, got[name], w)
				}
			}
			for prefix, want := range tt.printed {
				i := slices.IndexFunc(r.rows(), func(row jsonRow) bool { return strings.HasPrefix(row.label, prefix) })
				if i < 0 {
					t.Errorf("no summary row %q", prefix)
					continue
				}
				if d := r.rows()[i].display; d != want {
					t.Errorf("%q shows %q, want %q", prefix, d, want)
				}
			}
		})
	}
}

func TestAgentEnv(t *testing.T) {
	tests := []struct {
		name           string
		base, person   []string
		bin            string
		want, wantNot  []string
		wantPathPrefix string
	}{
		{
			name:           "the runner's CLI variables and HOME do not reach the agents",
			base:           []string{"HOME=/root", "ANTHROPIC_API_KEY=real", "GEMINI_API_KEY=real", "LANG=C.UTF-8", "TERM=dumb"},
			person:         []string{"ANTHROPIC_API_KEY=stand-in"},
			bin:            "/cli/bin",
			want:           []string{"HOME=/h", "ANTHROPIC_API_KEY=stand-in", "LANG=C.UTF-8", "TERM=xterm-256color"},
			wantNot:        []string{"HOME=/root", "ANTHROPIC_API_KEY=real", "GEMINI_API_KEY=real", "TERM=dumb"},
			wantPathPrefix: "PATH=/cli/bin" + string(os.PathListSeparator),
		},
		{
			name:           "no CLI folder: PATH as it is",
			base:           []string{"PATH=/old"},
			want:           []string{"HOME=/h"},
			wantPathPrefix: "PATH=/old",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := agentEnv(tt.base, tt.bin, "/h", tt.person)
			for _, kv := range tt.want {
				if !slices.Contains(env, kv) {
					t.Errorf("no %s in %v", kv, env)
				}
			}
			for _, kv := range tt.wantNot {
				if slices.Contains(env, kv) {
					t.Errorf("%s in %v", kv, env)
				}
			}
			var paths []string
			for _, kv := range env {
				if strings.HasPrefix(kv, "PATH=") {
					paths = append(paths, kv)
				}
			}
			if len(paths) != 1 || !strings.HasPrefix(paths[0], tt.wantPathPrefix) {
				t.Errorf("PATH entries %v, want one starting %q", paths, tt.wantPathPrefix)
			}
		})
	}
}

func TestAgentCLIBin(t *testing.T) {
	tests := []struct {
		name    string
		install []string // commands put in the linked install's .bin
		wantWhy string   // "" when the folder is found
	}{
		{"all three", []string{"claude", "codex", "gemini"}, ""},
		{"one missing", []string{"claude", "gemini"}, "no codex in test/agents/node_modules/.bin"},
		{"none", nil, "no claude in test/agents/node_modules/.bin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, shared := t.TempDir(), t.TempDir()
			// A worktree sharing another checkout's install: a link, used
			// as it is (never npm ci through it).
			bin := filepath.Join(shared, ".bin")
			if err := os.MkdirAll(bin, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, name := range tt.install {
				if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			agents := filepath.Join(root, "test", "agents")
			if err := os.MkdirAll(agents, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(shared, filepath.Join(agents, "node_modules")); err != nil {
				t.Fatal(err)
			}
			got, why := agentCLIBin(t.Context(), root)
			if why != tt.wantWhy {
				t.Fatalf("why = %q, want %q", why, tt.wantWhy)
			}
			if tt.wantWhy == "" && (got != filepath.Join(agents, "node_modules", ".bin") || !filepath.IsAbs(got)) {
				t.Errorf("bin = %q, want the absolute %s", got, filepath.Join(agents, "node_modules", ".bin"))
			}
		})
	}
}
