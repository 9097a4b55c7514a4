package workspace

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// State is what a worktree holds that is not on its base branch.
type State struct {
	// Dirty is true when anything is uncommitted: a change to a tracked
	// file, staged or not, or an untracked file (ignored files aside).
	Dirty bool `json:"dirty"`
	// Changed lists what is uncommitted.
	Changed []FileChange `json:"changed,omitempty"`
	// Head is the commit checked out.
	Head string `json:"head"`
	// Branch is the branch checked out, "" when HEAD is detached.
	Branch string `json:"branch,omitempty"`
	// Ahead counts the commits from BaseCommit to HEAD.
	Ahead int `json:"ahead"`
	// Unlanded counts the commits that HEAD or the workspace's branch
	// reach and BaseBranch does not: what removing the worktree and its
	// branch would lose.
	Unlanded int `json:"unlanded"`
	// Landed is true when Unlanded is 0: HEAD (and the workspace's branch)
	// are ancestors of BaseBranch's tip. A worktree with no commits of its
	// own counts as landed.
	Landed bool `json:"landed"`
}

// FileChange is one uncommitted path.
type FileChange struct {
	Path string `json:"path"`
	// Status is one letter: M modified, A added, D deleted, R renamed,
	// C copied, T type changed, U unmerged, ? untracked. It is the index's
	// letter when the index differs from HEAD, else the work tree's.
	Status string `json:"status"`
	// XY is porcelain v2's pair, index then work tree ("M.", ".M", "??").
	XY string `json:"xy"`
	// OldPath is where a rename or copy came from.
	OldPath string `json:"old_path,omitempty"`
}

// Status reads ws's uncommitted changes and how far its commits are from
// landing. It takes no lock in the repository (gitcmd sets
// GIT_OPTIONAL_LOCKS=0), so it can run while the agent works.
func Status(ctx context.Context, ws Workspace) (State, error) {
	st, err := openStatus(ctx, ws)
	if err != nil {
		return State{}, fmt.Errorf("status of worktree %s: %w", ws.Path, err)
	}
	return st, nil
}

func openStatus(ctx context.Context, ws Workspace) (State, error) {
	if err := ws.check(); err != nil {
		return State{}, err
	}
	t, err := ws.Tree(ctx)
	if err != nil {
		return State{}, err
	}
	return status(ctx, t, ws)
}

// status is Status in t, ws's worktree.
func status(ctx context.Context, t gitcmd.Tree, ws Workspace) (State, error) {
	out, err := gitcmd.RunTree(ctx, t, "status", "--porcelain=v2", "-z", "--branch",
		"--untracked-files=all", "--ignore-submodules=none")
	if err != nil {
		return State{}, err
	}
	st, err := parseStatus(out)
	if err != nil {
		return State{}, err
	}
	if st.Head == "" {
		return State{}, fmt.Errorf("worktree has no commit checked out")
	}
	n, err := gitcmd.RunTree(ctx, t, "rev-list", "--count", ws.BaseCommit+"..HEAD")
	if err != nil {
		return State{}, err
	}
	if st.Ahead, err = strconv.Atoi(strings.TrimSpace(string(n))); err != nil {
		return State{}, fmt.Errorf("rev-list --count: %w", err)
	}
	tips, err := workTips(ctx, t, ws)
	if err != nil {
		return State{}, err
	}
	n, err = gitcmd.RunTree(ctx, t, append(append([]string{"rev-list", "--count"}, tips...), "--not", "refs/heads/"+ws.BaseBranch, "--")...)
	if err != nil {
		return State{}, fmt.Errorf("commits not on %s: %w", ws.BaseBranch, err)
	}
	if st.Unlanded, err = strconv.Atoi(strings.TrimSpace(string(n))); err != nil {
		return State{}, fmt.Errorf("rev-list --count: %w", err)
	}
	st.Landed = st.Unlanded == 0
	return st, nil
}

