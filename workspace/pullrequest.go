package workspace

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/gitcmd"
)

// PullRequest pushes the branch to the repository's remote and opens a
// pull request for it with the GitHub CLI (gh) when it is installed and
// signed in. The base branch does not move: it moves when someone merges
// the pull request, wherever that is done.
const PullRequest Mode = "pull-request"

// DefaultRemote is the remote a pull request is pushed to when none is
// configured.
const DefaultRemote = "origin"

// ErrNoRemote is returned when the repository has no remote of the name
// asked for; nothing was pushed.
var ErrNoRemote = errors.New("no such remote")

// ErrPushRejected is returned when the remote refused the push (its
// branch has commits the packet lacks, a hook said no); nothing changed
// there.
var ErrPushRejected = errors.New("the remote refused the push")

const (
	// pushTimeout bounds the push, over whatever network the remote is
	// on; a caller's shorter deadline wins.
	pushTimeout = 2 * time.Minute
	// ghTimeout bounds each gh call.
	ghTimeout = time.Minute
	// maxGHOutput is how much of gh's output is kept: a URL and a few
	// lines of reason.
	maxGHOutput = 64 << 10
	// maxURL bounds the pull request's address.
	maxURL = 2048
	// ghStopGrace is how long gh gets after SIGTERM before it is killed.
	ghStopGrace = 5 * time.Second
)

// PullRequestRequest says what to push and what to open.
type PullRequestRequest struct {
	// Remote is the remote's name; "" is DefaultRemote.
	Remote string
	// Title is the pull request's title; required.
	Title string
	// Body is its description.
	Body string
	// To is the commit to push as the branch, on ws.Branch (a packet's
	// last commit when the session went on to others); "" is the branch's
	// tip.
	To string
	// From is where the packet's own commits start (its range's start);
	// "" for a branch whose every commit the base lacks is the packet's.
	// A pull request carries the branch up to To, so one whose From the
	// base branch lacks would carry another packet's commits: refused,
	// ErrCarriesOthers.
	From string
}

// ErrCarriesOthers is a pull request refused because the branch under the
// packet's commits holds commits the base branch lacks: another packet's.
var ErrCarriesOthers = errors.New("the branch holds commits under the packet's that the base branch lacks")

// Pushed is a branch pushed for a pull request.
type Pushed struct {
	// Commit is what the remote's branch points at now.
	Commit string `json:"commit"`
	Remote string `json:"remote"`
	Branch string `json:"branch"`
	// URL is the pull request's address; "" when none was opened.
	URL string `json:"url,omitempty"`
	// Note says why there is no URL (gh is not installed, not signed in,
	// or failed and why), or is "" when there is one.
	Note string `json:"note,omitempty"`
}

// OpenPullRequest pushes ws.Branch (up to req.To) to the remote under
// the same name with `git push <remote> <commit>:refs/heads/<branch>`, a
// fast-forward only (never forced), then, when `gh` is on PATH and `gh auth
// status` succeeds, runs `gh pr create --base <base> --head <branch>` in
// repoPath and reads the pull request's address from what it prints. A
// failed push is an error (ErrNoRemote, ErrPushRejected), and so is a
// branch the base already holds (ErrNothingToLand), which is not pushed;
// a missing, signed-out or failing gh is not: the branch is on the remote
// and Pushed.Note says why no pull request was opened. Neither the base
// branch nor any work tree changes.
func OpenPullRequest(ctx context.Context, repoPath string, ws Workspace, req PullRequestRequest) (Pushed, error) {
	p, err := openPullRequest(ctx, repoPath, ws, req)
	if err != nil {
		return Pushed{}, fmt.Errorf("pull request of %s into %s: %w", ws.Branch, ws.BaseBranch, err)
	}
	return p, nil
}

func openPullRequest(ctx context.Context, repoPath string, ws Workspace, req PullRequestRequest) (Pushed, error) {
	if err := ws.check(); err != nil {
		return Pushed{}, err
	}
	remote := req.Remote
	if remote == "" {
		remote = DefaultRemote
	}
	if strings.HasPrefix(remote, "-") || strings.ContainsFunc(remote, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return Pushed{}, fmt.Errorf("remote %q is not a remote's name", remote)
	}
	if strings.TrimSpace(req.Title) == "" {
		return Pushed{}, errors.New("the pull request's title is empty")
	}
	if _, err := gitcmd.Run(ctx, repoPath, "remote", "get-url", remote); err != nil {
		if _, exited := gitcmd.ExitCode(err); exited {
			return Pushed{}, fmt.Errorf("%w: %s in %s", ErrNoRemote, remote, repoPath)
		}
		return Pushed{}, fmt.Errorf("remote %s: %w", remote, err)
	}
	commit, err := resolveCommit(ctx, repoPath, "refs/heads/"+ws.Branch)
	if err != nil {
		return Pushed{}, err
	}
	if req.To != "" {
		if len(req.To) < 40 || strings.Trim(req.To, "0123456789abcdef") != "" {
			return Pushed{}, fmt.Errorf("push up to %q: want a full commit id", req.To)
		}
		if on, err := isAncestor(ctx, repoPath, req.To, commit); err != nil {
			return Pushed{}, err
		} else if !on {
			return Pushed{}, fmt.Errorf("push up to %s: not a commit of %s", req.To, ws.Branch)
		}
		commit = req.To
	}
	if req.From != "" {
		if on, err := isAncestor(ctx, repoPath, req.From, "refs/heads/"+ws.BaseBranch); err != nil {
			return Pushed{}, err
		} else if !on {
			return Pushed{}, ErrCarriesOthers
		}
	}
	// A pull request of nothing new: gh would refuse it after the push.
	if landed, err := isAncestor(ctx, repoPath, commit, "refs/heads/"+ws.BaseBranch); err != nil {
		return Pushed{}, err
	} else if landed {
		return Pushed{}, fmt.Errorf("%w: %s already has every commit of %s", ErrNothingToLand, ws.BaseBranch, ws.Branch)
	}
	pctx, cancel := context.WithTimeout(ctx, pushTimeout)
	defer cancel()
	// A commit id as the source needs the destination's full name. No
	// "+": a remote branch with commits of its own refuses, and keeps
	// them.
	if _, err := gitcmd.Run(pctx, repoPath, "push", "--quiet", remote, commit+":refs/heads/"+ws.Branch); err != nil {
		if code, exited := gitcmd.ExitCode(err); exited && code == 1 {
			return Pushed{}, fmt.Errorf("%w: %v", ErrPushRejected, err)
		}
		return Pushed{}, fmt.Errorf("push to %s: %w", remote, err)
	}
	p := Pushed{Commit: commit, Remote: remote, Branch: ws.Branch}
	p.URL, p.Note = createPR(ctx, repoPath, ws, req)
	return p, nil
}

