package supervisor

import (
	"fmt"
	"syscall"
	"time"
)

// A session's setup (SPEC §8): a program that prepares a new worktree
// (installs dependencies, generates files) before the agent starts. It runs
// on the session's own terminal, so its output is in the terminal view and
// the recording like the agent's, and the person can answer it if it asks.
// The agent then starts on the same terminal, only if the setup exited 0.
//
// Both run as leaders of their own sessions on one PTY, one after the
// other. The supervisor keeps the PTY's slave side open in between, so the
// read loop does not take the setup's exit for the end of the terminal,
// and closes it once the agent runs (or the setup failed).

// DefaultSetupTimeout bounds a setup: long enough for a cold dependency
// install, short enough that a setup waiting on something that never
// comes ends the start with its output rather than hang it.
const DefaultSetupTimeout = 10 * time.Minute

// Setup is a program to run before the agent.
type Setup struct {
	// Path and Args are run as given, never through a shell: the daemon
	// passes /bin/sh -c only for a command the person typed in the
	// repository's settings.
	Path string
	Args []string
	// Label names it on the terminal: ".switchboard/setup", or the command
	// line.
	Label string
}

// afterSetup is what a session with a setup needs to start its agent.
type afterSetup struct {
	setup Setup
	agent Spec
	// slave is the PTY's slave side, held open until the agent runs.
	slave ptySlave
	// typed says the prompt is typed in once the agent's screen settles.
	typed  bool
	prompt string
	// worktree is named in the message of a failed setup.
	worktree string
	// failed is how the session ended when the agent could not start.
	failed Exit
}

// startSetup opens the session's terminal and starts setup on it, in the
// agent's folder with the agent's environment.
func startSetup(setup Setup, agent Spec) (*Process, *afterSetup, error) {
	master, slave, err := openPTY(agent.Cols, agent.Rows)
	if err != nil {
		return nil, nil, fmt.Errorf("start setup on a pty: %w", err)
	}
	announce(slave, "setup: "+setup.Label)
	p, err := startOn(Spec{Path: setup.Path, Args: setup.Args, Dir: agent.Dir, Env: agent.Env, box: agent.box}, master, slave)
	if err != nil {
		master.Close()
		slave.Close()
		return nil, nil, fmt.Errorf("setup: %w", err)
	}
	return p, &afterSetup{setup: setup, agent: agent, slave: slave}, nil
}

// announce writes a line of Switchboard's own on the terminal, dimmed: it
// reaches the read loop, and so the view and the recording, like the
// programs' output.
func announce(slave ptySlave, text string) {
	slave.Write([]byte("\x1b[2m[switchboard] " + text + "\x1b[0m\r\n"))
}

// runSetup waits for the setup (at most SetupTimeout), ends whatever it
// left running in its process group, and starts the agent if it exited 0
// and no stop came. ok is false when the session ends here, with exit.
func (s *Session) runSetup(next *afterSetup) (exit Exit, ok bool) {
	defer next.slave.Close()
	setup := s.process()
	timeout := s.cfg.SetupTimeout
	timer := time.NewTimer(timeout)
	timedOut := false
	select {
	case <-setup.Done():
		timer.Stop()
	case <-timer.C:
		timedOut = true
		s.endSetup(setup)
	}
	exit = reap(setup)
	exit.Setup = true
	// A setup that started a server in the background is not the agent:
	// nothing of the setup outlives it.
	setup.SignalGroup(syscall.SIGKILL)

	// The terminal is written outside s.mu: a write to a full terminal
	// waits for the read loop, which takes s.mu.
	if exit.Code == 0 && exit.Signal == "" && !timedOut {
		announce(next.slave, "setup done; starting the agent")
		if s.startAgent(next) {
			return Exit{}, true
		}
	}
	s.mu.Lock()
	switch {
	case s.stopping != "":
		exit.Reason = s.stopping + " during setup"
	case timedOut:
		exit.Reason = fmt.Sprintf("setup timed out after %v", timeout)
	case exit.Signal != "":
		exit.Reason = "setup failed: killed by " + exit.Signal
	case exit.Code != 0:
		exit.Reason = fmt.Sprintf("setup failed: exit status %d", exit.Code)
	default:
		exit = next.failed
	}
	s.mu.Unlock()
	msg := exit.Reason + "; the agent was not started"
	if next.worktree != "" {
		msg += ". The worktree is kept: " + next.worktree
	}
	announce(next.slave, msg)
	return exit, false
}

// startAgent starts the agent on the terminal after its setup, unless a
// stop came first. Under s.mu, so a stop either came first or finds the
// agent's process. When the agent cannot start, next.failed says why.
func (s *Session) startAgent(next *afterSetup) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping != "" {
		return false
	}
	agent, err := startOn(next.agent, s.master, next.slave)
	if err != nil {
		next.failed = Exit{Code: -1, Reason: "failed: " + err.Error(), At: time.Now()}
		return false
	}
	s.proc, s.settingUp = agent, false
	if s.procStart, err = ProcStart(agent.PID()); err != nil {
		s.log.Warn("agent start time unknown; a crash would leave it running", "session", s.id, "err", err)
	}
	close(s.agentUp)
	if next.typed {
		go s.typePrompt(next.prompt, time.Now())
	}
	return true
}

// endSetup ends a setup that ran out of time, the way Stop ends an agent:
// terminate (with a hangup), then after the grace period kill.
func (s *Session) endSetup(p *Process) {
	p.SignalGroup(syscall.SIGTERM)
	p.SignalGroup(syscall.SIGHUP)
	t := time.NewTimer(s.cfg.StopGrace)
	defer t.Stop()
	select {
	case <-p.Done():
	case <-t.C:
		p.SignalGroup(syscall.SIGKILL)
		<-p.Done()
	}
}
