package cli

import (
	"os"

	"golang.org/x/sys/windows"
)

// makeRaw puts the console on f in raw mode, as attach needs (every key,
// Ctrl-C included, goes to the agent, as VT sequences: the agent runs
// under ConPTY and reads them), and the console's output into VT mode so
// the agent's screen is drawn rather than printed as escapes. It returns
// what restores both.
func makeRaw(f *os.File) (func(), error) {
	in := windows.Handle(f.Fd())
	var inMode uint32
	if err := windows.GetConsoleMode(in, &inMode); err != nil {
		return nil, err
	}
	raw := inMode&^(windows.ENABLE_ECHO_INPUT|windows.ENABLE_LINE_INPUT|windows.ENABLE_PROCESSED_INPUT) |
		windows.ENABLE_VIRTUAL_TERMINAL_INPUT
	if err := windows.SetConsoleMode(in, raw); err != nil {
		return nil, err
	}
	restoreOut := func() {}
	if out, err := windows.GetStdHandle(windows.STD_OUTPUT_HANDLE); err == nil {
		var outMode uint32
		if windows.GetConsoleMode(out, &outMode) == nil &&
			windows.SetConsoleMode(out, outMode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING|windows.DISABLE_NEWLINE_AUTO_RETURN) == nil {
			restoreOut = func() { windows.SetConsoleMode(out, outMode) }
		}
	}
	return func() {
		windows.SetConsoleMode(in, inMode)
		restoreOut()
	}, nil
}
