package supervisor

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-dev/switchboard/supervisor/confine"
	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
)

// HostArg is the hidden subcommand that runs the agent host:
// `switchboard agent-host --dir RUNTIME`. StartHost runs it; a person
// never needs to. The host is Unix-only for now (host_main.go); Windows
// will have its own over a named pipe and ConPTY.
const HostArg = "agent-host"

// A box crosses to the agent host as plain data, field for field: the host
// starts the agent with the same box.command the app would have, so its
// confinement is the app's decision, unchanged.

// wireBox is b as the protocol carries it.
func wireBox(b box) (hostwire.Box, error) {
	w := hostwire.Box{Bwrap: b.bwrap, Seatbelt: b.seatbelt, Helper: b.helper, Cgroup: b.cgroup, Name: b.name}
	if b.checked != nil {
		raw, err := json.Marshal(b.checked)
		if err != nil {
			return hostwire.Box{}, fmt.Errorf("encode the agent's sandbox policy: %w", err)
		}
		w.Checked = raw
	}
	return w, nil
}

// boxFromWire is the box w describes. A box that names a sandbox carries
// its checked policy: without one it would confine nothing.
func boxFromWire(w hostwire.Box) (box, error) {
	b := box{bwrap: w.Bwrap, seatbelt: w.Seatbelt, helper: w.Helper, cgroup: w.Cgroup, name: w.Name}
	if len(w.Checked) > 0 {
		var c confine.Checked
		if err := json.Unmarshal(w.Checked, &c); err != nil {
			return box{}, fmt.Errorf("read the agent's sandbox policy: %w", err)
		}
		b.checked = &c
	}
	if (b.bwrap != "" || b.seatbelt != "") && b.checked == nil {
		return box{}, fmt.Errorf("%w: the launch names a sandbox but no policy", errNoSandbox)
	}
	return b, nil
}