// createPR opens the pull request with gh and returns its address, or ""
// and why not.
func createPR(ctx context.Context, repoPath string, ws Workspace, req PullRequestRequest) (string, string) {
	gh, err := exec.LookPath("gh")
	if err != nil {
		return "", "gh (the GitHub CLI) is not installed: open the pull request by hand"
	}
	if _, _, err := runGH(ctx, gh, repoPath, "auth", "status"); err != nil {
		// What gh auth status prints names accounts and tokens' scopes:
		// none of it goes into the note.
		return "", "gh is not signed in (gh auth login): open the pull request by hand"
	}
	stdout, stderr, err := runGH(ctx, gh, repoPath, "pr", "create",
		"--base", ws.BaseBranch, "--head", ws.Branch, "--title", req.Title, "--body", req.Body)
	u := lastURL(stdout)
	if err != nil {
		why := lastLine(stderr)
		if why == "" {
			why = err.Error()
		}
		// gh names an open pull request for the branch in its refusal.
		if u == "" {
			u = lastURL(stderr)
		}
		return u, "gh pr create failed: " + why
	}
	if u == "" {
		return "", "gh pr create printed no address"
	}
	return u, ""
}

// runGH runs gh with args in dir, with no terminal to prompt on, under
// ghTimeout, and returns the end of what it printed.
func runGH(ctx context.Context, gh, dir string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(ctx, ghTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, gh, args...)
	cmd.Dir = dir
	cmd.Env = ghEnviron(os.Environ())
	stdout, stderr := &boundedBuffer{max: maxGHOutput}, &boundedBuffer{max: maxGHOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// As for git: a cancel reaches what gh started (git, a credential
	// helper) too.
	gitcmd.StopAsGroup(cmd, ghStopGrace)
	err := cmd.Run()
	if ctx.Err() != nil && err != nil {
		err = fmt.Errorf("gh %s: %w", args[0], ctx.Err())
	}
	return string(stdout.buf), string(stderr.buf), err
}

// ghEnviron is parent without the git variables that would point gh's
// own git calls at another repository, without the app's own secrets, and
// with every prompt, pager, colour and update check off. gh keeps the rest
// of the person's environment: it reads its token (GH_TOKEN, GITHUB_TOKEN,
// GH_HOST, GH_CONFIG_DIR) and their proxy from there. The gits gh runs in
// the person's checkout get gitcmd's configuration (no hook, no
// fsmonitor), as Switchboard's own do.
func ghEnviron(parent []string) []string {
	env := make([]string, 0, len(parent)+12)
	for _, kv := range parent {
		name, _, _ := strings.Cut(kv, "=")
		if appSecret(name) || gitcmd.IsConfigVar(name) {
			continue
		}
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
			"GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_PREFIX", "GH_PAGER", "PAGER":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GH_PROMPT_DISABLED=1", "GH_NO_UPDATE_NOTIFIER=1", "GH_SPINNER_DISABLED=1",
		"NO_COLOR=1", "GH_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	return append(env, gitcmd.SafeConfigEnv()...)
}

// appSecret reports whether an inherited variable is the app's own, which
// a program it starts has no use for: Switchboard's settings and tokens,
// and the team database's address and password.
func appSecret(name string) bool {
	return strings.HasPrefix(name, "SWITCHBOARD_") || strings.HasPrefix(name, "PG") || name == "DATABASE_URL"
}

// lastURL returns the last line of s that is an http(s) address, or "".
func lastURL(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if len(l) > maxURL || !strings.HasPrefix(l, "https://") && !strings.HasPrefix(l, "http://") {
			continue
		}
		if u, err := url.Parse(l); err == nil && u.Host != "" && u.User == nil {
			return u.String()
		}
	}
	return ""
}

// lastLine returns the last non-blank line of s, at most 300 bytes of it.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 300 {
		l = strings.ToValidUTF8(l[:300], "") + "…"
	}
	return l
}

// boundedBuffer keeps the first max bytes written to it and drops the
// rest, so that a runaway gh cannot fill memory; gh is not stopped, its
// extra output is only not kept.
type boundedBuffer struct {
	buf []byte
	max int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
