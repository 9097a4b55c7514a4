package daemon

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/store/keyring"
)

// fakeClaude is a profile that writes a Claude Code transcript where
// Claude Code would, for the folder it runs in: one reply of 1200 input
// and 40 output tokens (in two lines, as Claude Code writes a message)
// at start and at each line typed, then exits on "quit" after a last
// reply.
func fakeClaude() profile.Profile {
	script := `d="$HOME/.claude/projects/$(pwd | sed 's/[^a-zA-Z0-9]/-/g')"; mkdir -p "$d"; n=0
reply() { n=$((n+1)); ts=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
  for out in 1 40; do printf '{"type":"assistant","timestamp":"%s","message":{"id":"msg_%d","usage":{"input_tokens":1200,"output_tokens":%d}}}\n' "$ts" $n $out >> "$d/conv.jsonl"; done; echo "REPLY $n"; }
reply; while read -r line; do reply; [ "$line" = quit ] && exit 0; done`
	return profile.Profile{ID: "fakeclaude", Name: "Fake Claude", Command: "/bin/sh", Args: []string{"-c", script},
		Prompt: profile.PromptNone, Usage: profile.UsageClaude}
}

// usageDaemon starts a daemon reading usage every `every`, with HOME a
// fresh folder (where the fake CLI writes), and a git repository with the
// fake profile and a shell one stored.
func usageDaemon(t *testing.T, every time.Duration) (*running, store.Repository) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("SHELL", "/bin/sh")
	d := start(t, Config{Paths: newPaths(t), Keyring: keyring.NewMemory(), UsageEvery: every})
	repo := registerRepo(t, d.Registry(), personRepo(t, map[string]string{"README": "a project\n"}))
	_, err := mcpserver.Invoke(context.Background(), d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: fakeClaude()})
	mustOK(t, err)
	return d, repo
}

func (d *running) gui(method string, args any) mcpserver.Result {
	d.t.Helper()
	return invokeJSON(d.t, d.Registry(), mcpserver.OperatorPrincipal(), mcpserver.TransportGUI, method, args)
}

func invokeJSON(t *testing.T, reg *mcpserver.Registry, p mcpserver.Principal, tr mcpserver.Transport, method string, args any) mcpserver.Result {
	t.Helper()
	b, err := json.Marshal(args)
	mustOK(t, err)
	res := reg.Invoke(context.Background(), p, tr, method, b)
	if res.Err != nil {
		t.Fatalf("%s: %v", method, res.Err)
	}
	return res
}

func (d *running) session(id string) store.Session {
	d.t.Helper()
	var s store.Session
	mustOK(d.t, d.db.View(context.Background(), func(tx *store.Tx) (err error) { s, err = tx.Session(id); return err }))
	return s
}

func (d *running) packet(id string) store.Packet {
	d.t.Helper()
	var p store.Packet
	mustOK(d.t, d.db.View(context.Background(), func(tx *store.Tx) (err error) { p, err = tx.Packet(id); return err }))
	return p
}

func hasCounts(u *store.Usage, in, out int64) bool {
	return u != nil && u.Source == profile.UsageClaude && u.InputTokens == in && u.OutputTokens == out
}

