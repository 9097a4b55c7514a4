// Package usage reads the token counts an agent CLI records for its own
// sessions, so Switchboard can show what a session (and each packet) used
// without estimating anything. One reader per CLI, each in its own file:
//
//   - Claude Code (claude.go): its transcript,
//     ~/.claude/projects/<folder>/<conversation>.jsonl, one line per
//     message part with the API's usage;
//   - Codex (codex.go): its rollout files,
//     ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, with running totals;
//   - Gemini CLI (gemini.go): its chat files,
//     ~/.gemini/tmp/<project>/chats/session-*.jsonl, tokens per reply.
//
// aider and a shell record nothing Switchboard can read: their sessions
// say "no usage reported" (profile.UsageNone).
//
// A Reader finds its session's files by the folder the agent works in
// (Switchboard gives each supervised agent a worktree of its own), or by
// the CLI's conversation id when one is known, and counts only entries
// written since the session started. It reads incrementally: a stat per
// file and poll, then only the bytes added since, complete lines only (a
// line being written is read whole next time), each line and each read
// bounded.
package usage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
)

// Bounds on what a Reader reads: a line longer than maxLine is skipped
// (an assistant message carrying a whole file; its usage is lost, not the
// reader), at most maxRead bytes per file and poll (a large file is
// caught up over several polls), nothing past maxFile of a file, at most
// maxFiles files per session.
const (
	maxLine  = 4 << 20
	maxRead  = 16 << 20
	maxFile  = 2 << 30
	maxFiles = 64
	// firstRead bounds the first read of a file.
	firstRead = 1 << 20
)

// Locate says where one session's files are.
type Locate struct {
	// Dir is the folder the agent works in: the CLIs file their sessions
	// by it.
	Dir string
	// ConversationID is the CLI's own id for the session's conversation
	// when known; "" finds the files by Dir and Since.
	ConversationID string
	// Since is when the session started: files last written before it,
	// and entries stamped before it, belong to other sessions (or to the
	// part of a resumed conversation an earlier session had).
	Since time.Time
	// LookupEnv reads the agent's environment (HOME, CLAUDE_CONFIG_DIR,
	// CODEX_HOME, GEMINI_CLI_HOME); nil reads this process's.
	LookupEnv func(string) (string, bool)
}

