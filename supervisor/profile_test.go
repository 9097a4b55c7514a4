package supervisor

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
)

// testVars are the placeholder values of a session, as sessionVars makes
// them, with the prompt left to each case.
func testVars(prompt string) map[string]string {
	return map[string]string{
		"endpoint": "http://127.0.0.1:43117/mcp", "token_file": "/run/sb/ses_t.token",
		"mcp_config": "/run/sb/ses_t.mcp.json", "session_id": "ses_t",
		"repository_id": "repo_t", "repository_path": "/src/repo", "prompt": prompt,
	}
}

func TestExpand(t *testing.T) {
	vars := testVars("fix {endpoint} and {x}")
	vars["v2"] = "two"
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain --flag", "plain --flag"},
		{"{endpoint}", "http://127.0.0.1:43117/mcp"},
		{"--sid={session_id}/{repository_id}", "--sid=ses_t/repo_t"},
		{"{v2}", "two"},
		// A TOML inline table around a placeholder (Codex's -c value).
		{`x={url="{endpoint}",n=1}`, `x={url="http://127.0.0.1:43117/mcp",n=1}`},
		{"{{endpoint}}", "{http://127.0.0.1:43117/mcp}"},
		{"{a{endpoint}", "{ahttp://127.0.0.1:43117/mcp"},
		{"{endpoint}{session_id}", "http://127.0.0.1:43117/mcpses_t"},
		// Braces that are not a known placeholder stay as they are.
		{"{unknown}", "{unknown}"},
		{"{}", "{}"},
		{"{Endpoint}", "{Endpoint}"},
		{"{end point}", "{end point}"},
		{"{endpoint", "{endpoint"},
		{"endpoint}", "endpoint}"},
		{"}{", "}{"},
		{"{", "{"},
		{"a{b}c{", "a{b}c{"},
		{`{"k":{"v":1}}`, `{"k":{"v":1}}`},
		// A value is inserted as it is, never expanded again.
		{"{prompt}", "fix {endpoint} and {x}"},
	} {
		if got := expand(c.in, vars); got != c.want {
			t.Errorf("expand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func builtin(t testing.TB, id string) profile.Profile {
	t.Helper()
	for _, p := range Builtins() {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("no built-in profile %q", id)
	return profile.Profile{}
}

// The argument lists every built-in profile starts its CLI with, expanded
// as Launch expands them, with a prompt the person gave and without one.
func TestBuiltinArgs(t *testing.T) {
	const (
		endpoint = "http://127.0.0.1:43117/mcp"
		config   = "/run/sb/ses_t.mcp.json"
		mine     = `fix the "login" bug {endpoint}` // quotes, spaces and braces stay as they are
	)
	boot := BootstrapPrompt("ses_t", "repo_t")
	codexTOML := `mcp_servers.switchboard={url="` + endpoint + `",` +
		`bearer_token_env_var="SWITCHBOARD_MCP_TOKEN",default_tools_approval_mode="approve"}`
	cases := []struct {
		id, prompt string
		want       []string
		delivery   profile.PromptDelivery
	}{
		{"claude", mine, []string{"--mcp-config", config, "--strict-mcp-config", "--allowedTools=mcp__switchboard", mine}, profile.PromptArgument},
		{"claude", "", []string{"--mcp-config", config, "--strict-mcp-config", "--allowedTools=mcp__switchboard", boot}, profile.PromptArgument},
		{"codex", mine, []string{"--disable", "daemon_auto_start", "-c", codexTOML, mine}, profile.PromptArgument},
		{"codex", "", []string{"--disable", "daemon_auto_start", "-c", codexTOML, boot}, profile.PromptArgument},
		{"gemini", mine, []string{"--allowed-mcp-server-names", "switchboard", "-i", mine}, profile.PromptArgument},
		{"gemini", "", []string{"--allowed-mcp-server-names", "switchboard", "-i", boot}, profile.PromptArgument},
		{"aider", mine, nil, profile.PromptTyped},
		{"aider", "", nil, profile.PromptTyped},
		// A shell runs what the person typed; it is never told the
		// bootstrap prompt, which it would run as a command.
		{"shell", mine, nil, profile.PromptTyped},
		{"shell", "", nil, profile.PromptNone},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.id] = true
		spec := LaunchSpec{SessionID: "ses_t", RepositoryID: "repo_t", Dir: "/src/repo", Profile: builtin(t, c.id),
			Endpoint: endpoint, Token: "sbt_secret", Prompt: c.prompt}
		prompt, delivery := firstPrompt(spec)
		spec.Prompt = prompt
		got := expandArgs(spec.Profile, sessionVars(spec, delivery, "/run/sb/ses_t.token", config))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s with prompt %q: args\n%q\nwant\n%q", c.id, c.prompt, got, c.want)
		}
		if delivery != c.delivery {
			t.Errorf("%s with prompt %q: delivered %s, want %s", c.id, c.prompt, delivery, c.delivery)
		}
		if c.prompt != "" && prompt != c.prompt || c.prompt == "" && prompt != boot {
			t.Errorf("%s with prompt %q: first prompt %q", c.id, c.prompt, prompt)
		}
	}
	for _, p := range Builtins() {
		if !covered[p.ID] {
			t.Errorf("built-in profile %s has no case", p.ID)
		}
	}
}

// How the first prompt reaches an agent, by the profile's delivery mode
// and whether the person gave the prompt.
func TestFirstPromptDelivery(t *testing.T) {
	withArg := profile.Profile{ID: "a", Prompt: profile.PromptArgument, Args: []string{"--msg={prompt}"}}
	// "argument" with nowhere to put it: the person's prompt is typed
	// rather than lost.
	noArg := profile.Profile{ID: "b", Prompt: profile.PromptArgument, Args: []string{"--quiet"}}
	typed := profile.Profile{ID: "c", Prompt: profile.PromptTyped}
	none := profile.Profile{ID: "d", Prompt: profile.PromptNone}
	for _, c := range []struct {
		p        profile.Profile
		prompt   string
		delivery profile.PromptDelivery
	}{
		{withArg, "go", profile.PromptArgument},
		{withArg, "", profile.PromptArgument},
		{noArg, "go", profile.PromptTyped},
		{noArg, "", profile.PromptNone},
		{typed, "go", profile.PromptTyped},
		{typed, "", profile.PromptTyped},
		{none, "go", profile.PromptTyped},
		{none, "", profile.PromptNone},
	} {
		_, got := firstPrompt(LaunchSpec{SessionID: "ses_t", Profile: c.p, Prompt: c.prompt})
		if got != c.delivery {
			t.Errorf("profile %s (%s) with prompt %q: delivered %s, want %s", c.p.ID, c.p.Prompt, c.prompt, got, c.delivery)
		}
	}
}

// placeholderRE is what a placeholder is, written independently of expand.
var placeholderRE = regexp.MustCompile(`\{[a-z0-9_]+\}`)

// FuzzExpand throws templates full of braces at expand and checks it
// against a regexp-based expansion and against properties that hold
// whatever the template.
func FuzzExpand(f *testing.F) {
	for _, seed := range []string{
		`mcp_servers.switchboard={url="{endpoint}",bearer_token_env_var="X"}`,
		"{{prompt}}", "{a{session_id}}", "}{token_file}{", "{unknown}{", "{", "",
	} {
		f.Add(seed, "a {value} }{")
	}
	f.Fuzz(func(t *testing.T, tmpl, value string) {
		// Any value, empty included, as the prompt: expansion is a
		// regexp replacement that never looks at what it inserted.
		vars := testVars(value)
		want := placeholderRE.ReplaceAllStringFunc(tmpl, func(m string) string {
			if v, ok := vars[m[1:len(m)-1]]; ok {
				return v
			}
			return m
		})
		if got := expand(tmpl, vars); got != want {
			t.Fatalf("expand(%q) = %q, want %q", tmpl, got, want)
		}

		// Values that cannot join the text around them into a
		// placeholder: no known placeholder survives expansion.
		fenced := map[string]string{}
		for name := range testVars("") {
			fenced[name] = "<" + name + " value>"
		}
		got := expand(tmpl, fenced)
		known := false
		for name := range fenced {
			if strings.Contains(got, "{"+name+"}") {
				t.Fatalf("expand(%q) = %q: {%s} survived", tmpl, got, name)
			}
			known = known || strings.Contains(tmpl, "{"+name+"}")
		}
		// Text without a known placeholder is unchanged.
		if !known && got != tmpl {
			t.Fatalf("expand(%q) = %q: changed a template without placeholders", tmpl, got)
		}
	})
}

// A session in a worktree is told where it is; one in the repository's
// folder is told nothing of worktrees, and no SWITCHBOARD_ variable of the
// app's own reaches either.
func TestAgentEnvWorkspace(t *testing.T) {
	base := []string{"HOME=/home/u", "SWITCHBOARD_WORKTREE=/stale", "SWITCHBOARD_MCP_TOKEN=sbt_app"}
	spec := LaunchSpec{SessionID: "ses_1", RepositoryID: "repo_1", Endpoint: "http://127.0.0.1:1/mcp"}
	plain := agentEnv(base, spec, "/run/tok", nil)
	spec.Workspace = &store.Workspace{Path: "/data/worktrees/repo_1/ses_1", Branch: "switchboard/1-fix", BaseBranch: "main", BaseCommit: strings.Repeat("a", 40)}
	isolated := agentEnv(base, spec, "/run/tok", nil)
	for _, tc := range []struct {
		env  []string
		want map[string]string // "" for a variable that must be absent
	}{
		{plain, map[string]string{"SWITCHBOARD_WORKTREE": "", "SWITCHBOARD_BRANCH": "", "SWITCHBOARD_BASE": "", "SWITCHBOARD_MCP_TOKEN": "", "HOME": "/home/u"}},
		{isolated, map[string]string{"SWITCHBOARD_WORKTREE": "/data/worktrees/repo_1/ses_1", "SWITCHBOARD_BRANCH": "switchboard/1-fix", "SWITCHBOARD_BASE": "main", "SWITCHBOARD_MCP_TOKEN": ""}},
	} {
		got := map[string][]string{}
		for _, kv := range tc.env {
			k, v, _ := strings.Cut(kv, "=")
			got[k] = append(got[k], v)
		}
		for k, want := range tc.want {
			switch {
			case want == "" && len(got[k]) > 0:
				t.Errorf("%s=%v set, want it absent", k, got[k])
			case want != "" && (len(got[k]) != 1 || got[k][0] != want):
				t.Errorf("%s=%v, want exactly %q", k, got[k], want)
			}
		}
	}
}

// TestCommandLineExtras: a session's own arguments go before the prompt,
// and before the flag that takes it; a prefix (a subcommand) goes first.
func TestCommandLineExtras(t *testing.T) {
	x := launchExtras{Prefix: []string{"resume", "ID"}, Args: []string{"--mode", "m"}}
	for _, tc := range []struct {
		name   string
		args   []string
		prompt string
		want   []string
	}{
		{"positional prompt", []string{"a", "{prompt}"}, "go", []string{"resume", "ID", "a", "--mode", "m", "go"}},
		// A flag just before could take the prompt or be a switch: in
		// front of it is right for both.
		{"flag or switch before it", []string{"--a", "{prompt}"}, "go", []string{"resume", "ID", "--mode", "m", "--a", "go"}},
		{"flag takes the prompt", []string{"--a", "-i", "{prompt}"}, "go", []string{"resume", "ID", "--a", "--mode", "m", "-i", "go"}},
		{"flag=value before it", []string{"--x=1", "{prompt}"}, "go", []string{"resume", "ID", "--x=1", "--mode", "m", "go"}},
		{"no prompt given", []string{"a", "{prompt}"}, "", []string{"resume", "ID", "a", "--mode", "m"}},
		{"prompt inside an argument", []string{"--p={prompt}", "--b"}, "go", []string{"resume", "ID", "--p=go", "--b", "--mode", "m"}},
		{"no arguments", nil, "", []string{"resume", "ID", "--mode", "m"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := profile.Profile{ID: "p", Command: "sh", Args: tc.args}
			_, got, err := commandLine(p, map[string]string{"prompt": tc.prompt}, x)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("args %q, want %q", got, tc.want)
			}
		})
	}
}
