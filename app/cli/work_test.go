package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/app/cli"
	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/app/daemon/control"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
)

var pktRE = regexp.MustCompile(`^pkt_[0-9a-f]{20}$`)

// invoke runs a registry method as the operator, for what the CLI has no
// command for (an agent's report, claim, publish): on the running daemon's
// registry, or with none (d nil) on the database, opened for the call.
func (h *harness) invoke(d *daemon.Daemon, method string, args any) map[string]any {
	h.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	reg := h.registry(d)
	resp := control.ResponseFor(reg.Invoke(context.Background(), mcpserver.OperatorPrincipal(), mcpserver.TransportRPC, method, raw))
	if d == nil {
		reg.DB().Close()
	}
	if !resp.OK {
		h.t.Fatalf("%s: %s: %s", method, resp.Error, resp.Message)
	}
	var out map[string]any
	if err := json.Unmarshal(resp.Result, &out); err != nil {
		h.t.Fatal(err)
	}
	return out
}

func (h *harness) registry(d *daemon.Daemon) *mcpserver.Registry {
	h.t.Helper()
	if d != nil {
		return d.Registry()
	}
	db, err := store.Open(h.paths.DB(), store.Options{})
	if err != nil {
		h.t.Fatal(err)
	}
	return mcpserver.New(db, mcpserver.Options{})
}

// view reads the database: the daemon's, or opened for the read.
func (h *harness) view(d *daemon.Daemon, fn func(tx *store.Tx) error) {
	h.t.Helper()
	reg := h.registry(d)
	if d == nil {
		defer reg.DB().Close()
	}
	if err := reg.DB().View(context.Background(), fn); err != nil {
		h.t.Fatal(err)
	}
}

// withStdin runs fn with os.Stdin reading text.
func withStdin(t *testing.T, text string, fn func()) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.WriteString(text)
		w.Close()
	}()
	old := os.Stdin
	os.Stdin = r
	defer func() {
		os.Stdin = old
		r.Close()
	}()
	fn()
}

func getPacket(h *harness, id string) mcpserver.WorkGetResult {
	h.t.Helper()
	var out mcpserver.WorkGetResult
	h.jsonOut(&out, "work", "get", id, "--json")
	return out
}

func lastReason(p store.Packet) string {
	if len(p.History) == 0 {
		return ""
	}
	return p.History[len(p.History)-1].Reason
}

