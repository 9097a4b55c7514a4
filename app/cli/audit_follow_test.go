package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/app/cli"
	"github.com/switchboard-dev/switchboard/store"
)

// syncBuffer is a bytes.Buffer a test may read while the CLI writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// wrote, when made, gets a value after each write (writes that come
	// faster than the test reads make one): the test's cue to read again.
	wrote chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return n, err
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// follower is a running `switchboard audit --follow`.
type follower struct {
	t           *testing.T
	out, errOut syncBuffer
	cancel      context.CancelFunc
	done        chan struct{} // closed when Run returned
	code        int           // Run's exit code, once done is closed
}

func (h *harness) follow(args ...string) *follower {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &follower{t: h.t, cancel: cancel, done: make(chan struct{})}
	f.out.wrote = make(chan struct{}, 1)
	env := cli.Env{Stdout: &f.out, Stderr: &f.errOut, Getenv: func(k string) string { return h.env[k] }, Keyring: h.kr, Version: "v-cli"}
	go func() {
		defer close(f.done)
		f.code = cli.Run(ctx, env, append([]string{"audit", "--follow"}, args...))
	}()
	// Whatever happens, it must not outlive the test (it may hold the
	// database).
	h.t.Cleanup(func() { f.stop() })
	return f
}

// waitFor reads the follower's output each time it writes until ok says
// yes. It gives up near the test's own deadline (go test -timeout), a
// tenth of what is left kept to report: a loaded machine makes it wait
// longer, not fail.
func (f *follower) waitFor(what string, ok func(stdout string) bool) string {
	f.t.Helper()
	var near <-chan time.Time
	if deadline, set := f.t.Deadline(); set {
		timer := time.NewTimer(time.Until(deadline) * 9 / 10)
		defer timer.Stop()
		near = timer.C
	}
	for {
		out := f.out.String()
		if ok(out) {
			return out
		}
		select {
		case <-f.out.wrote:
		case <-f.done:
			f.t.Fatalf("audit --follow ended (exit %d) before %s:\nstdout:\n%s\nstderr:\n%s", f.code, what, f.out.String(), f.errOut.String())
		case <-near:
			f.t.Fatalf("audit --follow: no %s by the test's deadline:\nstdout:\n%s\nstderr:\n%s", what, out, f.errOut.String())
		}
	}
}

func (f *follower) waitForMethod(method string) string {
	f.t.Helper()
	return f.waitFor(method, func(out string) bool { return slices.Contains(followMethods(out), method) })
}

// stop interrupts the follower and returns its exit code.
func (f *follower) stop() int {
	f.cancel()
	select {
	case <-f.done:
		return f.code
	case <-time.After(15 * time.Second):
		f.t.Fatal("audit --follow did not end when interrupted")
		return -1
	}
}

// followMethods are the METHOD column of a follower's table rows, in order.
func followMethods(out string) []string {
	var ms []string
	for _, l := range strings.Split(out, "\n") {
		if fields := strings.Fields(l); len(fields) >= 6 && strings.HasPrefix(fields[0], "aud_") {
			ms = append(ms, fields[5]) // ID, date, time, TRANSPORT, KEYID, METHOD
		}
	}
	return ms
}

