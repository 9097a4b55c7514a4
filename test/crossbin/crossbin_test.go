// Package crossbin checks the executables `make cross` builds for the
// systems this machine cannot run: that each is an executable of the right
// format and CPU, and that the Windows one is the whole app (Fyne's OpenGL
// driver linked in) while the macOS ones are the headless daemon. `make
// cross` sets SWITCHBOARD_CROSS_BIN to the folder they are in; without it
// the checks of the files skip, and only the checkers' own test runs.
package crossbin

import (
	"debug/macho"
	"debug/pe"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// checkWindows checks that path is a PE32+ executable for amd64 with the
// console subsystem (the CLI must print; see app/launch/console_windows.go)
// that imports OpenGL, which only Fyne's driver does.
func checkWindows(path string) error {
	f, err := pe.Open(path)
	if err != nil {
		return fmt.Errorf("open as PE: %w", err)
	}
	defer f.Close()
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		return fmt.Errorf("machine %#x, want IMAGE_FILE_MACHINE_AMD64", f.Machine)
	}
	if f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
		return errors.New("not an executable image")
	}
	oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok || oh.Magic != 0x20b {
		return errors.New("optional header is not PE32+")
	}
	if oh.Subsystem != pe.IMAGE_SUBSYSTEM_WINDOWS_CUI {
		return fmt.Errorf("subsystem %d, want the console (%d)", oh.Subsystem, pe.IMAGE_SUBSYSTEM_WINDOWS_CUI)
	}
	// Symbols come as "name:library" (debug/pe lists no libraries).
	syms, err := f.ImportedSymbols()
	if err != nil {
		return fmt.Errorf("imported symbols: %w", err)
	}
	if !slices.ContainsFunc(syms, func(s string) bool { return strings.HasSuffix(strings.ToLower(s), ":opengl32.dll") }) {
		return fmt.Errorf("imports %d symbols, none from opengl32.dll: Fyne's driver is not in", len(syms))
	}
	return nil
}

// checkDarwin checks that path is a Mach-O executable for cpu that links
// nothing a GUI would: the headless daemon, without cgo, needs libSystem
// and the two frameworks Go's crypto/x509 asks for the system's roots.
func checkDarwin(path string, cpu macho.Cpu) error {
	f, err := macho.Open(path)
	if err != nil {
		return fmt.Errorf("open as Mach-O: %w", err)
	}
	defer f.Close()
	if f.Cpu != cpu {
		return fmt.Errorf("CPU %v, want %v", f.Cpu, cpu)
	}
	if f.Type != macho.TypeExec {
		return fmt.Errorf("file type %v, want an executable", f.Type)
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return fmt.Errorf("imported libraries: %w", err)
	}
	for _, l := range libs {
		if !strings.HasPrefix(l, "/usr/lib/") && !slices.Contains(darwinFrameworks, l) {
			return fmt.Errorf("links %s: not the headless build", l)
		}
	}
	return nil
}

// darwinFrameworks are the frameworks a cgo-free Go program links on macOS
// (crypto/x509 reads the keychain's roots through them).
var darwinFrameworks = []string{
	"/System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation",
	"/System/Library/Frameworks/Security.framework/Versions/A/Security",
}

func TestCrossBinaries(t *testing.T) {
	dir := os.Getenv("SWITCHBOARD_CROSS_BIN")
	if dir == "" {
		t.Skip("SWITCHBOARD_CROSS_BIN unset: `make cross` builds the binaries and runs this")
	}
	for _, tt := range []struct {
		file  string
		check func(string) error
	}{
		{"switchboard-windows-amd64.exe", checkWindows},
		{"switchboard-darwin-amd64", func(p string) error { return checkDarwin(p, macho.CpuAmd64) }},
		{"switchboard-darwin-arm64", func(p string) error { return checkDarwin(p, macho.CpuArm64) }},
	} {
		t.Run(tt.file, func(t *testing.T) {
			if err := tt.check(filepath.Join(dir, tt.file)); err != nil {
				t.Error(err)
			}
		})
	}
}

// The checkers refuse what they are not looking for: this test's own
// executable (the build machine's format), and a Mach-O of the other CPU
// when one was built.
func TestCheckersRefuse(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkWindows(self); err == nil && filepath.Ext(self) != ".exe" {
		t.Errorf("checkWindows accepted %s", self)
	}
	for _, cpu := range []macho.Cpu{macho.CpuAmd64, macho.CpuArm64} {
		if err := checkDarwin(self, cpu); err == nil {
			t.Errorf("checkDarwin(%v) accepted %s", cpu, self)
		}
	}
	if dir := os.Getenv("SWITCHBOARD_CROSS_BIN"); dir != "" {
		if err := checkDarwin(filepath.Join(dir, "switchboard-darwin-arm64"), macho.CpuAmd64); err == nil {
			t.Error("the arm64 build passed as amd64")
		}
		if err := checkWindows(filepath.Join(dir, "switchboard-darwin-amd64")); err == nil {
			t.Error("a Mach-O passed as the Windows build")
		}
	}
}
