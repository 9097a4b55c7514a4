package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/workspace"
)

// The plan as the Land dialog words it: a pull request says main does
// not move; a long plan lists its first commits and files and counts the
// rest; a plan of nothing says there is nothing to land.
func TestLandPlanText(t *testing.T) {
	many := changesPlan("rebase")
	many.Files = nil
	for i := range 15 {
		many.Files = append(many.Files, workspace.PlanFile{Status: "A", Path: fmt.Sprintf("gen/f%02d.go", i)})
	}
	many.MoreFiles = 3
	pr := changesPlan("pull-request")
	pr.Remote = "origin"
	none := changesPlan("")
	none.Commits, none.Files = nil, nil
	for _, tt := range []struct {
		name     string
		plan     mcpserver.LandPlanResult
		want     []string
		wantNone []string
	}{
		{"a pull request", pr, []string{"Push switchboard/d41c8e2f-greet to origin and open a pull request into main.\nmain does not move.", "2 commits:"}, []string{"Onto"}},
		{"a long plan", many, []string{"by rebase,\n", "18 files:", "  A  gen/f11.go\n  … and 6 more\n"}, []string{"gen/f12.go", "default"}},
		{"nothing to land", none, []string{"main already holds every commit of this packet: there is nothing to land."}, []string{"commits:"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := landPlanText(tt.plan)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.wantNone {
				if strings.Contains(got, w) {
					t.Errorf("holds %q:\n%s", w, got)
				}
			}
		})
	}
}