// exerciseWork runs the work commands with a Switchboard running (d) or
// not (d nil).
func exerciseWork(t *testing.T, h *harness, d *daemon.Daemon) {
	repoID := line(h.ok("repo", "add", t.TempDir()).stdout)

	// work create prints the new id on its own line, and nothing on stderr.
	r := h.ok("work", "create", "--repo", repoID, "--title", "Fix the parser",
		"--instructions", "Make it pass.\nAll of it.",
		"--artifact", "report:markdown", "--artifact", "patch",
		"--scope", "src/**", "--scope", "docs/*.md",
		"--priority", "5", "--max-attempts", "2", "--review")
	first := line(r.stdout)
	if !pktRE.MatchString(first) || r.stderr != "" {
		t.Fatalf("work create: %v", r)
	}
	got := getPacket(h, first)
	p := got.Packet
	if p.ID != first || p.RepositoryID != repoID || p.Title != "Fix the parser" || p.Instructions != "Make it pass.\nAll of it." ||
		!slices.Equal(p.ExpectedArtifacts, []store.ExpectedArtifact{{Name: "report", Kind: "markdown"}, {Name: "patch"}}) ||
		!slices.Equal(p.WriteScope, []string{"src/**", "docs/*.md"}) ||
		p.Priority != 5 || p.MaxAttempts != 2 || !p.ReviewRequired || p.State != store.PacketQueued || p.Attempt != 0 {
		t.Errorf("created packet %+v", p)
	}
	if got.Artifacts == nil || len(got.Artifacts) != 0 {
		t.Errorf("a new packet's artifacts: %#v", got.Artifacts)
	}

	// Instructions from a file; a negative priority is a value, not a flag.
	file := filepath.Join(t.TempDir(), "instructions.md")
	if err := os.WriteFile(file, []byte("From a file.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	second := line(h.ok("work", "create", "--repo", repoID, "--title", "Second", "--instructions-file", file, "--priority", "-1").stdout)
	if p := getPacket(h, second).Packet; p.Instructions != "From a file.\n" || p.Priority != -1 || p.MaxAttempts != store.DefaultMaxAttempts || p.ReviewRequired {
		t.Errorf("packet from --instructions-file: %+v", p)
	}
	// From standard input, "-" among the flags: --review takes no value.
	var third string
	withStdin(t, "From stdin.\n", func() {
		third = line(h.ok("work", "create", "--review", "-", "--repo", repoID, "--title", "Third").stdout)
	})
	if p := getPacket(h, third).Packet; p.Instructions != "From stdin.\n" || !p.ReviewRequired || p.Title != "Third" {
		t.Errorf("packet from stdin: %+v", p)
	}

	// work list: newest first.
	r = h.ok("work", "list")
	for _, want := range []string{"ID", "STATE", "PRI", "ATTEMPT", "REPO", "TITLE", "UPDATED", first, second, third, "Fix the parser", "0/2", "queued", repoID} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("work list lacks %q:\n%s", want, r.stdout)
		}
	}
	if i1, i2, i3 := strings.Index(r.stdout, first), strings.Index(r.stdout, second), strings.Index(r.stdout, third); !(i3 < i2 && i2 < i1) {
		t.Errorf("work list is not newest first:\n%s", r.stdout)
	}
	ids := func(args ...string) []string {
		t.Helper()
		var wl mcpserver.WorkList
		h.jsonOut(&wl, append([]string{"work", "list", "--json"}, args...)...)
		var out []string
		for _, p := range wl.Packets {
			out = append(out, p.ID)
		}
		return out
	}
	if got := ids("--repo", repoID); !slices.Equal(got, []string{third, second, first}) {
		t.Errorf("work list --repo: %v", got)
	}
	if got := ids("--limit", "1"); !slices.Equal(got, []string{third}) {
		t.Errorf("work list --limit 1: %v", got)
	}
	if got := ids("--limit", "1", "--after", third); !slices.Equal(got, []string{second}) {
		t.Errorf("work list --after: %v", got)
	}
	if got := ids("--repo", line(h.ok("repo", "add", t.TempDir()).stdout)); len(got) != 0 {
		t.Errorf("work list of an empty repository: %v", got)
	}

	// An agent claims the first packet (the highest priority) and publishes
	// one of its two artifacts: work get shows both, and the lease.
	ses := h.invoke(d, "session.report", map[string]any{"kind": "ready", "repository_id": repoID})["session_id"].(string)
	claim := h.invoke(d, "work.await_packet", map[string]any{"repository_id": repoID, "session_id": ses, "wait_seconds": -1})
	if claim["packet"].(map[string]any)["id"] != first {
		t.Fatalf("the agent claimed %v, want %s", claim["packet"], first)
	}
	h.invoke(d, "artifact.publish", map[string]any{"packet_id": first, "session_id": ses, "lease_id": claim["lease_id"], "name": "report", "kind": "markdown", "content": "# Done"})
	r = h.ok("work", "get", first)
	for _, want := range []string{"Fix the parser", "claimed", "1 of 2", "required", "src/** docs/*.md", "Make it pass.", "  All of it.",
		"Expected artifacts:", "published", "missing", "History:", "created", ses, claim["lease_id"].(string), "Artifacts:", "inline", "report"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("work get lacks %q:\n%s", want, r.stdout)
		}
	}
	if got := getPacket(h, first); len(got.Artifacts) != 1 || got.Artifacts[0].Name != "report" || got.Packet.Lease == nil {
		t.Errorf("work get --json after publishing: %+v", got)
	}
	// Flags before or after the packet id.
	h.jsonOut(&got, "work", "get", "--json", first)

	// cancel takes the lease away; cancelling again is refused.
	r = h.ok("work", "cancel", first, "--reason", "not needed")
	if r.stdout != first+" cancelled\n" {
		t.Errorf("work cancel printed %q", r.stdout)
	}
	if p := getPacket(h, first).Packet; p.State != store.PacketCancelled || p.Lease != nil || lastReason(p) != "not needed" {
		t.Errorf("cancelled packet %+v", p)
	}
	if r := h.fails(1, "work", "cancel", first); !strings.Contains(r.stderr, string(store.CodeInvalidState)) || r.stdout != "" {
		t.Errorf("cancelling twice: %v", r)
	}
	if got := ids("--state", "cancelled"); !slices.Equal(got, []string{first}) {
		t.Errorf("work list --state cancelled: %v", got)
	}

	// requeue: back in the queue with its attempts reset.
	r = h.ok("work", "requeue", "--reason", "try again", first)
	if r.stdout != first+" queued\n" {
		t.Errorf("work requeue printed %q", r.stdout)
	}
	if p := getPacket(h, first).Packet; p.State != store.PacketQueued || p.Attempt != 0 || lastReason(p) != "try again" {
		t.Errorf("requeued packet %+v", p)
	}
	if got := ids("--state", "queued"); !slices.Equal(got, []string{third, second, first}) {
		t.Errorf("work list --state queued: %v", got)
	}
	if r := h.fails(1, "work", "requeue", second); !strings.Contains(r.stderr, string(store.CodeInvalidState)) {
		t.Errorf("requeueing a queued packet: %v", r)
	}
	var moved mcpserver.PacketResult
	h.jsonOut(&moved, "work", "cancel", "--json", second)
	if moved.Packet.ID != second || moved.Packet.State != store.PacketCancelled || lastReason(moved.Packet) != "cancelled" {
		t.Errorf("work cancel --json: %+v", moved.Packet)
	}

	// The registry's refusals are exit 1, naming the code.
	for _, c := range []struct {
		code store.Code
		args []string
	}{
		{store.CodeNotFound, []string{"work", "get", "pkt_00000000000000000000"}},
		{store.CodeNotFound, []string{"work", "cancel", "pkt_00000000000000000000"}},
		{store.CodeRepoNotRegistered, []string{"work", "create", "--repo", "repo_00000000000000000000", "--title", "x"}},
		{store.CodeInvalidArgument, []string{"work", "create", "--repo", repoID, "--title", "x", "--scope", "../outside"}},
		{store.CodeInvalidArgument, []string{"work", "create", "--repo", repoID, "--title", "x", "--artifact", "a", "--artifact", "a:b"}},
	} {
		if r := h.fails(1, c.args...); !strings.Contains(r.stderr, string(c.code)) || r.stdout != "" {
			t.Errorf("%v: %v; want %s", c.args, r, c.code)
		}
	}

	// Whatever a title holds, the table and the details show no terminal
	// escape.
	evil := line(h.ok("work", "create", "--repo", repoID, "--title", "red \x1b[31malert\x1b[0m \u202etxt.exe").stdout)
	for _, args := range [][]string{{"work", "list"}, {"work", "get", evil}} {
		if r := h.ok(args...); strings.ContainsAny(r.stdout, "\x1b\u202e") || !strings.Contains(r.stdout, "alert") {
			t.Errorf("%v shows a terminal escape:\n%q", args, r.stdout)
		}
	}
	if p := getPacket(h, evil).Packet; p.Title != "red \x1b[31malert\x1b[0m \u202etxt.exe" {
		t.Errorf("--json changed the title: %q", p.Title)
	}
}

