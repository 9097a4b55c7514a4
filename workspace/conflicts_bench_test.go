package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/gitcmd"
	"github.com/switchboard-dev/switchboard/gitcmd/gittest"
)

// benchPackets is how many unlanded packets the conflict benchmark checks.
const benchPackets = 50

// BenchmarkConflictStatus measures what the conflict watcher does after
// the target branch moves: read the target's tip and check every unlanded
// packet against it (a fifth of them conflict, half sit on another
// packet's commits), beside `git merge-tree` run alone for each packet,
// the floor. Each round first moves main by one commit, outside the timer.
// `make bench` runs it; the goal is at most 2 s a round.
func BenchmarkConflictStatus(b *testing.B) {
	ctx := context.Background()
	repo := b.TempDir()
	gitTB(b, repo, "init", "-q", "-b", "main")
	gitTB(b, repo, "config", "user.name", "Test Person")
	gitTB(b, repo, "config", "user.email", "person@example.test")
	gittest.WriteFile(b, filepath.Join(repo, "a.txt"), "one\n")
	gitTB(b, repo, "add", "-A")
	gitTB(b, repo, "commit", "-q", "-m", "first")
	first := strings.TrimSpace(gitTB(b, repo, "rev-parse", "HEAD"))
	var checks []MergeCheck
	for i := range benchPackets {
		files := map[string]string{fmt.Sprintf("p%02d.txt", i): "packet\n"}
		if i%5 == 0 {
			files["a.txt"] = fmt.Sprintf("packet %d's line\n", i)
		}
		start, from := first, ""
		if i%2 == 1 {
			// On the packet before it, unlanded: only its own commit.
			start, from = checks[i-1].Head, checks[i-1].Head
		}
		head := commitOn(b, repo, fmt.Sprintf("p%02d", i), start, files)
		checks = append(checks, MergeCheck{Head: head, From: from})
	}
	move := func(n int) string {
		return commitOn(b, repo, "main", "", map[string]string{"a.txt": fmt.Sprintf("main's line %d\n", n)})
	}
	b.Run("watcher", func(b *testing.B) {
		var conflicting int
		n := 0
		for b.Loop() {
			b.StopTimer()
			move(n)
			n++
			b.StartTimer()
			tips, err := BranchTips(ctx, repo, []string{"main"})
			if err != nil {
				b.Fatal(err)
			}
			c := NewChecker(repo)
			conflicting = 0
			for _, m := range checks {
				m.Target = tips["main"]
				got, err := c.Check(ctx, m)
				if err != nil {
					b.Fatal(err)
				}
				if !got.Clean() {
					conflicting++
				}
			}
		}
		if conflicting != benchPackets/5 {
			b.Fatalf("%d packets conflict, want %d", conflicting, benchPackets/5)
		}
	})
	b.Run("merge-tree-alone", func(b *testing.B) {
		n := 0
		for b.Loop() {
			b.StopTimer()
			target := move(1000 + n)
			n++
			b.StartTimer()
			for _, m := range checks {
				_, err := gitcmd.Run(ctx, repo, "merge-tree", "--write-tree", "--name-only", "-z", target, m.Head)
				if code, ok := gitcmd.ExitCode(err); err != nil && (!ok || code != 1) {
					b.Fatal(err)
				}
			}
		}
	})
}
