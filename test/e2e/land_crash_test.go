package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/store"
)

// TestKillWhileLanding SIGKILLs the headless daemon at random moments while
// packets are landed (merge, squash and rebase, through `switchboard land`) into
// the person's checkout and worktrees are cleaned up (agents stopped, which
// tidies their worktrees, and `workspace discard`). The checkout has an
// uncommitted change to a tracked file and an untracked file throughout.
// Each packet adds two files of its own in one commit of its worktree.
//
// After each restart (when the daemon has settled its landing journal) it
// checks, for every packet so far: main holds both of its files or
// neither; the packet is marked landed exactly when main holds them, with a
// landing commit main has; every landing the CLI acknowledged is marked;
// an unlanded packet's commit is still on its branch, and its worktree is
// still there unless it was discarded. And in the checkout: no MERGE_HEAD
// or index.lock, no conflict marker in any file, nothing staged, and the
// person's change and untracked file exactly as they were. A last clean
// start and stop must leave the journal empty.
//
// SWITCHBOARD_CRASH_KILLS sets the number of kills (make test: 5). The last
// line logged sums the run up.
func TestKillWhileLanding(t *testing.T) {
	const perRound = 3 // packets made ready each round
	kills := crashKills(t, 5)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, seed>>32))
	t.Logf("seed %d", seed)
	begin := time.Now()

	d := newDirs(t)
	env := d.env(false, "SHELL=/bin/sh")
	daemonArgs := []string{"--headless", "--token-file"}
	dbPath := filepath.Join(d.data, "state.db")

	repoDir := filepath.Join(d.home, "repo")
	lcGit(t, "", "init", "-q", "-b", "main", repoDir)
	lcGit(t, repoDir, "config", "user.name", "Dev Person")
	lcGit(t, repoDir, "config", "user.email", "dev@example.com")
	lcWrite(t, filepath.Join(repoDir, "notes.txt"), "notes\n")
	lcGit(t, repoDir, "add", "-A")
	lcGit(t, repoDir, "commit", "-q", "-m", "first")
	const personNotes = "notes, and the person's edit not yet committed\n"
	const personScratch = "the person's scratch file, never added\n"
	lcWrite(t, filepath.Join(repoDir, "notes.txt"), personNotes)
	lcWrite(t, filepath.Join(repoDir, "scratch.txt"), personScratch)
	const personStatus = " M notes.txt\n?? scratch.txt\n"

	w := &lcWorld{repo: repoDir, packets: map[string]*lcPacket{}, landTime: 100 * time.Millisecond}
	var stats lcStats
	for round := 0; round <= kills; round++ {
		os.Remove(filepath.Join(d.run, "mcp-http-endpoint")) // the dead run's
		p := start(t, env, daemonArgs...)
		ep := waitEndpoint(t, p, d, 30*time.Second)
		if round == 0 {
			for _, l := range lines(mustCLI(t, env, "repo", "add", repoDir)) {
				if strings.HasPrefix(l, "repo_") {
					w.repoID = l
				}
			}
			if w.repoID == "" {
				t.Fatal("repo add printed no repository id")
			}
		}
		// The start has settled what the last kill left: check it all.
		w.check(t, env, round, personStatus, personNotes, personScratch, &stats)
		if t.Failed() {
			t.FailNow()
		}
		if round == kills {
			p.stop()
			break
		}

		// New packets, each done in a worktree of its own.
		var fresh []*lcPacket
		for range perRound {
			fresh = append(fresh, w.makePacket(t, env, d, ep))
		}
		discard := fresh[rng.IntN(len(fresh))]
		discard.discardAsked = true
		var toLand []*lcPacket
		for _, pk := range w.order {
			if pk := w.packets[pk]; !pk.landed && !pk.discardAsked {
				toLand = append(toLand, pk)
			}
		}
		rng.Shuffle(len(toLand), func(i, j int) { toLand[i], toLand[j] = toLand[j], toLand[i] })
		modes := make([]string, len(toLand))
		for i := range modes {
			modes[i] = []string{"merge", "squash", "rebase"}[rng.IntN(3)]
		}

		// Land them one after the other while another client stops this
		// round's agents (whose landed worktrees then go) and discards
		// one; kill the daemon in the middle of it.
		var mu sync.Mutex
		acked := map[string]bool{}
		tried := 0 // calls answered
		var wg sync.WaitGroup
		// Every other round the kill comes during one landing's call (the
		// CLI's own start included), where its git and its record are;
		// the others, at any moment of the whole burst. A call's length
		// is measured as the rounds go.
		target, targeted := rng.IntN(len(toLand)), round%2 == 0
		started := make(chan struct{})
		// With the daemon dead the CLI would work on the database itself
		// (its offline mode): no call starts after the kill.
		var dead atomic.Bool
		wg.Go(func() {
			for i, pk := range toLand {
				if i == target {
					close(started)
				}
				if dead.Load() {
					if i <= target {
						continue
					}
					return
				}
				began := time.Now()
				out, _, code := lcCLI(env, "land", pk.id, "--mode", modes[i], "--json")
				if code != 0 {
					continue // refused, or the daemon died under it
				}
				mu.Lock()
				w.landTime = (3*w.landTime + time.Since(began)) / 4
				tried++
				mu.Unlock()
				var res struct {
					Commit string `json:"commit"`
				}
				if json.Unmarshal([]byte(out), &res) == nil && res.Commit != "" {
					mu.Lock()
					acked[pk.id] = true
					mu.Unlock()
				}
			}
		})
		wg.Go(func() {
			for _, pk := range fresh {
				if dead.Load() {
					return
				}
				if _, _, code := lcCLI(env, "agent", "stop", pk.session); code != 0 {
					return
				}
				if pk == discard {
					if _, _, code := lcCLI(env, "workspace", "discard", pk.session, "--yes"); code != 0 {
						return
					}
				}
			}
		})
		mu.Lock()
		call := w.landTime
		mu.Unlock()
		after := time.Duration(rng.Int64N(int64(call) * int64(len(toLand))))
		if targeted {
			<-started
			after = time.Duration(rng.Int64N(int64(call)))
		}
		after = after.Round(time.Millisecond)
		// A sleep on purpose: the kill lands at a random moment of the
		// landings (the seed is logged), wherever they then are.
		time.Sleep(after)
		dead.Store(true)
		p.cmd.Process.Signal(syscall.SIGKILL)
		if _, ok := p.wait(5 * time.Second); !ok {
			t.Fatalf("kill %d: the daemon did not die", round+1)
		}
		wg.Wait()
		for id := range acked {
			w.packets[id].acked = true
		}

		// What the kill left for the next start to settle.
		db, err := store.Open(dbPath, store.Options{})
		if err != nil {
			t.Fatalf("reopen after kill %d: %v", round+1, err)
		}
		var journal []store.JournaledLanding
		err = db.View(context.Background(), func(tx *store.Tx) error {
			journal, err = tx.Landings()
			return err
		})
		db.Close()
		if err != nil {
			t.Fatalf("after kill %d: %v", round+1, err)
		}
		moved := 0
		for _, l := range journal {
			// (The git a kill leaves running may still move it.)
			if lcIsAncestor(repoDir, l.NewCommit, "main") {
				moved++
			}
		}
		stats.journaled += len(journal)
		stats.movedUnrecorded += moved
		when := "after " + after.String()
		if targeted {
			when = fmt.Sprintf("%s into landing %d", after, target+1)
		}
		t.Logf("kill %d %s: %d of %d landings answered (%d landed), %d left in the journal (%d already on main, unrecorded)",
			round+1, when, tried, len(toLand), len(acked), len(journal), moved)
	}

	// The journal is empty once a start has settled it.
	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(context.Background(), func(tx *store.Tx) error {
		if ls, err := tx.Landings(); err != nil || len(ls) != 0 {
			t.Errorf("journal after a clean start and stop: %+v, %v", ls, err)
		}
		return nil
	})
	landed := 0
	for _, pk := range w.packets {
		if pk.landed {
			landed++
		}
	}
	t.Logf("a landing took %s through the CLI", w.landTime.Round(time.Millisecond))
	t.Logf("%d kills survived in %s: %d packets, %d landed (%d acknowledged), %d discards asked; %d landings found journaled at a kill, %d of them on main but unrecorded and recorded by the next start; checkout intact after every start",
		kills, time.Since(begin).Round(100*time.Millisecond), len(w.packets), landed, stats.acked, stats.discards,
		stats.journaled, stats.movedUnrecorded)
	if landed == 0 {
		t.Fatal("nothing landed: the load did not run")
	}
}

