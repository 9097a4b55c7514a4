package supervisor

import (
	"strings"
	"sync"
	"unicode/utf16"
)

// What the Windows terminal (pty_windows.go) needs that is plain logic, in
// a file of its own so its tests run on every OS: the count of a pseudo
// console's holders and the environment block CreateProcess takes.

// holdCount counts what keeps a pseudo console open: Switchboard's own
// hold (the Unix slave side, kept between a setup and its agent) and each
// process still running on it. ConPTY does not end its output when the
// last program exits, as a Unix terminal does; the supervisor's read loop
// waits for that end, so the console is closed when the count falls to
// zero, and once closed it stays closed.
type holdCount struct {
	mu     sync.Mutex
	n      int // guarded by mu
	onZero func()
}

// newHoldCount starts the count at one hold (the caller's).
func newHoldCount(onZero func()) *holdCount { return &holdCount{n: 1, onZero: onZero} }

// acquire adds a hold; false once the count has reached zero, when there
// is nothing left to hold.
func (h *holdCount) acquire() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == 0 {
		return false
	}
	h.n++
	return true
}

// release drops a hold; the last one runs onZero, outside the lock (it may
// wait for the console host to drain).
func (h *holdCount) release() {
	h.mu.Lock()
	if h.n == 0 {
		h.mu.Unlock()
		return
	}
	h.n--
	last := h.n == 0
	h.mu.Unlock()
	if last {
		h.onZero()
	}
}

// windowsEnvBlock is env as CreateProcess takes it with
// CREATE_UNICODE_ENVIRONMENT: NAME=value strings in UTF-16, each ended by
// a NUL, the block by one more. As os/exec does on Windows, names are
// compared without case and the last of a name wins, entries with a NUL
// (which would cut the block short) are dropped, and SYSTEMROOT is added
// from systemRoot when env lacks it: without it many programs fail to
// start (winsock, crypto).
func windowsEnvBlock(env []string, systemRoot string) []uint16 {
	last := map[string]int{}
	for i, kv := range env {
		if strings.IndexByte(kv, 0) >= 0 {
			continue
		}
		last[strings.ToUpper(envName(kv))] = i
	}
	var block []uint16
	for i, kv := range env {
		if j, ok := last[strings.ToUpper(envName(kv))]; !ok || j != i || strings.IndexByte(kv, 0) >= 0 {
			continue
		}
		block = append(block, utf16.Encode([]rune(kv))...)
		block = append(block, 0)
	}
	if _, ok := last["SYSTEMROOT"]; !ok && systemRoot != "" {
		block = append(block, utf16.Encode([]rune("SYSTEMROOT="+systemRoot))...)
		block = append(block, 0)
	}
	if len(block) == 0 {
		// An empty block is still two NULs.
		block = append(block, 0)
	}
	return append(block, 0)
}

// envName is the name of a NAME=value entry. Windows keeps per-drive
// folders in entries like "=C:=C:\x": their name starts after the first
// '='.
func envName(kv string) string {
	if kv == "" {
		return ""
	}
	if i := strings.IndexByte(kv[1:], '='); i >= 0 {
		return kv[:i+1]
	}
	return kv
}
