//go:build unix

package supervisor

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/confine"
	"golang.org/x/sys/unix"
)

// procSet is everything one started process begat, whatever it did to
// leave its process group (a new session, a double fork, a daemon): the
// PID namespace bubblewrap made for it, a cgroup leaf, or at worst its
// process group.
type procSet struct {
	holder string // HoldPIDNamespace, HoldCgroup or HoldGroup
	cg     *confine.Cgroup

	mu       sync.Mutex
	leader   int  // the process started; guarded by mu
	released bool // guarded by mu
}

// command builds the command that starts spec in b: bubblewrap running the
// helper, which takes the terminal in a session of its own and becomes the
// program; or macOS's sandbox-exec, which becomes the program; or the
// helper applying Landlock; or the program itself. Each
// but bubblewrap's starts inside a cgroup leaf where one can be made.
func (b box) command(spec Spec) (*exec.Cmd, *procSet, error) {
	path, args := spec.Path, spec.Args
	attr := &syscall.SysProcAttr{Setsid: true, Setctty: true}
	set := &procSet{holder: HoldGroup}
	switch {
	case b.bwrap != "":
		args = append(confine.BwrapArgs(*b.checked), b.helper)
		args = append(args, confine.HelperArgs(confine.HelperOptions{Session: true, Scope: true}, spec.Path, spec.Args)...)
		path = b.bwrap
		// bubblewrap leads a session without the terminal, so that the
		// agent's own session, inside, can take it: a stop's interrupt
		// then reaches the agent and not bubblewrap, whose death would
		// end the namespace before the agent's grace.
		attr.Setctty = false
		set.holder = HoldPIDNamespace
	case b.seatbelt != "":
		path = b.seatbelt
		args = append(confine.SeatbeltArgs(*b.checked), spec.Path)
		args = append(args, spec.Args...)
	}
	switch {
	case set.holder == HoldPIDNamespace:
	case b.cgroup != "":
		cg, err := confine.NewCgroup(b.cgroup, b.name+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
		if err != nil {
			return nil, nil, fmt.Errorf("hold its processes: %w", err)
		}
		intoCgroup(attr, cg)
		set.cg, set.holder = cg, HoldCgroup
	case b.helper != "" && reapable():
		// Neither a namespace nor a cgroup: the helper stays as the
		// agent's parent and a subreaper, and holds what it starts.
		set.holder = HoldSubreaper
	}
	if ll := b.landlock(); ll != nil || set.holder == HoldSubreaper {
		args = confine.HelperArgs(confine.HelperOptions{Landlock: ll, Reap: set.holder == HoldSubreaper}, spec.Path, spec.Args)
		path = b.helper
	}
	cmd := exec.Command(path, args...)
	cmd.SysProcAttr = attr
	return cmd, set, nil
}

func (s *procSet) started(pid int) {
	s.mu.Lock()
	s.leader = pid
	s.mu.Unlock()
}

func (s *procSet) kind() string { return s.holder }

func (s *procSet) leaderPID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leader
}

// release ends what is left once the leader has exited, and removes the
// cgroup leaf. A PID namespace needs nothing: it ended with its first
// process.
func (s *procSet) release() {
	s.mu.Lock()
	done := s.released
	s.released = true
	s.mu.Unlock()
	if done || s.cg == nil {
		return
	}
	s.cg.Remove(2 * time.Second)
}

// signal sends sig as a terminal would: an interrupt to the foreground
// group of tty, a terminate or a hangup to its session; a kill to the
// whole set.
func (s *procSet) signal(tty *os.File, sig syscall.Signal) error {
	leader := s.leaderPID()
	if sig == syscall.SIGKILL {
		var errs []error
		if s.cg != nil {
			errs = append(errs, s.cg.Kill())
		}
		if s.holder == HoldSubreaper {
			// The helper ends all it holds and exits; the group's kill
			// below would end it first, before it could. A helper that
			// does not exit goes with its group a moment later.
			errs = append(errs, syscall.Kill(leader, syscall.SIGUSR1))
			time.AfterFunc(reaperGrace, func() { killGroup(leader, syscall.SIGKILL) })
			return errors.Join(errs...)
		}
		// bubblewrap and the namespace's first process share its group:
		// killing them ends the namespace, and everything in it.
		errs = append(errs, killGroup(leader, sig))
		return errors.Join(errs...)
	}
	pgrp, sid := ttyGroups(tty)
	var errs []error
	if sig == syscall.SIGINT && pgrp > 0 {
		errs = append(errs, killGroup(pgrp, sig))
	} else if sid > 0 {
		errs = append(errs, killGroup(sid, sig))
		if pgrp > 0 && pgrp != sid {
			errs = append(errs, killGroup(pgrp, sig))
		}
	}
	if s.holder != HoldPIDNamespace && sid != leader {
		// The leader's own group, as before the terminal was asked: a
		// process that gave the terminal up is still in it.
		errs = append(errs, killGroup(leader, sig))
	}
	return errors.Join(errs...)
}

// ttyGroups asks the terminal's controlling side for the foreground
// process group and the session on it (0 when it has none). Through
// SyscallConn: Fd would put the terminal in blocking mode under the read
// loop.
func ttyGroups(tty *os.File) (pgrp, sid int) {
	rc, err := tty.SyscallConn()
	if err != nil {
		return 0, 0
	}
	rc.Control(func(fd uintptr) {
		pgrp, _ = unix.IoctlGetInt(int(fd), unix.TIOCGPGRP)
	})
	if pgrp > 0 {
		// The foreground group's session is the terminal's.
		sid, _ = unix.Getsid(pgrp)
	}
	return pgrp, sid
}

// holds reports whether process pid is in the set.
func (s *procSet) holds(pid int) bool {
	leader := s.leaderPID()
	switch {
	case pid <= 0 || leader <= 0:
		return false
	case s.cg != nil:
		return s.cg.Holds(pid)
	case s.holder == HoldPIDNamespace, s.holder == HoldSubreaper:
		// Orphans in a PID namespace go to its first process, which
		// bubblewrap started, and a subreaper's to the helper: all of
		// it descends from the leader.
		return descends(pid, leader)
	}
	sid, _ := unix.Getsid(pid)
	return sid == leader || descends(pid, leader)
}

// descends reports whether pid is ancestor or one of its descendants, by
// the parent pids in /proc (a bounded walk up).
func descends(pid, ancestor int) bool {
	for range 4096 {
		if pid == ancestor {
			return true
		}
		if pid <= 1 {
			return false
		}
		ppid, err := parentPID(pid)
		if err != nil {
			return false
		}
		pid = ppid
	}
	return false
}

// reaperGrace is how long a subreaper helper has to end what it holds
// after a stop's kill, before its group is killed.
const reaperGrace = 2 * time.Second

// landlock is the Landlock policy the helper applies, nil when b applies
// none (bubblewrap or Seatbelt confines, or nothing does).
func (b box) landlock() *confine.Checked {
	if b.bwrap != "" || b.seatbelt != "" {
		return nil
	}
	return b.checked
}
