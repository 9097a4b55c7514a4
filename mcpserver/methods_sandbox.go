package mcpserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/switchboard-dev/switchboard/store"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodSandboxGet Name[NoArgs, SandboxSettings]          = "sandbox.get"
	MethodSandboxPut Name[SandboxSettings, SandboxSettings] = "sandbox.put"
)

// SandboxSettings are what a person adds to every agent's confinement
// (Settings ▸ Agents, switchboard settings sandbox). A change applies to
// the next agent started or resumed.
type SandboxSettings struct {
	// Hidden are folders and files no confined agent sees, besides
	// Switchboard's own folders and the keys and credentials it always
	// hides. Absolute paths; one that does not exist is left out of a
	// session's sandbox with a note.
	Hidden []string `json:"hidden" jsonschema:"absolute paths of folders and files hidden from every confined agent, besides the ones Switchboard always hides"`
	// RecordingCapMiB bounds each session's recording; 0 is the default
	// (256 MiB). Past it the oldest output is dropped.
	RecordingCapMiB int `json:"recording_cap_mib,omitempty" jsonschema:"each session's recording at most this many MiB (default 256); past it the oldest output is dropped"`
}

// Settings keys in the store.
const (
	settingSandboxHidden = "sandbox_hidden"
	settingRecordingCap  = "recording_cap_mib"
)

// Bounds of the sandbox settings: a list longer than this, or a cap
// larger, is a mistake, not a configuration.
const (
	maxSandboxHidden   = 64
	maxRecordingCapMiB = 64 << 10
)

func (r *Registry) registerSandboxSettings() {
	r.Register(Define(MethodSandboxGet, On(Global, store.CapAdmin), Hidden|ReadOnly,
		"The paths hidden from every confined agent besides Switchboard's own, and the cap of each session's recording.",
		func(c *Call, _ NoArgs) (SandboxSettings, error) {
			return readSandbox(c.Tx)
		}))
	r.Register(Define(MethodSandboxPut, On(Global, store.CapAdmin), Hidden,
		"Save the paths hidden from every confined agent and the cap of each session's recording (both for the next agent started).",
		func(c *Call, in SandboxSettings) (SandboxSettings, error) {
			out, err := normalizeSandbox(in)
			if err != nil {
				return SandboxSettings{}, err
			}
			hidden := ""
			if len(out.Hidden) > 0 {
				b, _ := json.Marshal(out.Hidden)
				hidden = string(b)
			}
			if err := c.Tx.SetSetting(settingSandboxHidden, hidden); err != nil {
				return SandboxSettings{}, fmt.Errorf("save hidden paths: %w", err)
			}
			capText := ""
			if out.RecordingCapMiB > 0 {
				capText = fmt.Sprint(out.RecordingCapMiB)
			}
			if err := c.Tx.SetSetting(settingRecordingCap, capText); err != nil {
				return SandboxSettings{}, fmt.Errorf("save recording cap: %w", err)
			}
			return out, nil
		}))
}

// readSandbox returns the saved sandbox settings.
func readSandbox(tx *store.Tx) (SandboxSettings, error) {
	out := SandboxSettings{Hidden: []string{}}
	if v := tx.Setting(settingSandboxHidden); v != "" {
		if err := json.Unmarshal([]byte(v), &out.Hidden); err != nil {
			return SandboxSettings{}, fmt.Errorf("decode hidden paths: %w", err)
		}
	}
	if v := tx.Setting(settingRecordingCap); v != "" {
		if _, err := fmt.Sscan(v, &out.RecordingCapMiB); err != nil {
			return SandboxSettings{}, fmt.Errorf("decode recording cap: %w", err)
		}
	}
	return out, nil
}

// normalizeSandbox checks in and returns it as stored: each path absolute
// and clean, without duplicates, in the order given.
func normalizeSandbox(in SandboxSettings) (SandboxSettings, error) {
	out := SandboxSettings{Hidden: []string{}, RecordingCapMiB: in.RecordingCapMiB}
	if len(in.Hidden) > maxSandboxHidden {
		return SandboxSettings{}, store.Deny(store.CodeInvalidArgument, "%d hidden paths, at most %d", len(in.Hidden), maxSandboxHidden)
	}
	for _, p := range in.Hidden {
		switch {
		case len(p) > 4096:
			return SandboxSettings{}, store.Deny(store.CodeInvalidArgument, "a hidden path longer than 4096 bytes")
		case !filepath.IsAbs(p):
			return SandboxSettings{}, store.Deny(store.CodeInvalidArgument, "hidden path %q is not absolute", p)
		case filepath.Clean(p) == "/":
			return SandboxSettings{}, store.Deny(store.CodeInvalidArgument, "hiding / would hide everything")
		}
		if p = filepath.Clean(p); !slices.Contains(out.Hidden, p) {
			out.Hidden = append(out.Hidden, p)
		}
	}
	if in.RecordingCapMiB < 0 || in.RecordingCapMiB > maxRecordingCapMiB {
		return SandboxSettings{}, store.Deny(store.CodeInvalidArgument, "recording cap %d MiB: from 1 to %d, or 0 for the default", in.RecordingCapMiB, maxRecordingCapMiB)
	}
	return out, nil
}
