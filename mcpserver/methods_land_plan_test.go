package mcpserver

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
	"github.com/switchboard-dev/switchboard/store"
)

// One agent works two packets in turn in its worktree (one.txt, then
// two.txt); the person's main moves on meanwhile. work.land_plan of the
// second says the target, the mode and the commits and files; it moves
// nothing; and the landing that follows brings exactly those commits'
// subjects and those files onto main, in every mode.
func TestLandPlanIsWhatLands(t *testing.T) {
	for _, mode := range []store.Landing{store.LandingMerge, store.LandingSquash, store.LandingRebase} {
		t.Run(string(mode), func(t *testing.T) {
			ctx := context.Background()
			dir := personGitRepo(t, map[string]string{"a.txt": "a\n"})
			f := newFixture(t)
			f.createClientToken(t)
			repo := f.registerRepo(t, dir)
			a := newGitAgent(t, f, repo, t.TempDir())
			work := func(name string) string {
				t.Helper()
				if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate, WorkCreateArgs{RepositoryID: repo.ID, Title: "Write " + name}); err != nil {
					t.Fatal(err)
				}
				got := a.claim(t, repo.ID)
				gittest.WriteFile(t, filepath.Join(a.ws.Path, name), name+"\n")
				p, err := a.complete(got)
				if err != nil || p.State != store.PacketDone {
					t.Fatalf("complete: %+v, %v", p, err)
				}
				return p.ID
			}
			work("one.txt")
			second := work("two.txt")
			gittest.WriteFile(t, filepath.Join(dir, "mine.txt"), "mine\n")
			testGit(t, dir, "add", "mine.txt")
			testGit(t, dir, "commit", "-q", "-m", "the person's")
			tip := strings.TrimSpace(testGit(t, dir, "rev-parse", "main"))

			plan, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportRPC, MethodWorkLandPlan, WorkLandArgs{PacketID: second, Mode: string(mode)})
			if err != nil {
				t.Fatal(err)
			}
			if plan.Target != "main" || plan.Mode != string(mode) || plan.DefaultMode != "merge" || plan.TargetCommit != tip || plan.PacketID != second || len(plan.Commits) == 0 {
				t.Fatalf("plan: %+v", plan)
			}
			if now := strings.TrimSpace(testGit(t, dir, "rev-parse", "main")); now != tip {
				t.Fatalf("the plan moved main to %s", now)
			}

			landed, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportRPC, MethodWorkLand, WorkLandArgs{PacketID: second, Mode: string(mode)})
			if err != nil {
				t.Fatal(err)
			}
			var subjects []string
			for _, c := range plan.Commits {
				subjects = append(subjects, c.Subject)
			}
			brought := strings.Fields(testGit(t, dir, "log", "--reverse", "--no-merges", "--format=%H", tip+".."+landed.Commit))
			var got []string
			for _, c := range brought {
				got = append(got, strings.TrimSpace(testGit(t, dir, "log", "-1", "--format=%s", c)))
			}
			if mode == store.LandingSquash {
				// One commit stands for the plan's.
				if len(got) != 1 {
					t.Errorf("a squash brought %q", got)
				}
			} else if !reflect.DeepEqual(got, subjects) {
				t.Errorf("the landing brought commits %q; the plan said %q", got, subjects)
			}
			files := strings.Split(strings.TrimSpace(testGit(t, dir, "diff", "--name-status", "--find-renames", tip, landed.Commit)), "\n")
			var said []string
			for _, f := range plan.Files {
				said = append(said, f.Status+"\t"+f.Path)
			}
			if !reflect.DeepEqual(files, said) {
				t.Errorf("the landing changed %q; the plan said %q", files, said)
			}
		})
	}
}

// work.land_plan refuses what work.land refuses before git runs, and is
// the person's: an agent over MCP is refused.
func TestLandPlanRefuses(t *testing.T) {
	ctx := context.Background()
	dir := personGitRepo(t, map[string]string{"a.txt": "a\n"})
	f := newFixture(t)
	f.createClientToken(t)
	repo := f.registerRepo(t, dir)
	a := newGitAgent(t, f, repo, t.TempDir())
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportGUI, MethodWorkCreate, WorkCreateArgs{RepositoryID: repo.ID, Title: "A", ReviewRequired: true}); err != nil {
		t.Fatal(err)
	}
	got := a.claim(t, repo.ID)
	gittest.WriteFile(t, filepath.Join(a.ws.Path, "b.txt"), "b\n")
	p, err := a.complete(got)
	if err != nil {
		t.Fatal(err)
	}
	plan := func(pr Principal, tr Transport, mode string) error {
		_, err := Invoke(ctx, f.reg, pr, tr, MethodWorkLandPlan, WorkLandArgs{PacketID: p.ID, Mode: mode})
		return err
	}
	for _, tt := range []struct {
		name string
		p    Principal
		tr   Transport
		mode string
		code store.Code
	}{
		{"in review", OperatorPrincipal(), TransportRPC, "", store.CodeInvalidState},
		{"an unknown mode", OperatorPrincipal(), TransportRPC, "octopus", store.CodeInvalidArgument},
		{"an agent", a.p, TransportMCP, "", store.CodeToolHidden},
	} {
		if err := plan(tt.p, tt.tr, tt.mode); store.CodeOf(err) != tt.code {
			t.Errorf("%s: %v, want %s", tt.name, err, tt.code)
		}
	}
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportRPC, MethodReviewVerdict, VerdictArgs{PacketID: p.ID, Verdict: store.VerdictApprove}); err != nil {
		t.Fatal(err)
	}
	if err := plan(OperatorPrincipal(), TransportRPC, "pull-request"); err != nil {
		t.Errorf("a pull request's plan: %v", err)
	}
	if _, err := Invoke(ctx, f.reg, OperatorPrincipal(), TransportRPC, MethodWorkLand, WorkLandArgs{PacketID: p.ID}); err != nil {
		t.Fatal(err)
	}
	if err := plan(OperatorPrincipal(), TransportRPC, ""); store.CodeOf(err) != store.CodeInvalidState {
		t.Errorf("landed: %v", err)
	}
}
