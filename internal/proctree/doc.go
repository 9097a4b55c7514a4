// Package proctree finds and ends Windows processes by pid: the start time
// that, with the pid, names one process for good, and a kill of a process
// with everything it started. Unix has process groups for the second; on
// Windows a process started by os/exec cannot be put in a Job Object before
// it runs (exec gives no hook between CreateProcess and the first
// instruction), so the tree is found from the parent pids of a snapshot.
// Its functions exist on Windows only.
package proctree
