package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// Confinement says how a session's agent is held, for the session's
// listing, its audit record and the person.
type Confinement struct {
	// Level is LevelConfined, LevelPartly or LevelNone.
	Level string `json:"level"`
	// Method is what enforces the file system policy: "bubblewrap",
	// "landlock", or "" when nothing does.
	Method string `json:"method,omitempty"`
	// Why says what a partly confined or unconfined agent can reach that a
	// confined one cannot, and why.
	Why string `json:"why,omitempty"`
	// Processes names what holds every process the agent starts:
	// HoldPIDNamespace, HoldCgroup or HoldGroup.
	Processes string `json:"processes"`
	// Notes are what the policy left out (a hidden path that does not
	// exist).
	Notes []string `json:"notes,omitempty"`
}

// Confinement levels.
const (
	LevelConfined = "confined"
	LevelPartly   = "partly confined"
	LevelNone     = "not confined"
)

// What holds an agent's processes, strongest first.
const (
	// HoldPIDNamespace: the agent's own PID namespace; when its first
	// process ends, the kernel ends the rest.
	HoldPIDNamespace = "pid namespace"
	// HoldCgroup: a cgroup v2 leaf; cgroup.kill ends all of it.
	HoldCgroup = "cgroup"
	// HoldSubreaper: the sandbox helper stays as the agent's parent and
	// a child subreaper; orphans come back to it, and it ends them.
	HoldSubreaper = "subreaper"
	// HoldGroup: the process group only; a child that starts a session
	// of its own escapes it.
	HoldGroup = "process group"
)

// String reads as the session shows it: "confined (bubblewrap)", "partly
// confined (landlock): why".
func (c Confinement) String() string {
	s := c.Level
	if c.Method != "" {
		s += " (" + c.Method + ")"
	}
	if c.Why != "" {
		s += ": " + c.Why
	}
	return s
}

// insideDir is where a bubblewrapped agent finds its session's files: its
// private /tmp, so no path it is given names Switchboard's runtime folder.
const insideDir = "/tmp/switchboard"

// box is how one session's processes are started: the sandbox and the
// process set. The zero box starts a process as it is, in a process group.
type box struct {
	bwrap    string // bubblewrap's path when it confines
	seatbelt string // macOS's sandbox-exec when it confines
	helper   string // the binary with confine.HelperArg
	checked  *confine.Checked
	// cgroup is the folder a leaf is made in for each process started;
	// "" when none can be (or bubblewrap's namespace holds them).
	cgroup string
	// name names the leaves: the session id.
	name string
}

// sandboxFor decides how spec's agent is confined: bubblewrap where it
// runs, else Landlock (partly confined: shared /tmp, processes visible),
// else refused; a spec without a policy runs as it is, which only the
// person's choice for its repository, or a system with no sandbox at all,
// may ask. files are the session's files, which a bubblewrapped agent
// finds under insideDir: the returned function maps their paths there.
func (sv *Supervisor) sandboxFor(spec LaunchSpec, command string, env, files []string) (box, Confinement, func(string) string, error) {
	sup := sv.support()
	same := func(s string) string { return s }
	bx := box{helper: sv.cfg.Helper, cgroup: sup.Cgroup, name: spec.SessionID}
	conf := Confinement{Level: LevelNone, Processes: HoldGroup, Why: spec.Unconfined}
	switch {
	case sup.Cgroup != "":
		conf.Processes = HoldCgroup
	case bx.helper != "" && reapable():
		conf.Processes = HoldSubreaper
	}
	if spec.Policy == nil {
		if conf.Why == "" {
			conf.Why = "nothing confines agents on " + runtime.GOOS + " yet"
		}
		return bx, conf, same, nil
	}
	p := *spec.Policy
	p.Writable, p.Hidden = slices.Clone(p.Writable), slices.Clone(p.Hidden)
	if err := homePolicy(&p, spec.Profile, env); err != nil {
		return box{}, Confinement{}, nil, err
	}
	if sup.Seatbelt != "" {
		// sandbox-exec applies the profile and execs the agent itself:
		// no helper between them.
		return seatbeltBox(bx, sup.Seatbelt, p, files, conf)
	}
	if bx.helper == "" {
		return box{}, Confinement{}, nil, fmt.Errorf("%w: this program has no sandbox helper (it never called confine.RunHelper)", errNoSandbox)
	}
	switch {
	case sup.Bwrap != "":
		inside := func(s string) string {
			for _, f := range files {
				s = strings.ReplaceAll(s, f, filepath.Join(insideDir, filepath.Base(f)))
			}
			return s
		}
		for _, f := range files {
			p.Files = append(p.Files, confine.File{Src: f, Dst: inside(f)})
		}
		// The helper and the agent's own program are bound back where a
		// hidden folder or the private /tmp would take them away (a
		// build or a checkout under /tmp: a CLI installed there by npm
		// is a link to a script among its packages, all of which it
		// needs).
		p.ReadOnly = append(p.ReadOnly, reachable(bx.helper)...)
		if bin, err := exec.LookPath(command); err == nil {
			p.ReadOnly = append(p.ReadOnly, reachable(bin)...)
		}
		c, err := confine.Check(p)
		if err != nil {
			return box{}, Confinement{}, nil, err
		}
		bx.bwrap, bx.checked, bx.cgroup = sup.Bwrap, &c, ""
		return bx, Confinement{Level: LevelConfined, Method: "bubblewrap", Processes: HoldPIDNamespace, Notes: c.Notes}, inside, nil
	case sup.Landlock > 0:
		for _, f := range files {
			p.Files = append(p.Files, confine.File{Src: f, Dst: f})
		}
		c, err := confine.Check(p)
		if err != nil {
			return box{}, Confinement{}, nil, err
		}
		bx.checked = &c
		conf.Level, conf.Method, conf.Notes = LevelPartly, "landlock", c.Notes
		conf.Why = fmt.Sprintf("%s; Landlock ABI %d hides and guards the files, but /tmp and other processes are shared", sup.BwrapWhy, sup.Landlock)
		return bx, conf, same, nil
	}
	return box{}, Confinement{}, nil, fmt.Errorf("%w: %s, and this kernel has no Landlock; to run this repository's agents unconfined all the same: switchboard repo set ID --unconfined confirm", errNoSandbox, sup.BwrapWhy)
}

