package workspace

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ErrNoGH is returned when gh (the GitHub CLI) is not installed.
var ErrNoGH = errors.New("gh (the GitHub CLI) is not installed")

// PullRequestState asks gh, in repoPath, what became of the pull request at
// url: "OPEN", "MERGED" or "CLOSED" (gh's words). It takes at most gh's
// time (ghTimeout) and reads nothing else.
func PullRequestState(ctx context.Context, repoPath, url string) (string, error) {
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		return "", fmt.Errorf("pull request %q is not a web address", url)
	}
	gh, err := exec.LookPath("gh")
	if err != nil {
		return "", ErrNoGH
	}
	stdout, stderr, err := runGH(ctx, gh, repoPath, "pr", "view", url, "--json", "state", "--jq", ".state")
	if err != nil {
		why := lastLine(stderr)
		if why == "" {
			why = err.Error()
		}
		return "", fmt.Errorf("gh pr view: %s", why)
	}
	state := strings.TrimSpace(lastLine(stdout))
	switch state {
	case "OPEN", "MERGED", "CLOSED":
		return state, nil
	}
	return "", fmt.Errorf("gh pr view answered %q", state)
}
