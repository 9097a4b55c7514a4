// Package assets holds Switchboard's bundled images. It does not import Fyne, so any layer
// can reach the bytes; the GUI wraps them in resources.
//
// The PNGs are drawn by gen_icons.go; run `go run assets/gen_icons.go` from the module root
// after changing the design and commit the result.
package assets

import _ "embed"

var (
	//go:embed app.png
	appIcon []byte
	//go:embed tray-idle.png
	trayIdle []byte
	//go:embed tray-working.png
	trayWorking []byte
	//go:embed tray-attention.png
	trayAttention []byte
)

// AppIcon returns the 256×256 application icon (PNG).
func AppIcon() []byte { return appIcon }

// TrayIdle returns the 64×64 tray icon shown when no agent is working (PNG).
func TrayIdle() []byte { return trayIdle }

// TrayWorking returns the 64×64 tray icon shown while agents are working (PNG).
func TrayWorking() []byte { return trayWorking }

// TrayAttention returns the 64×64 tray icon shown when an agent needs the user (PNG).
func TrayAttention() []byte { return trayAttention }
