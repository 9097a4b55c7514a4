package supervisor

import (
	"syscall"

	"github.com/switchboard-dev/switchboard/profile"
)

// A hosted session is one whose agent runs in an agent host
// (docs/agent-host.md): the host owns the terminal, the process set and the
// recording, and this process keeps what a viewer needs, the emulator fed
// from the host's stream of the agent's output, and what the daemon asks
// (status, attention, typed prompts, subscriptions). host_session.go talks
// to the host; what is here is the part every system builds.

// Adopted is what the daemon's store knows of a session the host runs and
// the host does not: Adopt asks for it by session id.
type Adopted struct {
	RepositoryID string
	// Profile is the agent's profile: its ID and whether it takes typed
	// prompts (Nudge) are what the session keeps.
	Profile     profile.Profile
	Permission  profile.Permission
	Confinement Confinement
}

// holds reports whether process pid belongs to the agent's process set
// (Supervisor.Owner).
func (s *Session) holds(pid int) bool {
	if s.hosted != nil {
		return s.hosted.holds(pid)
	}
	return s.process().Holds(pid)
}

// killNow kills the agent's whole process set at once (Supervisor.Close
// after its context ended).
func (s *Session) killNow() {
	if s.hosted != nil {
		s.hosted.kill()
		return
	}
	s.process().SignalGroup(syscall.SIGKILL)
}