func TestCLIWorkAgainstRunningDaemon(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	exerciseWork(t, h, d)
}

func TestCLIWorkWithoutDaemon(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	if err := d.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	exerciseWork(t, h, nil)
}

// exerciseAnswer answers an agent's questions with a Switchboard running (d)
// or not (d nil).
func exerciseAnswer(t *testing.T, h *harness, d *daemon.Daemon) {
	repoID := line(h.ok("repo", "add", t.TempDir()).stdout)
	ses := h.invoke(d, "session.report", map[string]any{"kind": "ready", "repository_id": repoID})["session_id"].(string)
	ask := func(text string) string {
		t.Helper()
		return h.invoke(d, "session.report", map[string]any{"session_id": ses, "kind": "question", "text": text})["question_id"].(string)
	}
	question := func(id string) store.Question {
		t.Helper()
		var q store.Question
		h.view(d, func(tx *store.Tx) error {
			var err error
			q, err = tx.Question(id)
			return err
		})
		return q
	}

	q1 := ask("Which branch?")
	r := h.ok("answer", q1, "use", "main")
	if r.stdout != q1+" answered\n" || r.stderr != "" {
		t.Errorf("answer: %v", r)
	}
	if q := question(q1); q.Answer != "use main" || !q.Answered() {
		t.Errorf("answered question %+v", q)
	}
	// The first answer stands.
	if r := h.fails(1, "answer", q1, "no, develop"); !strings.Contains(r.stderr, string(store.CodeInvalidState)) || r.stdout != "" {
		t.Errorf("answering twice: %v", r)
	}
	if q := question(q1); q.Answer != "use main" {
		t.Errorf("the second answer replaced the first: %q", q.Answer)
	}

	// From standard input, keeping its lines, with --json before the id.
	q2 := ask("Anything else?")
	var out mcpserver.QuestionResult
	withStdin(t, "line one\nline two\n", func() {
		h.jsonOut(&out, "answer", "--json", q2, "-")
	})
	if out.Question.ID != q2 || out.Question.Answer != "line one\nline two" || out.Question.AnsweredAt == nil {
		t.Errorf("answer from stdin: %+v", out.Question)
	}

	// After the id, everything is the answer, dashes included.
	q3 := ask("Force it?")
	h.ok("answer", q3, "--force", "is", "fine")
	if q := question(q3); q.Answer != "--force is fine" {
		t.Errorf("answer with a dash: %q", q.Answer)
	}

	h.fails(2, "answer")
	h.fails(2, "answer", ask("Alone?"))
	if r := h.fails(1, "answer", "q_00000000000000000000", "x"); !strings.Contains(r.stderr, string(store.CodeNotFound)) {
		t.Errorf("answering no question: %v", r)
	}
	if r := h.fails(1, "answer", ask("Blank?"), " "); !strings.Contains(r.stderr, string(store.CodeInvalidArgument)) {
		t.Errorf("a blank answer: %v", r)
	}
}