func TestCLIAuditFollow(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	h.ok("status")
	h.ok("token", "list")

	f := h.follow()
	out := f.waitForMethod("token.list")
	if !strings.HasPrefix(out, "ID ") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "METHOD") {
		t.Errorf("no header first:\n%s", out)
	}
	// Oldest first: the newest record is the last line.
	if ms := followMethods(out); slices.Index(ms, "status") > slices.Index(ms, "token.list") {
		t.Errorf("the first page is not oldest first: %v", ms)
	}

	// A record made after the follower started.
	h.ok("repo", "add", t.TempDir())
	out = f.waitForMethod("repository.register")
	// ...and another: the follower keeps following.
	h.ok("status")
	out = f.waitFor("the second status", func(out string) bool {
		return len(slices.DeleteFunc(followMethods(out), func(m string) bool { return m != "status" })) == 2
	})
	if code := f.stop(); code != 0 {
		t.Errorf("interrupted audit --follow exited %d, want 0", code)
	}
	// Its own queries ran before repository.register was written; had they
	// been printed, they would be there.
	if ms := followMethods(out); slices.Contains(ms, "audit.query") {
		t.Errorf("audit --follow printed its own queries: %v", ms)
	}
	if e := f.errOut.String(); e != "" {
		t.Errorf("stderr: %s", e)
	}
	// Every row is one record: ids rise, none twice.
	var last string
	for _, l := range strings.Split(out, "\n") {
		if id, _, _ := strings.Cut(l, " "); strings.HasPrefix(id, "aud_") {
			if id <= last {
				t.Errorf("record %s after %s", id, last)
			}
			last = id
		}
	}
}

func TestCLIAuditFollowFullPages(t *testing.T) {
	// More new records than one poll takes (1000), written at once: the
	// follower reads on at once, prints each once, and still not its own
	// queries, which fall between the pages.
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	h.ok("status")
	f := h.follow("--json", "--limit", "1")
	f.waitFor("the first page", func(out string) bool { return strings.Count(out, "\n") == 1 })
	const n = 2500
	err := d.Registry().DB().Update(context.Background(), func(tx *store.Tx) error {
		for range n {
			if err := tx.AppendAudit(&store.AuditRecord{Transport: "test", Method: "bulk", Outcome: "ok"}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h.ok("token", "list")
	out := f.waitFor("the record after the bulk", func(out string) bool { return strings.Contains(out, `"method":"token.list"`) })
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	var bulk int
	var last uint64
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n")[1:] {
		var r store.AuditRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if r.Seq <= last {
			t.Errorf("record %d after %d", r.Seq, last)
		}
		last = r.Seq
		switch r.Method {
		case "bulk":
			bulk++
		case "audit.query":
			t.Errorf("audit --follow printed its own query %s", r.ID)
		}
	}
	if bulk != n {
		t.Errorf("%d bulk records printed, want %d", bulk, n)
	}
}

func TestCLIAuditFollowJSONFiltered(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	defer d.Close(context.Background())
	h.ok("repo", "add", t.TempDir())

	f := h.follow("--json", "--method", "repository.register")
	records := func(out string) []store.AuditRecord {
		var recs []store.AuditRecord
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if l == "" {
				continue
			}
			var r store.AuditRecord
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("not a JSON line: %q: %v", l, err)
			}
			recs = append(recs, r)
		}
		return recs
	}
	f.waitFor("the first record", func(out string) bool { return len(records(out)) == 1 })
	h.ok("status")
	h.ok("repo", "add", t.TempDir())
	out := f.waitFor("the second record", func(out string) bool { return len(records(out)) == 2 })
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	recs := records(out)
	if recs[0].Method != "repository.register" || recs[1].Method != "repository.register" || recs[1].Seq <= recs[0].Seq || recs[1].Hash == "" {
		t.Errorf("records %+v", recs)
	}
}

func TestCLIAuditFollowWithoutDaemon(t *testing.T) {
	h := newHarness(t)
	d := h.start()
	if err := d.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.ok("status")

	f := h.follow()
	f.waitForMethod("status")
	// The follower lets go of the database between polls: other commands
	// run...
	h.ok("repo", "add", t.TempDir())
	f.waitForMethod("repository.register")
	// ...and Switchboard starts; the follower goes on over the socket.
	d = h.start()
	defer d.Close(context.Background())
	h.ok("token", "list")
	out := f.waitForMethod("token.list")
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if ms := followMethods(out); slices.Contains(ms, "audit.query") {
		t.Errorf("audit --follow printed its own queries: %v", ms)
	}
}
