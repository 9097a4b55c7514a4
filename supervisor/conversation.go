package supervisor

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// addConversation adds the CLI's conversation id, to start or resume: at a
// start, the profile's Conversation.StartArgs when Switchboard made the id
// (a CLI that picks its own gets nothing, and its id is found afterwards,
// FindConversation); on a resume, its ResumePrefix (a subcommand) and
// ResumeArgs. {conversation_id} is spec.ConversationID (sessionVars).
func addConversation(sv *Supervisor, spec LaunchSpec, vars map[string]string, x *launchExtras) error {
	c := spec.Profile.Conversation
	if spec.Resume {
		switch {
		case !c.CanResume():
			return fmt.Errorf("%s cannot resume a conversation", spec.Profile.ID)
		case spec.ConversationID == "":
			return errors.New("no conversation id to resume")
		}
		for _, t := range c.ResumePrefix {
			x.Prefix = append(x.Prefix, expand(t, vars))
		}
		for _, t := range c.ResumeArgs {
			x.Args = append(x.Args, expand(t, vars))
		}
		return nil
	}
	if !c.Makes() {
		return nil
	}
	if spec.ConversationID == "" {
		return fmt.Errorf("%s takes a conversation id at its start and none was made", spec.Profile.ID)
	}
	for _, t := range c.StartArgs {
		x.Args = append(x.Args, expand(t, vars))
	}
	return nil
}

// ResumePrompt is what a resumed agent is told: the app restarted, its
// conversation goes on, and what became of the packets it held.
func ResumePrompt(sessionID, repositoryID string, held []string) string {
	lease := "Your lease has ended: call work_await_packet with repository_id %q to claim work again (the packet you had, if nobody else took it, comes back to you)."
	lease = fmt.Sprintf(lease, repositoryID)
	if len(held) > 0 {
		lease = "You still hold the lease of " + strings.Join(held, ", ") +
			": carry on with it under the same packet_id and lease_id, then go on with the loop."
	}
	return fmt.Sprintf("Switchboard restarted and resumed this session (%s, repository %s) in the same worktree; "+
		"the switchboard tools are connected again. %s", sessionID, repositoryID, lease)
}

// keepRecording moves an ended run's recording aside before a resume
// records the next run under the session's name: path.1.cast, .2, …
func keepRecording(path string) error {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	base := strings.TrimSuffix(path, ".cast")
	for n := 1; n < 1000; n++ {
		to := base + "." + strconv.Itoa(n) + ".cast"
		if _, err := os.Lstat(to); errors.Is(err, os.ErrNotExist) {
			if err := os.Rename(path, to); err != nil {
				return fmt.Errorf("keep the earlier recording: %w", err)
			}
			return nil
		}
	}
	return errors.New("keep the earlier recording: too many runs")
}
