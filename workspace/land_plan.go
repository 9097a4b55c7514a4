package workspace

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// What a landing would do, asked before it is done: the person sees the
// target branch, the commits and the files, and says yes once.

// Bounds on a plan: a person reads it in a dialog, and a packet of
// thousands of commits or files says how many more there are.
const (
	maxPlanCommits = 200
	maxPlanFiles   = 1000
)

// PlanRequest names the range a landing would bring onto Target.
type PlanRequest struct {
	// Target is the branch the landing moves.
	Target string
	// From is where the range starts (a packet's first commit's parent);
	// "" means every commit of To that Target lacks, as a merge brings.
	From string
	// To is the range's last commit.
	To string
}

// PlanCommit is one commit a landing brings.
type PlanCommit struct {
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
}

// PlanFile is one path a landing changes, as `git diff --name-status`
// says: A, M, D, T, R (renamed from OldPath) or C (copied from it).
type PlanFile struct {
	Status  string `json:"status"`
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty"`
}

// Plan is what a landing of a range would bring onto its target.
type Plan struct {
	Target string `json:"target"`
	// TargetCommit is the target's tip as the plan was made.
	TargetCommit string `json:"target_commit"`
	// Commits are the range's commits the target lacks, oldest first: at
	// most maxPlanCommits, the newest ones, with MoreCommits saying how
	// many older ones are left out.
	Commits     []PlanCommit `json:"commits"`
	MoreCommits int          `json:"more_commits,omitempty"`
	// Files are the paths the range changes, at most maxPlanFiles, with
	// MoreFiles saying how many are left out.
	Files     []PlanFile `json:"files"`
	MoreFiles int        `json:"more_files,omitempty"`
}

// LandPlan says what landing req's range onto req.Target in the
// repository at repoPath would bring, reading git's objects only: the
// commits (`git log --format=%H%x00%s`, those of the range the target
// lacks) and the files (`git diff --name-status`, From to To; for a
// merge, the target's merge-base with To to To). It moves and writes
// nothing. No commit means the target holds them all: a landing would
// refuse as nothing to land.
func LandPlan(ctx context.Context, repoPath string, req PlanRequest) (Plan, error) {
	p, err := landPlan(ctx, repoPath, req)
	if err != nil {
		return Plan{}, fmt.Errorf("plan the landing of %s onto %s: %w", req.To, req.Target, err)
	}
	return p, nil
}

func landPlan(ctx context.Context, repoPath string, req PlanRequest) (Plan, error) {
	for _, c := range []string{req.From, req.To} {
		if c != "" && !isObjectName(c) {
			return Plan{}, fmt.Errorf("%q is not a full commit name", c)
		}
	}
	if req.To == "" || req.Target == "" || strings.HasPrefix(req.Target, "-") {
		return Plan{}, fmt.Errorf("a plan wants a target branch and a last commit")
	}
	tip, err := resolveCommit(ctx, repoPath, "refs/heads/"+req.Target)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Target: req.Target, TargetCommit: tip, Commits: []PlanCommit{}, Files: []PlanFile{}}

	rng := []string{req.To, "^" + tip}
	if req.From != "" {
		rng = append(rng, "^"+req.From)
	}
	out, err := gitcmd.Run(ctx, repoPath, append([]string{"rev-list", "--count"}, rng...)...)
	if err != nil {
		return Plan{}, fmt.Errorf("count the commits: %w", err)
	}
	total, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return Plan{}, fmt.Errorf("count the commits: %q", out)
	}
	if total > 0 {
		args := append([]string{"log", "--no-color", "--reverse", "--format=%H%x00%s%x00", "--max-count=" + strconv.Itoa(maxPlanCommits)}, rng...)
		out, err = gitcmd.Run(ctx, repoPath, append(args, "--")...)
		if err != nil {
			return Plan{}, fmt.Errorf("list the commits: %w", err)
		}
		f := strings.Split(strings.TrimSpace(string(out)), "\x00")
		for i := 0; i+1 < len(f); i += 2 {
			p.Commits = append(p.Commits, PlanCommit{Commit: strings.TrimSpace(f[i]), Subject: f[i+1]})
		}
		p.MoreCommits = total - len(p.Commits)
	}

	from := req.From
	if from == "" {
		// A merge brings what To has since it and the target parted.
		out, err := gitcmd.Run(ctx, repoPath, "merge-base", tip, req.To)
		if code, ok := gitcmd.ExitCode(err); ok && code == 1 {
			// No common history: everything of To is new, as against
			// the empty tree (of the repository's hash).
			out, err = gitcmd.RunInput(ctx, repoPath, nil, "hash-object", "-t", "tree", "--stdin")
			if err != nil {
				return Plan{}, fmt.Errorf("name the empty tree: %w", err)
			}
			from = strings.TrimSpace(string(out))
		} else if err != nil {
			return Plan{}, fmt.Errorf("merge-base of %s and %s: %w", req.Target, req.To, err)
		} else {
			from = strings.TrimSpace(string(out))
		}
	}
	out, err = gitcmd.Run(ctx, repoPath, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames",
		"--name-status", "-z", from, req.To, "--")
	if err != nil {
		return Plan{}, fmt.Errorf("list the files: %w", err)
	}
	p.Files, p.MoreFiles = parseNameStatus(splitZ(out), maxPlanFiles)
	return p, nil
}

// parseNameStatus reads `git diff --name-status -z` records: a status,
// then one path, or two for a rename or copy (the old path first). It
// keeps at most limit files and counts the rest.
func parseNameStatus(recs []string, limit int) ([]PlanFile, int) {
	files := []PlanFile{}
	more := 0
	for i := 0; i < len(recs); {
		st := recs[i]
		i++
		f := PlanFile{Status: st[:1]}
		if (f.Status == "R" || f.Status == "C") && i+1 < len(recs) {
			f.OldPath, f.Path = recs[i], recs[i+1]
			i += 2
		} else if i < len(recs) {
			f.Path = recs[i]
			i++
		}
		if len(files) < limit {
			files = append(files, f)
		} else {
			more++
		}
	}
	return files, more
}

// isObjectName reports whether s is a full hex object name (SHA-1 or
// SHA-256).
func isObjectName(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}