// workTips are the refs whose commits are the agent's: HEAD, and the
// workspace's branch when it still exists (an agent may have switched
// away from it, leaving commits only the branch reaches).
func workTips(ctx context.Context, t gitcmd.Tree, ws Workspace) ([]string, error) {
	tips := []string{"HEAD"}
	ref := "refs/heads/" + ws.Branch
	_, err := gitcmd.RunTree(ctx, t, "rev-parse", "--verify", "--quiet", ref)
	if code, ok := gitcmd.ExitCode(err); ok && code == 1 {
		return tips, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up %s: %w", ref, err)
	}
	return append(tips, ref), nil
}

// parseStatus reads `git status --porcelain=v2 -z --branch`: headers
// ("# branch.oid …"), then one record per path, NUL-terminated; a rename
// or copy record is followed by one more holding the old path.
func parseStatus(out []byte) (State, error) {
	var st State
	recs := bytes.Split(out, []byte{0})
	for i := 0; i < len(recs); i++ {
		rec := string(recs[i])
		if rec == "" {
			continue
		}
		switch rec[0] {
		case '#':
			if v, ok := strings.CutPrefix(rec, "# branch.oid "); ok && v != "(initial)" {
				st.Head = v
			} else if v, ok := strings.CutPrefix(rec, "# branch.head "); ok && v != "(detached)" {
				st.Branch = v
			}
		case '1': // 1 XY sub mH mI mW hH hI path
			f := strings.SplitN(rec, " ", 9)
			if len(f) != 9 {
				return State{}, fmt.Errorf("status record %q: want 9 fields", rec)
			}
			st.Changed = append(st.Changed, change(f[8], f[1], ""))
		case '2': // 2 XY sub mH mI mW hH hI Xscore path, then the old path
			f := strings.SplitN(rec, " ", 10)
			if len(f) != 10 || i+1 >= len(recs) || len(recs[i+1]) == 0 {
				return State{}, fmt.Errorf("status record %q: want 10 fields and an old path", rec)
			}
			i++
			st.Changed = append(st.Changed, change(f[9], f[1], string(recs[i])))
		case 'u': // u XY sub m1 m2 m3 mW h1 h2 h3 path
			f := strings.SplitN(rec, " ", 11)
			if len(f) != 11 {
				return State{}, fmt.Errorf("status record %q: want 11 fields", rec)
			}
			c := change(f[10], f[1], "")
			c.Status = "U"
			st.Changed = append(st.Changed, c)
		case '?':
			st.Changed = append(st.Changed, FileChange{Path: strings.TrimPrefix(rec, "? "), Status: "?", XY: "??"})
		case '!':
			// Ignored files are listed only on request; not a change.
		default:
			return State{}, fmt.Errorf("status record %q: unknown kind", rec)
		}
	}
	st.Dirty = len(st.Changed) > 0
	return st, nil
}

func change(path, xy, old string) FileChange {
	letter := "M"
	if len(xy) == 2 {
		if xy[0] != '.' {
			letter = xy[:1]
		} else {
			letter = xy[1:]
		}
	}
	return FileChange{Path: path, Status: letter, XY: xy, OldPath: old}
}

// check refuses a Workspace with a field missing, or one that would put an
// option where git expects a name.
func (ws Workspace) check() error {
	if ws.Path == "" || ws.Branch == "" || ws.BaseBranch == "" || ws.BaseCommit == "" {
		return fmt.Errorf("workspace %+v: path, branch, base branch and base commit are all needed", ws)
	}
	if !filepath.IsAbs(ws.Path) {
		// git takes a relative path against its own -C folder, and one
		// starting with "-" as an option.
		return fmt.Errorf("workspace path %q is not absolute", ws.Path)
	}
	for _, s := range []string{ws.Branch, ws.BaseBranch, ws.BaseCommit} {
		if strings.HasPrefix(s, "-") {
			return fmt.Errorf("workspace: %q is not a branch or commit", s)
		}
	}
	return nil
}