// lcPacket is a packet the test made ready, and what it knows of it.
type lcPacket struct {
	id, session    string
	worktree       string
	branch, commit string // the worktree's branch and the packet's commit on it
	files          map[string]string
	discardAsked   bool
	acked          bool // a `land` of it answered with a commit
	landed         bool // marked landed, at the last check
	// verified is set once a check found it landed in full: its commits
	// cannot leave main, and later checks only look for its files.
	verified bool
}

type lcWorld struct {
	repo, repoID string
	packets      map[string]*lcPacket
	order        []string
	// landTime is how long a `switchboard land` takes, a running mean.
	landTime time.Duration
}

type lcStats struct {
	journaled, movedUnrecorded, acked, discards int
}

// makePacket starts a supervised agent (a shell that does nothing) and
// does a packet as that agent over MCP, with its session token: claim,
// two new files in its worktree, complete (which commits them).
func (w *lcWorld) makePacket(t *testing.T, env []string, d dirs, ep string) *lcPacket {
	t.Helper()
	ses := strings.TrimSpace(mustCLI(t, env, "agent", "start", "shell", "--repo", w.repoID))
	if !strings.HasPrefix(ses, "ses_") {
		t.Fatalf("agent start printed %q", ses)
	}
	raw, err := os.ReadFile(filepath.Join(d.run, "sessions", ses+".token"))
	if err != nil {
		t.Fatalf("the session token file: %v", err)
	}
	pktID := ""
	for _, l := range lines(mustCLI(t, env, "work", "create", "--repo", w.repoID, "--title", "crash landing", "--instructions", "add two files")) {
		if strings.HasPrefix(l, "pkt_") {
			pktID = l
		}
	}
	if pktID == "" {
		t.Fatal("work create printed no packet id")
	}
	c := newWlClient(ep, strings.TrimSpace(string(raw)))
	defer c.close()
	ctx := context.Background()
	a, err := c.call(ctx, "work_await_packet", map[string]any{"repository_id": w.repoID, "session_id": ses, "wait_seconds": 5})
	if err != nil || !a.OK {
		t.Fatalf("work_await_packet: %v %+v", err, a)
	}
	var got struct {
		Packet *struct {
			ID string `json:"id"`
		} `json:"packet"`
		LeaseID   string          `json:"lease_id"`
		Workspace store.Workspace `json:"workspace"`
	}
	if err := json.Unmarshal(a.Result, &got); err != nil || got.Packet == nil || got.Packet.ID != pktID || got.Workspace.Path == "" {
		t.Fatalf("work_await_packet claimed %s, want %s in a worktree (%v)", a.Result, pktID, err)
	}
	pk := &lcPacket{id: pktID, session: ses, worktree: got.Workspace.Path, branch: got.Workspace.Branch, files: map[string]string{}}
	for _, part := range []string{"a", "b"} {
		name := fmt.Sprintf("%s-%s.txt", pktID, part)
		pk.files[name] = fmt.Sprintf("%s, part %s\n", pktID, part)
		lcWrite(t, filepath.Join(pk.worktree, name), pk.files[name])
	}
	a, err = c.call(ctx, "work_complete", map[string]any{"packet_id": pktID, "session_id": ses, "lease_id": got.LeaseID, "summary": "two files"})
	if err != nil || !a.OK {
		t.Fatalf("work_complete: %v %+v", err, a)
	}
	pk.commit = strings.TrimSpace(lcGit(t, pk.worktree, "rev-parse", "HEAD"))
	w.packets[pktID] = pk
	w.order = append(w.order, pktID)
	return pk
}