// TestUsageOfAnAgent: the daemon reads a running agent's usage from its
// CLI's transcript while it runs, gives each packet its share at its
// completion and shows it in agent.list.
func TestUsageOfAnAgent(t *testing.T) {
	d, repo := usageDaemon(t, 50*time.Millisecond)
	started := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "fakeclaude", RepositoryID: repo.ID}).Value.(mcpserver.AgentStarted)
	id := started.SessionID
	if started.Workspace == nil {
		t.Fatal("the agent got no worktree")
	}
	waitFor(t, func() bool { return hasCounts(d.session(id).Usage, 1200, 40) })

	// The session claims and completes two packets, one reply each: the
	// first gets what the session used up to its completion (its start
	// too), the second what it used after.
	agent := mcpserver.Principal{KeyID: d.session(id).TokenKeyID, SessionID: id}
	var pkts []store.Packet
	for _, title := range []string{"one", "two"} {
		pkts = append(pkts, d.gui("work.create", map[string]any{"repository_id": repo.ID, "title": title}).Value.(mcpserver.PacketResult).Packet)
	}
	for i, want := range [][2]int64{{2400, 80}, {1200, 40}} {
		claimed := invokeJSON(t, d.Registry(), agent, mcpserver.TransportMCP, "work.await_packet",
			map[string]any{"repository_id": repo.ID, "session_id": id}).Value.(mcpserver.AwaitResult)
		if claimed.Packet == nil || claimed.Packet.ID != pkts[i].ID {
			t.Fatalf("claimed %+v, want packet %d", claimed.Packet, i+1)
		}
		d.gui("agent.input", mcpserver.AgentInputArgs{SessionID: id, Data: "work\r"})
		total := int64(1200 * (i + 2))
		waitFor(t, func() bool { return hasCounts(d.session(id).Usage, total, total/30) })
		invokeJSON(t, d.Registry(), agent, mcpserver.TransportMCP, "work.complete", map[string]any{
			"packet_id": claimed.Packet.ID, "session_id": id, "lease_id": claimed.LeaseID, "summary": "done"})
		if got := d.packet(pkts[i].ID).Usage; !hasCounts(got, want[0], want[1]) {
			t.Errorf("packet %d's usage %+v, want %d in, %d out", i+1, got, want[0], want[1])
		}
	}
	agents := d.gui("agent.list", mcpserver.NoArgs{}).Value.(mcpserver.AgentList).Agents
	if len(agents) != 1 || !hasCounts(agents[0].Usage, 3600, 120) {
		t.Errorf("agent.list's usage: %+v", agents)
	}
}

// TestUsageAtExit: what the agent wrote just before it exited is read at
// its exit, before its end releases its packet (which gets it), even when
// no poll came in between; a CLI that reports nothing is recorded as such.
func TestUsageAtExit(t *testing.T) {
	d, repo := usageDaemon(t, time.Hour)
	id := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "fakeclaude", RepositoryID: repo.ID}).Value.(mcpserver.AgentStarted).SessionID
	s, ok := d.Agents().Get(id)
	if !ok {
		t.Fatal("no agent")
	}
	waitFor(t, func() bool { return strings.Contains(s.Terminal().Text(), "REPLY 1") })
	pkt := d.gui("work.create", map[string]any{"repository_id": repo.ID, "title": "one"}).Value.(mcpserver.PacketResult).Packet
	agent := mcpserver.Principal{KeyID: d.session(id).TokenKeyID, SessionID: id}
	invokeJSON(t, d.Registry(), agent, mcpserver.TransportMCP, "work.await_packet", map[string]any{"repository_id": repo.ID, "session_id": id})
	d.gui("agent.input", mcpserver.AgentInputArgs{SessionID: id, Data: "quit\r"})
	waitFor(t, func() bool { return d.session(id).State == store.SessionEnded })
	if u := d.session(id).Usage; !hasCounts(u, 2400, 80) {
		t.Errorf("usage after the exit %+v, want 2400 in, 80 out", u)
	}
	if p := d.packet(pkt.ID); p.State != store.PacketQueued || !hasCounts(p.Usage, 2400, 80) {
		t.Errorf("released packet %s with usage %+v, want queued with 2400 in, 80 out", p.State, p.Usage)
	}

	shell := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "shell", RepositoryID: repo.ID, Prompt: "exit"}).Value.(mcpserver.AgentStarted).SessionID
	waitFor(t, func() bool { return d.session(shell).State == store.SessionEnded })
	if u := d.session(shell).Usage; u == nil || u.Source != profile.UsageNone || u.Summary() != "no usage reported" {
		t.Errorf("a shell's usage %+v, want source none", u)
	}
}

