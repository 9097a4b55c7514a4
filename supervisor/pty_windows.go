package supervisor

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/switchboard-dev/switchboard/internal/proctree"
)

// The Windows terminal: a ConPTY pseudo console. The agent's console is
// rendered by the console host (conhost) as VT sequences into an output
// pipe we read, and what we write into an input pipe reaches it as keys.
// The session sees the same master (read, write, close) and slave (write,
// close) as on Unix.
//
// Two things differ from a Unix pty, and both are bridged here:
//   - ConPTY does not end its output when the last program exits: conhost
//     holds the pipe until ClosePseudoConsole. The console keeps a count
//     of its holders (our slave side and each running process) and is
//     closed when it falls to zero, which ends the read loop as EIO does
//     on Linux.
//   - There are no signals. Stop's interrupt and terminate are a Ctrl-C
//     (ETX) typed into the console, which conhost turns into a
//     CTRL_C_EVENT for every process on it (or a Ctrl-C key for a program
//     in raw mode, as Claude Code and Codex are: two of them end both);
//     the kill ends the process's Job Object, and so everything it started.
//     GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT) would need the supervisor
//     on the agent's console, which it is not, so agents do not start with
//     CREATE_NEW_PROCESS_GROUP either: that flag makes a process ignore
//     Ctrl-C, the one interrupt that does reach it.

// ptyMaster is the controlling side of a console: output read from it,
// input written to it. ptySlave is Switchboard's hold on the console, with
// a way to write a line of its own into the output.
type (
	ptyMaster = *conMaster
	ptySlave  = *conSlave
)

// killExitCode is the exit code TerminateJobObject gives the processes a
// kill ends: 128+9, the code a shell reports for SIGKILL.
const killExitCode = 137

// console is one pseudo console and our ends of its pipes.
type console struct {
	// mu guards hpc, which is 0 once closed: ClosePseudoConsole frees
	// what the handle points to, so a resize or a start after it would
	// touch freed memory.
	mu  sync.Mutex
	hpc windows.Handle
	in  *os.File // write end of the input pipe
	out *os.File // read end of the output pipe
	// outW is our copy of the output pipe's write end: announce writes
	// there, between conhost's frames.
	outW  *os.File
	holds *holdCount
}

// errConsoleClosed is what using a console after its close gives.
var errConsoleClosed = errors.New("the pseudo console is closed")

// use runs f with the console's handle, while the console cannot close.
func (c *console) use(f func(hpc windows.Handle) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hpc == 0 {
		return errConsoleClosed
	}
	return f(c.hpc)
}

// close ends the console: conhost flushes what it has rendered, signals
// CTRL_CLOSE_EVENT to what still runs on it and lets go of the output
// pipe; with our copy closed too, the reader gets the end. Called by the
// last holder, or by the master's Close; the second call does nothing.
// ClosePseudoConsole may wait for the reader to drain the output, so it is
// called outside mu.
func (c *console) close() {
	c.mu.Lock()
	hpc := c.hpc
	c.hpc = 0
	c.mu.Unlock()
	if hpc == 0 {
		return
	}
	windows.ClosePseudoConsole(hpc)
	c.outW.Close()
}

// conMaster is the master side of a console.
type conMaster struct{ c *console }

func (m *conMaster) Read(b []byte) (int, error)  { return m.c.out.Read(b) }
func (m *conMaster) Write(b []byte) (int, error) { return m.c.in.Write(b) }

// Close ends the console, then closes our pipe ends. The console first: a
// Read in progress returns on the end of the output, and closing a pipe
// file waits for it.
func (m *conMaster) Close() error {
	m.c.close()
	return errors.Join(m.c.in.Close(), m.c.out.Close())
}

// conSlave is Switchboard's own hold on a console.
type conSlave struct {
	c    *console
	once sync.Once
}

// Write puts p in the console's output as if a program had printed it.
func (s *conSlave) Write(p []byte) (int, error) { return s.c.outW.Write(p) }

// Close drops the hold; the console closes once no process runs on it.
func (s *conSlave) Close() error {
	s.once.Do(s.c.holds.release)
	return nil
}

// consoleSize is cols×rows as ConPTY takes it (0: 80×24).
func consoleSize(cols, rows uint16) windows.Coord {
	if cols == 0 || rows == 0 {
		cols, rows = 80, 24
	}
	return windows.Coord{X: int16(min(cols, 0x7fff)), Y: int16(min(rows, 0x7fff))}
}