// check holds git, the packets and the checkout to the invariants, with
// the daemon running and its start done.
func (w *lcWorld) check(t *testing.T, env []string, round int, status, notes, scratch string, stats *lcStats) {
	t.Helper()
	var list struct {
		Packets []store.Packet `json:"packets"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, env, "work", "list", "--repo", w.repoID, "--limit", "1000", "--json")), &list); err != nil {
		t.Fatalf("work list: %v", err)
	}
	byID := map[string]store.Packet{}
	for _, p := range list.Packets {
		byID[p.ID] = p
	}
	mainFiles := map[string]bool{}
	for _, f := range strings.Split(lcGit(t, w.repo, "ls-tree", "-r", "--name-only", "-z", "main"), "\x00") {
		mainFiles[f] = true
	}
	stats.acked, stats.discards = 0, 0
	for _, id := range w.order {
		pk := w.packets[id]
		p, ok := byID[id]
		if !ok {
			t.Errorf("start %d: packet %s is not listed", round, id)
			continue
		}
		have := 0
		for name, content := range pk.files {
			if mainFiles[name] {
				have++
				if pk.verified {
					continue
				}
				if got := lcGit(t, w.repo, "show", "main:"+name); got != content {
					t.Errorf("start %d: %s on main is %q, want %q", round, name, got, content)
				}
			}
		}
		if have != 0 && have != len(pk.files) {
			t.Errorf("start %d: main holds %d of the %d files of %s: a partial landing", round, have, len(pk.files), id)
		}
		onMain := have == len(pk.files)
		pk.landed = p.Landed != nil
		switch {
		case pk.verified && pk.landed && onMain:
			// Checked at an earlier start; its files are still there.
		case pk.landed && !onMain:
			t.Errorf("start %d: %s is marked landed as %s, but main does not hold its files", round, id, p.Landed.Commit)
		case !pk.landed && onMain:
			t.Errorf("start %d: main holds %s's files, but the packet is not marked landed", round, id)
		case pk.landed && !lcIsAncestor(w.repo, p.Landed.Commit, "main"):
			t.Errorf("start %d: %s's landing commit %s is not on main", round, id, p.Landed.Commit)
		case pk.landed && p.Landed.Mode == "merge" && !lcIsAncestor(w.repo, pk.commit, "main"):
			t.Errorf("start %d: %s landed as a merge, but its commit %s is not on main", round, id, pk.commit)
		}
		if pk.acked {
			stats.acked++
			if !pk.landed {
				t.Errorf("start %d: the landing of %s was acknowledged, but the packet is not marked landed", round, id)
			}
		}
		if pk.discardAsked {
			stats.discards++
		}
		if pk.landed {
			pk.verified = !t.Failed()
			continue
		}
		// Unlanded work is never lost: the commit stays on its branch,
		// and the worktree stays unless the person discarded it.
		if !lcIsAncestor(w.repo, pk.commit, "refs/heads/"+pk.branch) {
			t.Errorf("start %d: unlanded %s: its commit %s is no longer on its branch %s", round, id, pk.commit, pk.branch)
		}
		if _, err := os.Stat(pk.worktree); err != nil && !pk.discardAsked {
			t.Errorf("start %d: unlanded %s: its worktree is gone (%v) and nobody discarded it", round, id, err)
		}
	}

	// The person's checkout.
	for _, name := range []string{"MERGE_HEAD", "index.lock", "ORIG_HEAD.lock", "refs/heads/main.lock"} {
		if _, err := os.Stat(filepath.Join(w.repo, ".git", name)); err == nil {
			t.Errorf("start %d: .git/%s is left in the person's checkout", round, name)
		}
	}
	if got := lcGit(t, w.repo, "status", "--porcelain", "--untracked-files=all"); got != status {
		t.Errorf("start %d: the person's checkout: status %q, want %q", round, got, status)
	}
	for name, want := range map[string]string{"notes.txt": notes, "scratch.txt": scratch} {
		if got, err := os.ReadFile(filepath.Join(w.repo, name)); err != nil || string(got) != want {
			t.Errorf("start %d: %s in the person's checkout is %q (%v), want %q", round, name, got, err, want)
		}
	}
	filepath.Walk(w.repo, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && info.Name() == ".git" {
			return filepath.SkipDir
		}
		if info.Mode().IsRegular() {
			if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), "<<<<<<<") {
				t.Errorf("start %d: a conflict marker in %s", round, path)
			}
		}
		return nil
	})
}

// lcCLI runs a subcommand from any goroutine, without failing the test:
// the daemon may be killed under it.
func lcCLI(env []string, args ...string) (string, string, int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		return "", err.Error(), -1
	}
	return out.String(), errb.String(), 0
}

// lcGit runs git in dir (or nowhere in particular, for init) and returns
// its output.
func lcGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("git %v: %v: %s", args, err, stderr)
	}
	return string(out)
}

// lcIsAncestor reports whether commit a is on b.
func lcIsAncestor(dir, a, b string) bool {
	return exec.Command("git", "-C", dir, "merge-base", "--is-ancestor", a, b).Run() == nil
}

func lcWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
