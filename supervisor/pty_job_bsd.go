//go:build unix && !linux

package supervisor

// ForegroundJob is not asked of the kernel here (no TIOCGSID on every
// BSD): a shell's status comes from its screen, as other agents' do.
func (p *Process) ForegroundJob() (running, ok bool) { return false, false }