// openPTY opens a pseudo console of size cols×rows (0: 80×24).
func openPTY(cols, rows uint16) (*conMaster, *conSlave, error) {
	var inR, inW, outR, outW windows.Handle
	if err := windows.CreatePipe(&inR, &inW, nil, 0); err != nil {
		return nil, nil, fmt.Errorf("create console input pipe: %w", err)
	}
	if err := windows.CreatePipe(&outR, &outW, nil, 0); err != nil {
		windows.CloseHandle(inR)
		windows.CloseHandle(inW)
		return nil, nil, fmt.Errorf("create console output pipe: %w", err)
	}
	var hpc windows.Handle
	err := windows.CreatePseudoConsole(consoleSize(cols, rows), inR, outW, 0, &hpc)
	// conhost has its own copy of the input's read end.
	windows.CloseHandle(inR)
	if err != nil {
		for _, h := range []windows.Handle{inW, outR, outW} {
			windows.CloseHandle(h)
		}
		return nil, nil, fmt.Errorf("create pseudo console: %w", err)
	}
	c := &console{
		hpc:  hpc,
		in:   os.NewFile(uintptr(inW), "conpty-in"),
		out:  os.NewFile(uintptr(outR), "conpty-out"),
		outW: os.NewFile(uintptr(outW), "conpty-out-w"),
	}
	c.holds = newHoldCount(c.close)
	return &conMaster{c}, &conSlave{c: c}, nil
}

// Process is a command running on a pseudo console in a Job Object of its
// own, which lets a kill reach everything it started.
type Process struct {
	master *conMaster
	pid    int
	done   chan struct{}
	// code and err are the wait's result; written before done is closed.
	code uint32
	err  error

	mu     sync.Mutex
	job    windows.Handle // guarded by mu; 0 without a job or once ended
	killed bool           // guarded by mu: a kill came before the exit
}

// startOn starts spec on an open console. Several processes may run on one
// console this way, one after the other (a setup, then the agent): the
// caller keeps slave between them, and drops it once the last one has
// started. The Process shares master; only the last one's Close should be
// called.
func startOn(spec Spec, master *conMaster, slave *conSlave) (*Process, error) {
	c := master.c
	if !c.holds.acquire() {
		return nil, fmt.Errorf("start %s on a pseudo console: the console is closed", spec.Path)
	}
	p, err := createOn(spec, c)
	if err != nil {
		c.holds.release()
		return nil, fmt.Errorf("start %s on a pseudo console: %w", spec.Path, err)
	}
	p.master = master
	return p, nil
}

// createOn creates the process of spec attached to console c, suspended
// until it is in its Job Object, and starts its waiter.
func createOn(spec Spec, c *console) (*Process, error) {
	path, err := resolvePath(spec.Path, spec.Dir)
	if err != nil {
		return nil, err
	}
	app, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	cmdline, err := windows.UTF16PtrFromString(windows.ComposeCommandLine(append([]string{spec.Path}, spec.Args...)))
	if err != nil {
		return nil, err
	}
	var dir *uint16
	if spec.Dir != "" {
		if dir, err = windows.UTF16PtrFromString(spec.Dir); err != nil {
			return nil, err
		}
	}
	env := spec.Env
	if env == nil {
		env = os.Environ()
	}
	block := windowsEnvBlock(env, os.Getenv("SYSTEMROOT"))

	var pi windows.ProcessInformation
	if err := c.use(func(hpc windows.Handle) error {
		return createAttached(hpc, app, cmdline, dir, block, &pi)
	}); err != nil {
		return nil, err
	}
	defer windows.CloseHandle(pi.Thread)
	job := newJob(pi.Process)
	if _, err := windows.ResumeThread(pi.Thread); err != nil {
		windows.TerminateProcess(pi.Process, killExitCode)
		windows.CloseHandle(pi.Process)
		if job != 0 {
			windows.CloseHandle(job)
		}
		return nil, fmt.Errorf("resume process: %w", err)
	}
	p := &Process{pid: int(pi.ProcessId), done: make(chan struct{}), job: job}
	go p.wait(pi.Process, c)
	return p, nil
}

// createAttached creates the process, suspended, on pseudo console hpc.
func createAttached(hpc windows.Handle, app, cmdline, dir *uint16, env []uint16, pi *windows.ProcessInformation) error {
	attrs, err := windows.NewProcThreadAttributeList(1)
	if err != nil {
		return fmt.Errorf("attribute list: %w", err)
	}
	defer attrs.Delete()
	// The attribute's value is the console handle itself, not a pointer
	// to it (UpdateProcThreadAttribute's lpValue is the HPCON). It points
	// outside Go's heap, so the list keeping it as a pointer is harmless.
	if err := attrs.Update(windows.PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE, *(*unsafe.Pointer)(unsafe.Pointer(&hpc)), unsafe.Sizeof(hpc)); err != nil {
		return fmt.Errorf("attach to the pseudo console: %w", err)
	}
	si := windows.StartupInfoEx{ProcThreadAttributeList: attrs.List()}
	si.Cb = uint32(unsafe.Sizeof(si))
	// Invalid standard handles, explicitly: otherwise a child can pick up
	// ours (a daemon's log file) instead of the console's.
	si.Flags = windows.STARTF_USESTDHANDLES
	si.StdInput, si.StdOutput, si.StdErr = windows.InvalidHandle, windows.InvalidHandle, windows.InvalidHandle
	flags := uint32(windows.EXTENDED_STARTUPINFO_PRESENT | windows.CREATE_UNICODE_ENVIRONMENT | windows.CREATE_SUSPENDED)
	if err := windows.CreateProcess(app, cmdline, nil, nil, false, flags, &env[0], dir, &si.StartupInfo, pi); err != nil {
		return fmt.Errorf("create process: %w", err)
	}
	return nil
}