func TestCLIAnswerAgainstRunningDaemon(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	exerciseAnswer(t, h, d)
}

func TestCLIAnswerWithoutDaemon(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	if err := d.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	exerciseAnswer(t, h, nil)
}

func TestCLIWorkUsage(t *testing.T) {
	h := newHarness(t)
	for _, name := range []string{"work", "answer"} {
		if !cli.IsCommand(name) {
			t.Errorf("IsCommand(%q) = false", name)
		}
	}
	if r := h.ok("help"); !strings.Contains(r.stdout, "work") || !strings.Contains(r.stdout, "answer") {
		t.Errorf("help does not list work and answer:\n%s", r.stdout)
	}
	for _, args := range [][]string{
		{"work", "--help"},
		{"work", "help"},
		{"work", "create", "--help"},
		{"work", "list", "--help"},
		{"work", "get", "--help"},
		{"work", "get", "pkt_x", "-h"},
		{"work", "cancel", "--help"},
		{"work", "requeue", "--help"},
		{"answer", "--help"},
		{"audit", "--follow", "--help"},
	} {
		r := h.run(args...)
		if r.code != 0 || !strings.Contains(r.stderr, "Usage") {
			t.Errorf("%v: %v", args, r)
		}
	}
	for _, args := range [][]string{
		{"work"},
		{"work", "frob"},
		{"work", "create"},
		{"work", "create", "--title", "no repo"},
		{"work", "create", "--repo", "repo_x"},
		{"work", "create", "--repo", "repo_x", "--title", " "},
		{"work", "create", "--repo", "repo_x", "--title", "t", "stray"},
		{"work", "create", "--repo", "repo_x", "--title", "t", "-", "-"},
		{"work", "create", "--repo", "repo_x", "--title", "t", "--instructions", "a", "-"},
		{"work", "create", "--repo", "repo_x", "--title", "t", "--instructions", "a", "--instructions-file", "f"},
		{"work", "create", "--repo", "repo_x", "--title", "t", "--max-attempts", "0"},
		{"work", "create", "--repo", "repo_x", "--title", "t", "--priority", "high"},
		{"work", "create", "--repo", "repo_x", "--title", "t", "--artifact", ":kind"},
		{"work", "create", "--bogus"},
		{"work", "list", "--state", "bogus"},
		{"work", "list", "--limit", "-1"},
		{"work", "list", "extra"},
		{"work", "get"},
		{"work", "get", "a", "b"},
		{"work", "cancel"},
		{"work", "requeue", "a", "b"},
		{"answer"},
		{"answer", "q_x"},
		{"answer", "--bogus", "q_x", "text"},
		{"audit", "--follow", "--verify"},
	} {
		if r := h.run(args...); r.code != 2 || r.stdout != "" {
			t.Errorf("%v: exit %d, want 2\n%v", args, r.code, r)
		}
	}
	if _, err := os.Stat(h.paths.DB()); !os.IsNotExist(err) {
		t.Error("usage created a database")
	}
	// Without a database the commands say so.
	for _, args := range [][]string{{"work", "list"}, {"work", "get", "pkt_x"}, {"answer", "q_x", "yes"}, {"audit", "--follow"}} {
		if r := h.fails(1, args...); !strings.Contains(r.stderr, "no Switchboard database") {
			t.Errorf("%v without a database: %v", args, r)
		}
	}
}