// seatbeltBox confines with macOS's Seatbelt: the files as on Linux, but
// /tmp and other processes shared (as under Landlock), and nothing holds
// a process that leaves the agent's process group.
func seatbeltBox(bx box, seatbelt string, p confine.Policy, files []string, conf Confinement) (box, Confinement, func(string) string, error) {
	for _, f := range files {
		p.Files = append(p.Files, confine.File{Src: f, Dst: f})
	}
	c, err := confine.Check(p)
	if err != nil {
		return box{}, Confinement{}, nil, err
	}
	bx.seatbelt, bx.checked, bx.helper = seatbelt, &c, ""
	conf.Level, conf.Method, conf.Notes = LevelPartly, "seatbelt", c.Notes
	conf.Why = "macOS's Seatbelt guards the files, but /tmp and other processes are shared"
	return bx, conf, func(s string) string { return s }, nil
}

// errNoSandbox is the cause of a launch refused because nothing here can
// confine the agent: it never starts unconfined instead.
var errNoSandbox = errors.New("the agent cannot start confined")

// support is what confines agents here, probed once.
func (sv *Supervisor) support() confine.Support {
	sv.probe.Do(func() {
		if sv.cfg.Support != nil {
			sv.supported = *sv.cfg.Support
			return
		}
		sv.supported = confine.Probe(context.Background(), sv.cfg.Bwrap)
	})
	return sv.supported
}

// homePolicy completes p with what depends on the agent's home (its HOME
// variable): the person's keys hidden, its CLI's own state writable (made
// if missing: home is read-only to the agent, and a CLI's first run makes
// its folder).
//
// The CLI is known by the profile's id or by what Switchboard reads of it
// (its usage, trust and hooks), so that a profile of the person's own for
// the same CLI gets the same state.
func homePolicy(p *confine.Policy, prof profile.Profile, env []string) error {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	home := vars["HOME"]
	if home == "" {
		return errors.New("the agent's environment names no HOME")
	}
	p.Home = home
	p.Hidden = append(p.Hidden, confine.HomeSecrets(home)...)
	state := []string{".npm", ".cache"}
	var moved []string // state the CLI was told to keep elsewhere
	for _, cli := range []string{"claude", "codex", "gemini"} {
		if prof.ID != cli && prof.Usage != cli && prof.Trust != cli && prof.Hooks != cli {
			continue
		}
		switch cli {
		case "claude":
			state = append(state, ".claude", ".claude.json")
			moved = append(moved, vars["CLAUDE_CONFIG_DIR"])
		case "codex":
			state = append(state, ".codex")
			moved = append(moved, vars["CODEX_HOME"])
		case "gemini":
			state = append(state, ".gemini")
		}
	}
	for _, s := range state {
		moved = append(moved, filepath.Join(home, s))
	}
	for _, path := range moved {
		if !filepath.IsAbs(path) {
			continue
		}
		if filepath.Ext(path) != ".json" {
			if err := os.MkdirAll(path, 0o700); err != nil {
				return fmt.Errorf("make %s for the agent: %w", path, err)
			}
		}
		p.Writable = append(p.Writable, path)
	}
	return nil
}

// HelperName is the small sandbox helper's file name
// (cmd/switchboard-sandbox), looked for beside the running binary.
const HelperName = "switchboard-sandbox"

// helperPath is the default sandbox helper: HelperName beside this binary
// (it starts in a few milliseconds, the app's binary in about thirty),
// else this binary when it answers confine.HelperArg, else "".
func helperPath() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(filepath.Join(filepath.Dir(self), HelperName)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return filepath.Join(filepath.Dir(self), HelperName)
	}
	if confine.HelperInstalled() {
		return self
	}
	return ""
}

// reachable is what must be bound back for program path to run in a
// sandbox: the file its links lead to, and for a path under /tmp, which
// the sandbox replaces, the whole folder under /tmp it lies in (its link
// and what that leads to, both). Every path returned is one Check takes:
// none leads elsewhere through a link.
func reachable(path string) []string {
	var out []string
	r, err := filepath.EvalSymlinks(path)
	if err == nil {
		out = append(out, r)
	}
	for _, p := range []string{path, r} {
		if rest, ok := strings.CutPrefix(p, "/tmp/"); ok {
			top, _, _ := strings.Cut(rest, "/")
			out = append(out, "/tmp/"+top)
		}
	}
	return out
}