// newJob puts process in a new Job Object that ends everything in it when
// its last handle closes, and returns the job; 0 when that fails (a job
// Windows will not nest), and the kill falls back to the process tree.
func newJob(process windows.Handle) windows.Handle {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0
	}
	if err := windows.AssignProcessToJobObject(job, process); err != nil {
		windows.CloseHandle(job)
		return 0
	}
	return job
}

// resolvePath finds the program as os/exec would: a bare name on PATH
// (with PATHEXT), a relative path from dir.
func resolvePath(path, dir string) (string, error) {
	if !strings.ContainsAny(path, `\/:`) {
		found, err := exec.LookPath(path)
		if err != nil {
			return "", err
		}
		return found, nil
	}
	if dir != "" && !filepath.IsAbs(path) {
		return filepath.Join(dir, path), nil
	}
	return path, nil
}

// wait waits for the process, keeps its exit code, and drops its hold on
// the console.
func (p *Process) wait(h windows.Handle, c *console) {
	defer c.holds.release()
	defer close(p.done)
	defer windows.CloseHandle(h)
	if _, err := windows.WaitForSingleObject(h, windows.INFINITE); err != nil {
		p.err = fmt.Errorf("wait for process %d: %w", p.pid, err)
		return
	}
	if err := windows.GetExitCodeProcess(h, &p.code); err != nil {
		p.err = fmt.Errorf("exit code of process %d: %w", p.pid, err)
	}
}

// PTY is the controlling side of the console.
func (p *Process) PTY() *conMaster { return p.master }

// PID is the child's process id.
func (p *Process) PID() int { return p.pid }

// ForegroundJob is unknown on Windows: a console has no process groups to
// ask about.
func (p *Process) ForegroundJob() (running, ok bool) { return false, false }

// Resize changes the console size; the program gets a
// WINDOW_BUFFER_SIZE_EVENT.
func (p *Process) Resize(cols, rows uint16) error {
	if err := p.master.c.use(func(hpc windows.Handle) error {
		return windows.ResizePseudoConsole(hpc, consoleSize(cols, rows))
	}); err != nil {
		return fmt.Errorf("resize pseudo console: %w", err)
	}
	return nil
}

// SignalGroup is the Windows form of signalling the child's process
// group (see the note at the top): SIGINT and SIGTERM type a Ctrl-C into
// the console, SIGHUP does nothing (the console's close, which is the
// hangup, comes with the session's end), SIGKILL ends the Job Object.
func (p *Process) SignalGroup(sig syscall.Signal) error {
	switch sig {
	case syscall.SIGINT, syscall.SIGTERM:
		if _, err := p.master.c.in.Write([]byte{0x03}); err != nil {
			return fmt.Errorf("type Ctrl-C into the console of process %d: %w", p.pid, err)
		}
		return nil
	case syscall.SIGHUP:
		return nil
	case syscall.SIGKILL:
		return p.kill()
	}
	return fmt.Errorf("signal %v: not supported on Windows", sig)
}

// kill ends the process and everything it started. The job ends with the
// kill: a terminated job has nothing left to end.
func (p *Process) kill() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
	default:
		p.killed = true
	}
	if p.job == 0 {
		if err := proctree.KillTree(p.pid); err != nil {
			return fmt.Errorf("end process tree %d: %w", p.pid, err)
		}
		return nil
	}
	err := windows.TerminateJobObject(p.job, killExitCode)
	windows.CloseHandle(p.job)
	p.job = 0
	if err != nil {
		return fmt.Errorf("end the job of process %d: %w", p.pid, err)
	}
	return nil
}

// Close releases the console and the Job Object. What still runs on the
// console gets CTRL_CLOSE_EVENT, and what is left in the job is ended with
// the job's last handle, as a Unix terminal's close hangs up its programs.
func (p *Process) Close() error {
	p.mu.Lock()
	if p.job != 0 {
		windows.CloseHandle(p.job)
		p.job = 0
	}
	p.mu.Unlock()
	return p.master.Close()
}

// exitCode is Wait's answer once the child has exited: its exit code, -1
// when a kill ended it.
func (p *Process) exitCode() (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	if _, killed := p.exitSignal(); killed {
		return -1, nil
	}
	return int(p.code), nil
}

// exitSignal says "killed" when the kill ended the child: Windows has no
// signals, but the session reports a kill the same way on every OS.
func (p *Process) exitSignal() (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.killed && p.code == killExitCode {
		return syscall.SIGKILL.String(), true
	}
	return "", false
}

// Holds reports whether pid is the process itself: the Job Object holds
// its tree, but this is not yet asked of it.
func (p *Process) Holds(pid int) bool { return pid == p.pid }

// Holder names what holds the process's tree.
func (p *Process) Holder() string { return "job object" }
