package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

// TestTwoAgentsWorktreesLand is the first "Checked by" of issue 15 as a
// person sees it: the real binary, headless; two supervised stand-in agents
// (supervisor/testdata/standin worker) on one repository at once, each
// claiming a packet over the HTTP MCP endpoint with its session token and
// writing a different first line of greet.txt. Each works in a worktree of
// its own and each packet's diff shows only its own line; the first lands
// into the person's checkout, whose uncommitted change and untracked file
// survive; the second is refused as merge_conflict naming greet.txt, with
// main unmoved and the checkout as it was; sent back with request changes,
// its maker (and only it) claims it again, rebases onto main, resolves and
// completes, and then it lands. On a failure or a stall the agents'
// terminals (their session recordings) are logged.
func TestTwoAgentsWorktreesLand(t *testing.T) {
	begin := time.Now()
	bin := buildStandin(t)
	d := newDirs(t)
	env := d.env(false)
	p := start(t, env, "--headless")
	waitEndpoint(t, p, d, 10*time.Second)

	repoDir := filepath.Join(d.home, "repo")
	lcGit(t, "", "init", "-q", "-b", "main", repoDir)
	lcGit(t, repoDir, "config", "user.name", "Dev Person")
	lcGit(t, repoDir, "config", "user.email", "dev@example.com")
	lcWrite(t, filepath.Join(repoDir, "greet.txt"), "hello\n")
	lcWrite(t, filepath.Join(repoDir, "other.txt"), "other\n")
	lcGit(t, repoDir, "add", "-A")
	lcGit(t, repoDir, "commit", "-q", "-m", "first")
	const personOther = "other, edited by the person and not committed\n"
	const personScratch = "the person's scratch file, never added\n"
	lcWrite(t, filepath.Join(repoDir, "other.txt"), personOther)
	lcWrite(t, filepath.Join(repoDir, "scratch.txt"), personScratch)
	const personStatus = " M other.txt\n?? scratch.txt\n"
	status := func() string {
		return lcGit(t, repoDir, "status", "--porcelain", "--untracked-files=all")
	}
	if got := status(); got != personStatus {
		t.Fatalf("the person's checkout to begin with: %q", got)
	}

	repo := ""
	for _, l := range lines(mustCLI(t, env, "repo", "add", repoDir)) {
		if strings.HasPrefix(l, "repo_") {
			repo = l
		}
	}
	if repo == "" {
		t.Fatal("repo add printed no repository id")
	}

	// Two agents, each a worker writing its own line.
	lineOf := map[string]string{} // session → its line
	var sessions []string
	for i, line := range []string{"hello, world", "hi there"} {
		profile := []string{"worker-one", "worker-two"}[i]
		mustCLI(t, env, "profile", "add", profile, "--command", bin, "--arg", "worker", "--arg", "greet.txt", "--arg", line, "--prompt", "none")
		ses := ""
		for _, l := range lines(mustCLI(t, env, "agent", "start", profile, "--repo", repo)) {
			if strings.HasPrefix(l, "ses_") {
				ses = l
			}
		}
		if ses == "" {
			t.Fatalf("agent start %s printed no session", profile)
		}
		lineOf[ses] = line
		sessions = append(sessions, ses)
	}
	// What the agents showed, when anything goes wrong.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		out, errOut, _ := lcCLI(env, "agent", "list")
		t.Logf("agent list:\n%s%s", out, errOut)
		for _, ses := range sessions {
			t.Logf("terminal of %s (%q):\n%s", ses, lineOf[ses], agentTerminal(d, ses))
		}
	})

	var packets []string
	for _, title := range []string{"Greet the world", "Greet whoever is there"} {
		pkt := ""
		for _, l := range lines(mustCLI(t, env, "work", "create", "--repo", repo, "--title", title, "--instructions", "write your greeting as the first line of greet.txt")) {
			if strings.HasPrefix(l, "pkt_") {
				pkt = l
			}
		}
		if pkt == "" {
			t.Fatal("work create printed no packet id")
		}
		packets = append(packets, pkt)
	}
	first, second := packets[0], packets[1]

	// Both done, one by each agent: the workers take one fresh packet each.
	done := map[string]store.Packet{}
	for _, pkt := range packets {
		done[pkt] = waitPacket(t, env, pkt, func(p store.Packet) bool {
			return p.State == store.PacketDone && p.Changes != nil
		})
	}
	makerOf := func(pkt string) string { return done[pkt].Changes.SessionID }
	if makerOf(first) == makerOf(second) || lineOf[makerOf(first)] == "" || lineOf[makerOf(second)] == "" {
		t.Fatalf("the packets were done by %s and %s; want one by each agent %v", makerOf(first), makerOf(second), sessions)
	}
	firstLine, secondLine := lineOf[makerOf(first)], lineOf[makerOf(second)]
	t.Logf("%s done by %s (%q), %s by %s (%q) in %s", first, makerOf(first), firstLine, second, makerOf(second), secondLine, time.Since(begin).Round(time.Millisecond))

	// Each in its own worktree, not the person's checkout.
	worktrees := map[string]store.Workspace{}
	for _, e := range workspaces(t, env) {
		worktrees[e.SessionID] = e.Workspace
	}
	seen := map[string]string{}
	for _, ses := range sessions {
		ws, ok := worktrees[ses]
		if !ok || ws.Path == "" {
			t.Fatalf("session %s has no worktree: %+v", ses, worktrees)
		}
		if filepath.Clean(ws.Path) == filepath.Clean(repoDir) || strings.HasPrefix(ws.Path, repoDir+string(filepath.Separator)) {
			t.Errorf("session %s works in the person's checkout: %s", ses, ws.Path)
		}
		if other, dup := seen[ws.Path]; dup {
			t.Errorf("sessions %s and %s share the worktree %s", other, ses, ws.Path)
		}
		seen[ws.Path] = ses
		if got, err := os.ReadFile(filepath.Join(ws.Path, "greet.txt")); err != nil || string(got) != lineOf[ses]+"\n" {
			t.Errorf("greet.txt in %s's worktree: %q, %v; want its own line", ses, got, err)
		}
		if ws.BaseBranch != "main" || ws.Branch == "" || ws.Branch == "main" {
			t.Errorf("session %s's worktree: branch %q from %q", ses, ws.Branch, ws.BaseBranch)
		}
	}

	// Each packet's diff is its own change alone.
	for _, pkt := range packets {
		own, other := firstLine, secondLine
		if pkt == second {
			own, other = secondLine, firstLine
		}
		diff := mustCLI(t, env, "diff", pkt)
		if !strings.Contains(diff, "-hello\n") || !strings.Contains(diff, "+"+own+"\n") || strings.Contains(diff, other) ||
			!strings.Contains(diff, "greet.txt") || strings.Contains(diff, "other.txt") || strings.Contains(diff, "scratch.txt") {
			t.Errorf("switchboard diff %s is not its own change (+%s):\n%s", pkt, own, diff)
		}
	}

	// The first lands into the checkout; the person's work survives.
	var landed mcpserver.LandResult
	if err := json.Unmarshal([]byte(mustCLI(t, env, "land", first, "--json")), &landed); err != nil {
		t.Fatalf("land --json: %v", err)
	}
	mainTip := strings.TrimSpace(lcGit(t, repoDir, "rev-parse", "main"))
	if landed.Commit != mainTip || landed.Packet.Landed == nil {
		t.Errorf("landed %s (%+v); main is at %s", landed.Commit, landed.Packet.Landed, mainTip)
	}
	checkout := map[string]string{"greet.txt": firstLine + "\n", "other.txt": personOther, "scratch.txt": personScratch}
	checkCheckout := func(when string) {
		t.Helper()
		for name, want := range checkout {
			if got, err := os.ReadFile(filepath.Join(repoDir, name)); err != nil || string(got) != want {
				t.Errorf("%s: %s in the person's checkout is %q, %v; want %q", when, name, got, err, want)
			}
		}
		if got := status(); got != personStatus {
			t.Errorf("%s: the person's checkout: status %q, want %q", when, got, personStatus)
		}
		if _, err := os.Stat(filepath.Join(repoDir, ".git", "MERGE_HEAD")); err == nil {
			t.Errorf("%s: a half-done merge (MERGE_HEAD) in the person's checkout", when)
		}
		if markers := conflictMarkers(repoDir); len(markers) > 0 {
			t.Errorf("%s: conflict markers in the person's checkout: %v", when, markers)
		}
	}
	checkCheckout("after the first landing")
	// Its agent goes back to waiting for work: when the second is sent
	// back, a claim that ignored the hold would give it to this one.
	waitTerminal(t, d, makerOf(first), first+" landed; waiting for more work")

	// The second conflicts: refused, nothing moved or touched.
	out, errOut, code := cli(t, env, "land", second)
	if code == 0 || !strings.Contains(errOut, "merge_conflict") || !strings.Contains(errOut, "greet.txt") {
		t.Fatalf("landing %s over the first: exit %d, %q %q; want merge_conflict naming greet.txt", second, code, out, errOut)
	}
	if tip := strings.TrimSpace(lcGit(t, repoDir, "rev-parse", "main")); tip != mainTip {
		t.Errorf("a refused landing moved main from %s to %s", mainTip, tip)
	}
	checkCheckout("after the refused landing")
	if got := waitPacket(t, env, second, func(store.Packet) bool { return true }); got.Landed != nil {
		t.Errorf("the refused packet is marked landed: %+v", got.Landed)
	}

	// Send back to its agent, which rebases, resolves and completes.
	const note = "rebase onto main and resolve: greet.txt"
	mustCLI(t, env, "review", second, "--request-changes", "--note", note)
	before := done[second].Changes.To
	redone := waitPacket(t, env, second, func(p store.Packet) bool {
		return p.State == store.PacketDone && p.Changes != nil && p.Changes.To != before
	})
	if redone.Changes.SessionID != makerOf(second) {
		t.Errorf("the sent-back packet was done again by %s, not its maker %s", redone.Changes.SessionID, makerOf(second))
	}
	if redone.Changes.From != mainTip {
		t.Errorf("after the rebase the packet's changes start at %s, want main's %s", redone.Changes.From, mainTip)
	}
	if r := redone.Review; r == nil || r.Verdict != store.VerdictRequestChanges || r.Notes != note {
		t.Errorf("the packet's review: %+v", r)
	}
	term := agentTerminal(d, makerOf(second))
	if !strings.Contains(term, "sent back: \""+note+"\"") || !strings.Contains(term, "resolved greet.txt") {
		t.Errorf("the maker's terminal does not show the send-back and the resolution:\n%s", term)
	}
	if term := agentTerminal(d, makerOf(first)); strings.Contains(term, "claimed "+second) {
		t.Errorf("the other agent, waiting for work, was given the packet sent back to its maker:\n%s", term)
	}
	both := firstLine + "\n" + secondLine + "\n"
	if diff := mustCLI(t, env, "diff", second); !strings.Contains(diff, "+"+secondLine+"\n") || strings.Contains(diff, "-"+firstLine) || strings.Contains(diff, "-hello\n") {
		t.Errorf("the rebased packet's diff is not its own change on main:\n%s", diff)
	}

	landed = mcpserver.LandResult{}
	if err := json.Unmarshal([]byte(mustCLI(t, env, "land", second, "--json")), &landed); err != nil {
		t.Fatalf("land --json: %v", err)
	}
	if tip := strings.TrimSpace(lcGit(t, repoDir, "rev-parse", "main")); landed.Commit != tip || tip == mainTip {
		t.Errorf("the second landed as %s; main is at %s (was %s)", landed.Commit, tip, mainTip)
	}
	if got := lcGit(t, repoDir, "show", "main:greet.txt"); got != both {
		t.Errorf("greet.txt on main: %q, want %q", got, both)
	}
	checkout["greet.txt"] = both
	checkCheckout("after the second landing")

	// Stopping the first agent: its work has landed, so its worktree goes.
	// The second, waiting for work again, does one more packet and is
	// stopped with it unlanded: its worktree stays, listed with the commit
	// it would lose, until the person discards it.
	stopped := func(ses string) {
		t.Helper()
		if out := mustCLI(t, env, "agent", "stop", ses); !strings.Contains(out, ses+" stopped") {
			t.Errorf("agent stop printed %q", out)
		}
	}
	gone := func(ses string) {
		t.Helper()
		if !eventually(t, func() bool { _, err := os.Stat(worktrees[ses].Path); return os.IsNotExist(err) }) {
			t.Errorf("the worktree of %s is still there: %s", ses, worktrees[ses].Path)
		}
	}
	stopped(makerOf(first))
	gone(makerOf(first))
	waitTerminal(t, d, makerOf(second), second+" landed; waiting for more work")
	third := ""
	for _, l := range lines(mustCLI(t, env, "work", "create", "--repo", repo, "--title", "Greet alone", "--instructions", "only your greeting in greet.txt")) {
		if strings.HasPrefix(l, "pkt_") {
			third = l
		}
	}
	left := waitPacket(t, env, third, func(p store.Packet) bool {
		return p.State == store.PacketDone && p.Changes != nil
	})
	keeper := makerOf(second)
	if left.Changes.SessionID != keeper || left.Changes.Files != 1 {
		t.Fatalf("the third packet: %+v; want a change to greet.txt by %s", left.Changes, keeper)
	}
	stopped(keeper)
	// Its end is recorded before `agent stop` answers, and the tidy that
	// follows keeps a worktree with work in it: it is here now, and after
	// the app's restart below (the app waits for its tidies as it quits).
	if _, err := os.Stat(worktrees[keeper].Path); err != nil {
		t.Fatalf("stopping %s took away its worktree with unlanded work: %v", keeper, err)
	}
	if got, err := os.ReadFile(filepath.Join(worktrees[keeper].Path, "greet.txt")); err != nil || string(got) != secondLine+"\n" {
		t.Errorf("greet.txt in the kept worktree: %q, %v", got, err)
	}
	listed := false
	for _, e := range workspaces(t, env) {
		switch {
		case e.SessionID == makerOf(first) && !e.Gone:
			t.Errorf("the landed worktree of %s is listed as still there: %+v", e.SessionID, e)
		case e.SessionID == keeper:
			listed = true
			if e.Gone || e.State == nil || e.State.Landed || e.State.Unlanded != 1 || e.Workspace.Path != worktrees[keeper].Path {
				t.Errorf("the kept worktree is listed as %+v (state %+v); want one unlanded commit", e, e.State)
			}
		}
	}
	if !listed {
		t.Errorf("workspace list does not list %s's worktree", keeper)
	}
	// A restart (whose start tidies ended sessions' worktrees) keeps it
	// too. Discarding is the person's explicit act; the branch keeps the
	// commit.
	p.stop()
	os.Remove(filepath.Join(d.run, "mcp-http-endpoint"))
	p = start(t, env, "--headless")
	waitEndpoint(t, p, d, 20*time.Second)
	if _, err := os.Stat(worktrees[keeper].Path); err != nil {
		t.Fatalf("the restart took away %s's worktree with unlanded work: %v", keeper, err)
	}
	mustCLI(t, env, "workspace", "discard", keeper, "--yes")
	gone(keeper)
	if got := lcGit(t, repoDir, "show", worktrees[keeper].Branch+":greet.txt"); got != secondLine+"\n" {
		t.Errorf("after the discard, greet.txt on %s is %q", worktrees[keeper].Branch, got)
	}
	if got := lcGit(t, repoDir, "show", "main:greet.txt"); got != both {
		t.Errorf("the unlanded packet reached main: greet.txt is %q", got)
	}
	checkCheckout("at the end")
	p.stop()
	t.Logf("two agents, three packets, one conflict sent back and landed, one worktree kept and discarded: %s", time.Since(begin).Round(time.Millisecond))
}

