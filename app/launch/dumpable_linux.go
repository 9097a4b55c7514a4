package launch

import "golang.org/x/sys/unix"

// notDumpable clears the process's dumpable flag: /proc/PID/environ, mem
// and maps become root's, ptrace is refused, and no core is written.
func notDumpable() { unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
