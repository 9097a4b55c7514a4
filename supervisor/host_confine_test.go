//go:build linux

package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/confine"
	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
)

// An agent the host starts is confined and held exactly as the app
// decided: the box crosses the socket unchanged, the files it may not
// write stay closed to it, and a stop ends the children that left its
// process group.
func TestHostKeepsConfinement(t *testing.T) {
	probed := confine.Probe(context.Background(), "bwrap")
	tests := []struct {
		name    string
		support confine.Support
		holder  string
		skip    string
	}{
		{"bubblewrap", probed, HoldPIDNamespace, probed.BwrapWhy},
		{"landlock and subreaper", confine.Support{Landlock: probed.Landlock}, HoldSubreaper, "no Landlock"},
	}
	_, c, _ := startTestHost(t, time.Minute)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.holder == HoldPIDNamespace && probed.Bwrap == "" || tt.holder == HoldSubreaper && probed.Landlock == 0 {
				t.Skip(tt.skip)
			}
			dir := shortTempDir(t)
			wt, home := filepath.Join(dir, "wt"), filepath.Join(dir, "home")
			for _, d := range []string{wt, home} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			sv := New(Config{RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "rec"), Support: &tt.support})
			id := fmt.Sprintf("ses_confined%d", i)
			spec := LaunchSpec{SessionID: id, Dir: wt, Profile: profile.Profile{ID: "sh"},
				Policy: &confine.Policy{Home: home, Dir: wt, Writable: []string{wt}}}
			env := []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
			bx, _, _, err := sv.sandboxFor(spec, "/bin/sh", env, nil)
			if err != nil {
				t.Fatal(err)
			}
			w, err := wireBox(bx)
			if err != nil {
				t.Fatal(err)
			}
			if back, err := boxFromWire(w); err != nil || !reflect.DeepEqual(back, bx) {
				t.Fatalf("the box does not cross the wire unchanged: %+v, %v; want %+v", back, err, bx)
			}
			// Outside /tmp, which bubblewrap replaces and Landlock
			// leaves writable: a folder of the person's own home.
			realHome, err := os.UserHomeDir()
			if err != nil {
				t.Skip(err)
			}
			outside, err := os.MkdirTemp(realHome, ".sbh-confine-")
			if err != nil {
				t.Skip(err)
			}
			t.Cleanup(func() { os.RemoveAll(outside) })
			mark := fmt.Sprintf("40%d.%d", i, os.Getpid())
			script := fmt.Sprintf(`setsid sleep %s & (sleep %s1 &)
if echo x > %s/outside 2>/dev/null; then echo WROTE-OUTSIDE; else echo WRITE-DENIED; fi
echo ready; exec sleep 1000`, mark, mark, outside)
			l := hostwire.Launch{Session: id, Path: "/bin/sh", Args: []string{"-c", script}, Dir: wt, Env: env, Box: w,
				Recording: hostwire.Recording{Path: filepath.Join(dir, "rec", id+".cast")}, Attach: true}
			ctx := context.Background()
			ag, s, err := c.Launch(ctx, l)
			if err != nil {
				t.Fatal(err)
			}
			if ag.Holder != tt.holder {
				t.Errorf("held by %q, want %q", ag.Holder, tt.holder)
			}
			var buf bytes.Buffer
			readStreamUntil(t, s, &buf, "ready", func(out string) bool { return strings.Contains(out, "ready") })
			if !strings.Contains(buf.String(), "WRITE-DENIED") {
				t.Errorf("the agent could write outside its worktree: %q", buf.String())
			}
			var pids []int
			eventually(t, func() bool { pids = findProcs(t, mark); return len(pids) >= 2 })
			if len(pids) != 2 {
				t.Fatalf("found %v running with %s, want the two children", pids, mark)
			}
			if _, err := c.Stop(ctx, id, 300*time.Millisecond, false); err != nil {
				t.Fatal(err)
			}
			waitGone(t, pids)
		})
	}
}