// waitPacket polls `work get --json` until ok holds of the packet, and
// fails the test (with the agents' terminals, by the cleanup) if it does
// not by the test's deadline.
func waitPacket(t *testing.T, env []string, pkt string, ok func(store.Packet) bool) store.Packet {
	t.Helper()
	var got mcpserver.WorkGetResult
	if !eventually(t, func() bool {
		got = mcpserver.WorkGetResult{}
		if err := json.Unmarshal([]byte(mustCLI(t, env, "work", "get", pkt, "--json")), &got); err != nil {
			t.Fatalf("work get %s --json: %v", pkt, err)
		}
		return ok(got.Packet)
	}) {
		b, _ := json.MarshalIndent(got.Packet, "", "  ")
		t.Fatalf("packet %s did not get there:\n%s", pkt, b)
	}
	return got.Packet
}

// waitTerminal waits until the session's agent has printed want (its
// recording, read again: the one trace of it outside the app).
func waitTerminal(t *testing.T, d dirs, ses, want string) {
	t.Helper()
	waitUntil(t, "agent "+ses+" to print "+strconv.Quote(want), func() bool { return strings.Contains(agentTerminal(d, ses), want) })
}

// workspaces is `switchboard workspace list --json`.
func workspaces(t *testing.T, env []string) []mcpserver.WorkspaceEntry {
	t.Helper()
	var list mcpserver.WorkspaceList
	if err := json.Unmarshal([]byte(mustCLI(t, env, "workspace", "list", "--json")), &list); err != nil {
		t.Fatalf("workspace list --json: %v", err)
	}
	return list.Workspaces
}

// agentTerminal is what the session's agent printed, from its recording
// (flushed whenever the agent pauses), its line ends made plain.
func agentTerminal(d dirs, ses string) string {
	f, err := os.Open(filepath.Join(d.data, "recordings", ses+".cast"))
	if err != nil {
		return "(no recording: " + err.Error() + ")"
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev []any
		if json.Unmarshal(sc.Bytes(), &ev) != nil || len(ev) != 3 || ev[1] != "o" {
			continue // the header, or another kind of event
		}
		s, _ := ev[2].(string)
		b.WriteString(s)
	}
	return strings.ReplaceAll(b.String(), "\r\n", "\n")
}

// conflictMarkers lists the files of dir (its .git aside) holding a
// conflict marker.
func conflictMarkers(dir string) []string {
	var found []string
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && info.Name() == ".git" {
			return filepath.SkipDir
		}
		if info.Mode().IsRegular() {
			if b, err := os.ReadFile(path); err == nil && (strings.Contains(string(b), "<<<<<<<") || strings.Contains(string(b), ">>>>>>>")) {
				found = append(found, path)
			}
		}
		return nil
	})
	return found
}
