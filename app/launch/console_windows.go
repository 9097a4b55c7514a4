package launch

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// detachOwnConsole closes the console window Windows opened for this
// program, when nothing else uses it. The Windows build is a console
// program, not -H=windowsgui, so that `switchboard status` and the other
// commands print, wait and exit with a code in cmd and PowerShell like any
// CLI; the price is a console window when the tray is started from
// Explorer or at login. That console is ours alone (a shell's console lists
// the shell too), and the tray lets it go.
func detachOwnConsole() {
	kernel32 := windows.NewLazySystemDLL("kernel32.dll")
	list := kernel32.NewProc("GetConsoleProcessList")
	if list.Find() != nil {
		return
	}
	var pids [2]uint32
	n, _, _ := list.Call(uintptr(unsafe.Pointer(&pids[0])), uintptr(len(pids)))
	if n == 1 {
		kernel32.NewProc("FreeConsole").Call()
	}
}
