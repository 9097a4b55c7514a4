package supervisor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
)

// A config as Claude Code writes it: two spaces, its own key order, other
// projects, an account.
const claudeConfigBefore = `{
  "numStartups": 3,
  "theme": "dark",
  "projects": {
    "/home/dev/other": {
      "allowedTools": [],
      "hasTrustDialogAccepted": true,
      "lastCost": 0.25
    },
    "WT": {
      "allowedTools": [
        "Bash(make:*)"
      ],
      "hasTrustDialogAccepted": false
    }
  },
  "oauthAccount": {
    "emailAddress": "dev@example.com"
  },
  "zz": "<&>"
}`

func TestTrustClaude(t *testing.T) {
	tests := []struct {
		name string
		// configDir sets CLAUDE_CONFIG_DIR to a folder of its own.
		configDir bool
		before    string // "" for no file
		mode      os.FileMode
		// want is the file afterwards ("" to check with wantErr instead);
		// WT stands for the worktree's path.
		want    string
		wantErr string
	}{
		{
			name: "no file", mode: 0o600,
			want: `{
  "projects": {
    "WT": {
      "allowedTools": [],
      "mcpContextUris": [],
      "mcpServers": {},
      "enabledMcpjsonServers": [],
      "disabledMcpjsonServers": [],
      "hasTrustDialogAccepted": true,
      "hasClaudeMdExternalIncludesApproved": false,
      "hasClaudeMdExternalIncludesWarningShown": false
    }
  }
}`,
		},
		{
			name: "other projects and an entry for the worktree", before: claudeConfigBefore, mode: 0o640,
			want: strings.Replace(claudeConfigBefore, `      "hasTrustDialogAccepted": false`, `      "hasTrustDialogAccepted": true`, 1),
		},
		{
			name: "other projects only", before: `{"numStartups":1,"projects":{"/a":{"hasTrustDialogAccepted":true}}}` + "\n", mode: 0o600,
			want: `{
  "numStartups": 1,
  "projects": {
    "/a": {"hasTrustDialogAccepted":true},
    "WT": {
      "allowedTools": [],
      "mcpContextUris": [],
      "mcpServers": {},
      "enabledMcpjsonServers": [],
      "disabledMcpjsonServers": [],
      "hasTrustDialogAccepted": true,
      "hasClaudeMdExternalIncludesApproved": false,
      "hasClaudeMdExternalIncludesWarningShown": false
    }
  }
}` + "\n",
		},
		{
			name: "CLAUDE_CONFIG_DIR not made yet", configDir: true, mode: 0o600,
			want: `{
  "projects": {
    "WT": {
      "allowedTools": [],
      "mcpContextUris": [],
      "mcpServers": {},
      "enabledMcpjsonServers": [],
      "disabledMcpjsonServers": [],
      "hasTrustDialogAccepted": true,
      "hasClaudeMdExternalIncludesApproved": false,
      "hasClaudeMdExternalIncludesWarningShown": false
    }
  }
}`,
		},
		{
			name: "CLAUDE_CONFIG_DIR", configDir: true, before: `{"theme": "light"}`, mode: 0o600,
			want: `{
  "theme": "light",
  "projects": {
    "WT": {
      "allowedTools": [],
      "mcpContextUris": [],
      "mcpServers": {},
      "enabledMcpjsonServers": [],
      "disabledMcpjsonServers": [],
      "hasTrustDialogAccepted": true,
      "hasClaudeMdExternalIncludesApproved": false,
      "hasClaudeMdExternalIncludesWarningShown": false
    }
  }
}`,
		},
		{name: "malformed", before: `{"numStartups": 3, "projects": {`, mode: 0o600, wantErr: "not a JSON object"},
		{name: "not an object", before: `["a"]`, mode: 0o600, wantErr: "not a JSON object"},
		{name: "two objects", before: `{} {}`, mode: 0o600, wantErr: "not a JSON object"},
		{name: "projects not an object", before: `{"projects": []}`, mode: 0o600, wantErr: `"projects" is not a JSON object`},
		{name: "entry not an object", before: `{"projects": {"WT": true}}`, mode: 0o600, wantErr: "is not a JSON object"},
		{name: "too large", before: `{"x": "` + strings.Repeat("a", maxClaudeConfig) + `"}`, mode: 0o600, wantErr: "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, wt := t.TempDir(), t.TempDir()
			env := []string{"HOME=" + home, "PATH=/usr/bin"}
			path := filepath.Join(home, ".claude.json")
			if tt.configDir {
				cd := filepath.Join(t.TempDir(), "claude-work") // made by the first trust
				if tt.before != "" {
					os.Mkdir(cd, 0o700)
				}
				env = append(env, "CLAUDE_CONFIG_DIR="+cd)
				path = filepath.Join(cd, ".claude.json")
			}
			before := strings.ReplaceAll(tt.before, "WT", wt)
			if tt.before != "" {
				if err := os.WriteFile(path, []byte(before), tt.mode); err != nil {
					t.Fatal(err)
				}
			}
			sv := New(Config{RuntimeDir: t.TempDir(), Env: env})
			err := trustClaude(sv, sv.cfg.Env, wt)
			got, _ := os.ReadFile(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if string(got) != before {
					t.Fatalf("a refused file was changed:\n%s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.ReplaceAll(tt.want, "WT", wt); string(got) != want {
				t.Fatalf("config:\n%s\nwant:\n%s", got, want)
			}
			var cfg struct {
				Projects map[string]struct {
					Trusted bool `json:"hasTrustDialogAccepted"`
				} `json:"projects"`
			}
			if err := json.Unmarshal(got, &cfg); err != nil || !cfg.Projects[wt].Trusted {
				t.Fatalf("worktree not trusted (%v): %s", err, got)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != tt.mode {
				t.Fatalf("mode %v, want %v", st.Mode().Perm(), tt.mode)
			}
			if tt.configDir {
				if _, err := os.Stat(filepath.Join(home, ".claude.json")); !os.IsNotExist(err) {
					t.Fatalf("~/.claude.json written with CLAUDE_CONFIG_DIR set (%v)", err)
				}
			}
			// A second start changes nothing.
			if err := trustClaude(sv, sv.cfg.Env, wt); err != nil {
				t.Fatal(err)
			}
			if again, _ := os.ReadFile(path); string(again) != string(got) {
				t.Fatalf("second trust rewrote the file:\n%s", again)
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".claude.json.*"))
			if len(left) > 0 {
				t.Fatalf("temporary files left: %v", left)
			}
		})
	}
}

// A config that is a link (to a dotfiles checkout) stays a link; the
// target is what changes.
func TestTrustClaudeLinkedConfig(t *testing.T) {
	home, dotfiles, wt := t.TempDir(), t.TempDir(), t.TempDir()
	target := filepath.Join(dotfiles, "claude.json")
	if err := os.WriteFile(target, []byte(`{"theme": "dark"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, ".claude.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	sv := New(Config{RuntimeDir: t.TempDir(), Env: []string{"HOME=" + home}})
	if err := trustClaude(sv, sv.cfg.Env, wt); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced (%v)", err)
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), `"`+wt+`": {`) {
		t.Fatalf("target not updated:\n%s", b)
	}
}

// Only a worktree Switchboard made is trusted: a session in the person's
// own folder (no Workspace) writes nothing.
func TestAddTrustClaudeOnlyWorktrees(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	sv := New(Config{RuntimeDir: t.TempDir(), Env: []string{"HOME=" + home}})
	p := profile.Profile{ID: "claude", Trust: profile.TrustClaude}
	var x launchExtras
	if err := addTrust(sv, LaunchSpec{Dir: repo, Profile: p}, nil, &x); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); !os.IsNotExist(err) {
		t.Fatalf("a person's own folder was trusted (%v)", err)
	}
	wt := filepath.Join(t.TempDir(), "ses_1")
	spec := LaunchSpec{Dir: wt, Profile: p, Workspace: &store.Workspace{Path: wt}}
	if err := addTrust(sv, spec, nil, &x); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".claude.json")); !strings.Contains(string(b), `"`+wt+`": {`) {
		t.Fatalf("worktree not trusted:\n%s", b)
	}
	if len(x.Args)+len(x.Env)+len(x.Files) != 0 {
		t.Fatalf("trust added to the launch: %+v", x)
	}
}

// Claude Code looks a folder up by its working directory, links resolved;
// a worktree path through a link is trusted in both forms.
func TestTrustClaudeLinkedWorktree(t *testing.T) {
	home, base := t.TempDir(), t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(base, "link")
	if err := os.Symlink(real, wt); err != nil {
		t.Fatal(err)
	}
	sv := New(Config{RuntimeDir: t.TempDir(), Env: []string{"HOME=" + home}})
	if err := trustClaude(sv, sv.cfg.Env, wt); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(home, ".claude.json"))
	for _, dir := range []string{wt, real} {
		if !strings.Contains(string(b), `"`+dir+`": {`) {
			t.Errorf("%s not trusted:\n%s", dir, b)
		}
	}
}

// TestTrustClaudeProfileConfigDir: a profile that sets CLAUDE_CONFIG_DIR
// for its agent gets the trust entry in that folder's config, the one its
// Claude Code reads, and none in ~/.claude.json.
func TestTrustClaudeProfileConfigDir(t *testing.T) {
	home, own, wt := t.TempDir(), t.TempDir(), t.TempDir()
	sv := New(Config{RuntimeDir: t.TempDir(), Env: []string{"HOME=" + home}})
	spec := LaunchSpec{
		Workspace: &store.Workspace{Path: wt},
		Profile:   profile.Profile{ID: "claude-work", Trust: profile.TrustClaude, Env: []string{"CLAUDE_CONFIG_DIR=" + own}},
	}
	if err := addTrust(sv, spec, map[string]string{}, &launchExtras{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(own, ".claude.json"))
	if err != nil || !strings.Contains(string(b), "hasTrustDialogAccepted") {
		t.Fatalf("the profile's config: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); !os.IsNotExist(err) {
		t.Fatalf("~/.claude.json written although the profile names its own config (%v)", err)
	}
}