// lookupEnv reads one variable of the agent's environment.
func (l Locate) lookupEnv(name string) (string, bool) {
	if l.LookupEnv != nil {
		return l.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

// getenv reads a variable, "" when unset.
func (l Locate) getenv(name string) string {
	v, _ := l.lookupEnv(name)
	return v
}

// home is the agent's home folder.
func (l Locate) home() string {
	if h := l.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// dirs are the forms of Dir a CLI may have filed the session under: as
// given, and with its links resolved (a CLI may resolve them first).
func (l Locate) dirs() []string {
	out := []string{filepath.Clean(l.Dir)}
	if real, err := filepath.EvalSymlinks(l.Dir); err == nil && real != out[0] {
		out = append(out, real)
	}
	return out
}

// recent reports whether a file last written at mod may hold entries of
// the session: written after it started (a second's slack for clocks
// that round).
func (l Locate) recent(mod time.Time) bool {
	return l.Since.IsZero() || !mod.Before(l.Since.Add(-time.Second))
}

// stamped reports whether an entry stamped ts (RFC 3339) is the session's:
// at or after Since. An entry without a readable stamp counts.
func (l Locate) stamped(ts string) bool {
	if l.Since.IsZero() || ts == "" {
		return true
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	return err != nil || !t.Before(l.Since)
}

// parser reads one file's lines.
type parser interface {
	// line takes one complete line (without its newline). It returns
	// false when the file turns out to be another session's: it is then
	// dropped and never read again.
	line(b []byte) bool
	// counts are the file's usage so far.
	counts() store.Usage
}

// confirming is a parser that tells a file of the session only once it
// has read a first line (Codex's metadata): until then the file is not
// counted as found.
type confirming interface {
	confirmed() bool
}

// threaded is a parser whose counts are a thread's running total: files
// of the same thread are not summed (Codex).
type threaded interface {
	thread() string
}

// cli is what a reader knows of one CLI.
type cli struct {
	// find lists the files that may hold the session's usage.
	find func(l Locate) ([]string, error)
	// parser starts reading one file.
	parser func(l Locate) parser
	// lag bounds how long a reply may take to reach the file (WriteLag).
	lag time.Duration
}

var clis = map[string]cli{
	profile.UsageClaude: {find: claudeFiles, parser: newClaudeParser, lag: 250 * time.Millisecond},
	profile.UsageCodex:  {find: codexFiles, parser: newCodexParser, lag: 200 * time.Millisecond},
	profile.UsageGemini: {find: geminiFiles, parser: newGeminiParser},
}

// WriteLag is how long a CLI's file may stay quiet while replies are still
// on their way to it: Claude Code queues transcript lines and flushes them
// every 100 ms (2.1.332's FLUSH_INTERVAL_MS; a reply may wait a flush or
// two), Codex hands rollout lines to a writer task; Gemini CLI appends
// each record synchronously (0).
func (r *Reader) WriteLag() time.Duration { return r.cli.lag }

// Reader follows one session's usage. It is not safe for concurrent use.
type Reader struct {
	source string
	loc    Locate
	cli    cli
	files  map[string]*file
	order  []string // files in the order found
}

// file is one file a Reader follows.
type file struct {
	path    string
	info    os.FileInfo // at the last read, to tell a file replaced
	off     int64       // the end of the last complete line read
	skip    bool        // inside a line longer than maxLine
	begun   bool        // the first (short) read was made
	foreign bool        // another session's: never read again
	p       parser
}

// New returns a Reader of source (a profile's Usage: profile.UsageClaude,
// UsageCodex, UsageGemini) for the session loc locates.
func New(source string, loc Locate) (*Reader, error) {
	c, ok := clis[source]
	if !ok {
		return nil, fmt.Errorf("usage: no reader for source %q", source)
	}
	if !filepath.IsAbs(loc.Dir) {
		return nil, fmt.Errorf("usage: the session's folder %q is not absolute", loc.Dir)
	}
	return &Reader{source: source, loc: loc, cli: c, files: map[string]*file{}}, nil
}

// Read looks for the session's files, reads what was added to them since
// the last Read and returns the session's usage so far (Source set,
// UpdatedAt not). found is false while no file of the session has been
// found. An error reading one file is returned with the counts of the
// others.
func (r *Reader) Read() (u store.Usage, found bool, err error) {
	paths, err := r.cli.find(r.loc)
	for _, p := range paths {
		if _, ok := r.files[p]; ok || len(r.order) >= maxFiles {
			continue
		}
		r.files[p] = &file{path: p, p: r.cli.parser(r.loc)}
		r.order = append(r.order, p)
	}
	u.Source = r.source
	// Files of one thread (a conversation a CLI wrote to a second file,
	// each with its running total) count once: the largest.
	threads := map[string]store.Usage{}
	for _, p := range r.order {
		f := r.files[p]
		if f.foreign {
			continue
		}
		if rerr := r.advance(f); rerr != nil && err == nil {
			err = rerr
		}
		if cp, ok := f.p.(confirming); f.foreign || ok && !cp.confirmed() {
			continue
		}
		found = true
		c := f.p.counts()
		t, ok := f.p.(threaded)
		if !ok || t.thread() == "" {
			u = u.Plus(c)
			continue
		}
		if old, ok := threads[t.thread()]; !ok || c.Tokens() > old.Tokens() {
			threads[t.thread()] = c
		}
	}
	for _, c := range threads {
		u = u.Plus(c)
	}
	return u, found, err
}

// advance reads what was added to f since the last time: a stat, then the
// new bytes only. A file that shrank or was replaced is read again from
// its start (Gemini CLI rewrites a session file it could not read); one
// that is gone keeps the counts it gave.
func (r *Reader) advance(f *file) error {
	fi, err := os.Stat(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("usage: %w", err)
	}
	if f.info != nil && (!os.SameFile(f.info, fi) || fi.Size() < f.off) {
		f.off, f.skip, f.p = 0, false, r.cli.parser(r.loc)
	}
	f.info = fi
	end := min(fi.Size(), maxFile)
	if f.off >= end {
		return nil
	}
	fh, err := os.Open(f.path)
	if err != nil {
		return fmt.Errorf("usage: %w", err)
	}
	defer fh.Close()
	limit := int64(maxRead)
	if !f.begun {
		// A file's first read is short: most of the files a reader
		// looks at are another session's, told by their first line.
		limit, f.begun = firstRead, true
	}
	buf := make([]byte, min(end-f.off, limit))
	got, err := fh.ReadAt(buf, f.off)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("usage: read %s: %w", f.path, err)
	}
	buf = buf[:got]
	pos := 0
	for {
		i := bytes.IndexByte(buf[pos:], '\n')
		if i < 0 {
			break
		}
		line := buf[pos : pos+i]
		pos += i + 1
		if f.skip {
			f.skip = false // the end of an over-long line
			continue
		}
		if len(line) > maxLine || len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !f.p.line(line) {
			f.foreign = true
			return nil
		}
	}
	// What is left is a line still being written: read whole next time,
	// unless it is already too long to keep (then skipped to its end).
	if rest := len(buf) - pos; f.skip || rest > maxLine {
		f.skip = true
		pos = len(buf)
	}
	f.off += int64(pos)
	return nil
}
