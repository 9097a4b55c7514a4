//go:build unix

package supervisor

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
)

// On macOS the agent starts under sandbox-exec with the profile made from
// its policy, with no helper between them, and its session says it is
// partly confined by Seatbelt. Built here as data: this machine has no
// sandbox-exec to run.
func TestSeatbeltCommand(t *testing.T) {
	t.Parallel()
	home, work := t.TempDir(), t.TempDir()
	sv := New(Config{RuntimeDir: t.TempDir(), RecordingsDir: t.TempDir(), Helper: "/opt/sb/switchboard-sandbox",
		Support: &confine.Support{Seatbelt: confine.SeatbeltPath}})
	spec := LaunchSpec{SessionID: "ses_1", Profile: profile.Profile{ID: "shell"},
		Policy: &confine.Policy{Dir: work, Writable: []string{work}}}
	token := filepath.Join(t.TempDir(), "ses_1.token")
	bx, conf, inside, err := sv.sandboxFor(spec, "/bin/sh", []string{"HOME=" + home}, []string{token})
	if err != nil {
		t.Fatal(err)
	}
	if conf.Level != LevelPartly || conf.Method != "seatbelt" || conf.Why == "" {
		t.Errorf("confinement %+v, want partly confined by seatbelt, saying why", conf)
	}
	if inside(token) != token {
		t.Errorf("the token is named %s to the agent, want it where it is (%s)", inside(token), token)
	}
	cmd, _, err := bx.command(Spec{Path: "/bin/sh", Args: []string{"-c", "echo hi"}, Dir: work})
	if err != nil {
		t.Fatal(err)
	}
	args := cmd.Args[1:]
	if cmd.Path != confine.SeatbeltPath || len(args) < 6 || args[0] != "-p" || args[2] != "--" {
		t.Fatalf("command %s %q, want %s -p PROFILE -- /bin/sh -c 'echo hi'", cmd.Path, args, confine.SeatbeltPath)
	}
	if !slices.Equal(args[3:], []string{"/bin/sh", "-c", "echo hi"}) {
		t.Errorf("the agent's command is %q", args[3:])
	}
	if args[1] != confine.SeatbeltProfile(*bx.checked) {
		t.Error("the profile is not the one made from the session's policy")
	}
}