// TestUsageOfALostSession: a session an earlier run left running (the app
// was killed) gets what its CLI wrote before it died, read by the start's
// sweep before the session is ended as lost.
func TestUsageOfALostSession(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	paths := newPaths(t)
	mustOK(t, paths.MakeDirs())
	wt := filepath.Join(t.TempDir(), "ses_lost.wt")
	mustOK(t, os.MkdirAll(wt, 0o700))
	db, err := store.Open(paths.DB(), store.Options{})
	mustOK(t, err)
	var ses store.Session
	mustOK(t, db.Update(context.Background(), func(tx *store.Tx) error {
		repo, _, err := tx.RegisterRepository("", t.TempDir())
		if err != nil {
			return err
		}
		if err := tx.PutProfile(fakeClaude()); err != nil {
			return err
		}
		if ses, err = tx.CreateSession(store.SessionSpec{Kind: store.SessionSupervised, RepositoryID: repo.ID, Profile: "fakeclaude"}); err != nil {
			return err
		}
		if _, err := tx.SetSessionWorkspace(ses.ID, store.Workspace{Path: wt, Branch: "sb/x", BaseBranch: "main", BaseCommit: strings.Repeat("a", 40)}); err != nil {
			return err
		}
		_, err = tx.MarkSessionRunning(ses.ID, 0, 0)
		return err
	}))
	mustOK(t, db.Close())
	folder := filepath.Join(home, ".claude", "projects", strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, wt))
	mustOK(t, os.MkdirAll(folder, 0o700))
	line := `{"type":"assistant","timestamp":"` + time.Now().UTC().Format(time.RFC3339Nano) + `","message":{"id":"msg_1","usage":{"input_tokens":1200,"output_tokens":40}}}` + "\n"
	mustOK(t, os.WriteFile(filepath.Join(folder, "conv.jsonl"), []byte(line), 0o600))

	d := start(t, Config{Paths: paths, Keyring: keyring.NewMemory(), UsageEvery: time.Hour})
	if s := d.session(ses.ID); s.State != store.SessionLost || !hasCounts(s.Usage, 1200, 40) {
		t.Errorf("lost session %s with usage %+v, want lost with 1200 in, 40 out", s.State, s.Usage)
	}
}

// TestUsageAtCompletion: a completion has the session's usage read first,
// so the packet's share includes the reply that completed it, with no
// poll in between.
func TestUsageAtCompletion(t *testing.T) {
	d, repo := usageDaemon(t, time.Hour)
	id := d.gui("agent.start", mcpserver.AgentStartArgs{Profile: "fakeclaude", RepositoryID: repo.ID}).Value.(mcpserver.AgentStarted).SessionID
	s, ok := d.Agents().Get(id)
	if !ok {
		t.Fatal("no agent")
	}
	waitFor(t, func() bool { return d.session(id).State == store.SessionRunning })
	pkt := d.gui("work.create", map[string]any{"repository_id": repo.ID, "title": "one"}).Value.(mcpserver.PacketResult).Packet
	agent := mcpserver.Principal{KeyID: d.session(id).TokenKeyID, SessionID: id}
	claimed := invokeJSON(t, d.Registry(), agent, mcpserver.TransportMCP, "work.await_packet",
		map[string]any{"repository_id": repo.ID, "session_id": id}).Value.(mcpserver.AwaitResult)
	d.gui("agent.input", mcpserver.AgentInputArgs{SessionID: id, Data: "work\r"})
	waitFor(t, func() bool { return strings.Contains(s.Terminal().Text(), "REPLY 2") })
	if u := d.session(id).Usage; u != nil {
		t.Fatalf("usage recorded before the completion (a poll?): %+v", u)
	}
	invokeJSON(t, d.Registry(), agent, mcpserver.TransportMCP, "work.complete", map[string]any{
		"packet_id": claimed.Packet.ID, "session_id": id, "lease_id": claimed.LeaseID, "summary": "done"})
	if p := d.packet(pkt.ID); !hasCounts(p.Usage, 2400, 80) {
		t.Errorf("completed packet's usage %+v, want 2400 in, 80 out", p.Usage)
	}
	// Recorded by the completion itself, in its own transaction: no
	// agent.usage call of its own (the poll waits an hour here).
	var nested []store.AuditRecord
	if err := d.Registry().DB().View(context.Background(), func(tx *store.Tx) (err error) {
		nested, err = tx.QueryAudit(store.AuditFilter{Method: string(mcpserver.MethodAgentUsage)})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(nested) > 0 {
		t.Errorf("the completion's usage came through %d agent.usage calls, want none", len(nested))
	}
}
