package supervisor

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/supervisor/asciicast"
)

// A session's recording, written by the recorder: one asciicast file that
// never grows past Config.RecordingCap, and that a full disk ends without
// ending the agent.
//
// The cap keeps the newest part. When the next event could take the file
// past the cap, the recording is cut: a new file gets the header, a note
// that output was dropped and everything from the first event at or past
// half the cap, and replaces the old one (a rename, so a reader sees one
// file or the other, never a mix). That copies at most half the cap once
// per half-cap of new output, with copy_file_range where the kernel has it:
// bounded I/O, at most twice what the agent prints, instead of a rewrite of
// the whole file per event; while it copies, the folder holds the old
// file and the new half, 1.5 times the cap. The result is still one
// ordinary recording, so the replay and asciinema read it as they always
// have. Times still count from the session's start (the trace events of
// a replay stay in line); the note is at 0, so the dropped stretch of a
// replay says why it is empty. A cut's one cost is that the screen state
// the dropped part built (colours, an alternate screen) is not there until
// the agent redraws.
//
// Two files rotated would avoid the copy, but every reader would have to
// learn to join them. Cutting the front of the file in place would avoid
// the second file's space, but a reader could find it half copied.

// DefaultRecordingCap is the cap of a session's recording when
// Config.RecordingCap is 0.
const DefaultRecordingCap = 256 << 20

// minRecordingCap is the smallest cap honoured: half of it must hold the
// largest event one read can make (below), or a cut could not make room.
const minRecordingCap = 1 << 20

// endRoom is kept free below the cap for the lines that end a recording:
// the cut-off rune Close writes, the note a failure leaves.
const endRoom = 1 << 10

// eventRoom is the most the event for n bytes of output can take: each byte
// escaped as \u00XX, a rune carried in from the previous read, the time and
// the brackets.
func eventRoom(n int) int64 { return int64(6*(n+utf8.UTFMax) + 64) }

// A cut must leave room for the next event: half the smallest cap holds the
// largest read's event and endRoom (a compile error otherwise).
const _ uint = minRecordingCap/2 - (6*(readSize+utf8.UTFMax) + 64) - endRoom

// recordingFile is what the recorder needs of the file it writes: narrow,
// so that a test can make it fail as a full disk does.
type recordingFile interface {
	io.Writer
	io.WriterAt
	Truncate(size int64) error
	Close() error
}

// castFile counts what reached the file and where its last whole line
// ends: after a write error the file is cut back there, so it still reads
// as a recording.
type castFile struct {
	f       recordingFile
	written int64 // bytes written to f
	lineEnd int64 // the offset just past the last '\n' written
}

func (c *castFile) Write(p []byte) (int, error) {
	n, err := c.f.Write(p)
	if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
		c.lineEnd = c.written + int64(i) + 1
	}
	c.written += int64(n)
	return n, err
}

// cutPoint is an event boundary a cut may start the kept part at, and what
// the recording's reader needs to know there.
type cutPoint struct {
	off        int64     // the offset of the event in the file
	at         time.Time // when its bytes were read
	cols, rows int       // the terminal's size there; 0 for the header's
	dropped    int64     // output bytes recorded before it
}

// recorder writes one session's recording. It runs on the record goroutine
// alone, so it has no lock.
type recorder struct {
	path  string // the recording; a cut replaces the file there
	file  *castFile
	w     *asciicast.Writer
	at    *time.Time // the Writer's clock, set to each chunk's read time
	start time.Time  // the header's Timestamp: event times count from it
	limit int64      // the cap
	log   *slog.Logger

	header     *asciicast.Header // read back from the file at the first cut
	cols, rows int               // the size after the events so far; 0 for the header's
	output     int64             // output bytes recorded so far
	lastAt     time.Time         // the read time of the last chunk
	cut        *cutPoint         // the next cut's start, once the file passes half the cap
	err        error             // what stopped the recording; nil while it goes on
}

// newRecorder takes over w, whose header has been written to f (at path),
// and whose clock reads *at, the header's Timestamp until the first event.
// limit is the cap (0: DefaultRecordingCap; at least minRecordingCap).
func newRecorder(path string, f recordingFile, w *asciicast.Writer, at *time.Time, limit int64, log *slog.Logger) *recorder {
	if limit <= 0 {
		limit = DefaultRecordingCap
	}
	size := w.Size()
	r := &recorder{path: path, file: &castFile{f: f, written: size, lineEnd: size}, w: w, at: at, start: *at,
		limit: max(limit, minRecordingCap), log: log, lastAt: *at}
	// Through castFile from here on, to know where the last whole line
	// ended should a write fail. The header is already flushed.
	if err := w.Redirect(r.file, size); err != nil {
		r.fail(err)
	}
	return r
}

// add records one chunk. After a failure it does nothing: the recording
// has stopped, the session goes on.
func (r *recorder) add(c chunk) {
	if r.err != nil {
		return
	}
	r.lastAt = c.at
	if err := r.makeRoom(c); err != nil {
		r.fail(err)
		return
	}
	*r.at = c.at
	var err error
	if c.resize != [2]int{} {
		err = r.w.Resize(c.resize[0], c.resize[1])
		r.cols, r.rows = c.resize[0], c.resize[1]
	} else {
		err = r.w.Output(c.data)
		r.output += int64(len(c.data))
	}
	if err != nil {
		r.fail(err)
	}
}

// flush writes what is buffered, for a reader of the file to see it.
func (r *recorder) flush() {
	if r.err != nil {
		return
	}
	if err := r.w.Flush(); err != nil {
		r.fail(err)
	}
}

// close ends the recording. A failure was logged when it happened; only an
// error closing a recording that went well is returned.
func (r *recorder) close() error {
	if r.err != nil {
		// Not through the Writer: what it still holds would land past
		// the note, at the file offset the failed write left.
		r.file.f.Close()
		return nil
	}
	werr := r.w.Close()
	if err := r.file.f.Close(); werr == nil && err != nil {
		werr = fmt.Errorf("close the recording: %w", err)
	}
	return werr
}

// makeRoom cuts the recording when c's event could take it past the cap,
// and notes where the next cut starts once the file passes half the cap.
func (r *recorder) makeRoom(c chunk) error {
	size := r.w.Size()
	// Bytes of a rune cut off by the last read are in the next event,
	// which is kept: they are not dropped.
	dropped := r.output - int64(r.w.Carried())
	if r.cut == nil && size >= r.limit/2 {
		r.cut = &cutPoint{off: size, at: c.at, cols: r.cols, rows: r.rows, dropped: dropped}
	}
	if size+eventRoom(len(c.data))+endRoom <= r.limit {
		return nil
	}
	cut := r.cut
	if cut == nil {
		// Cannot happen with minRecordingCap (see above); should it,
		// dropping everything still keeps the cap.
		cut = &cutPoint{off: size, at: c.at, cols: r.cols, rows: r.rows, dropped: dropped}
	}
	return r.cutAt(*cut)
}

// cutAt replaces the recording with its header, a note of what was
// dropped and everything from cut on; the Writer goes on in the new file.
// On an error the old file is left as it was.
func (r *recorder) cutAt(cut cutPoint) error {
	if err := r.w.Flush(); err != nil {
		return err
	}
	src, err := os.Open(r.path)
	if err != nil {
		return fmt.Errorf("cut the recording: %w", err)
	}
	defer src.Close()
	if r.header == nil {
		rd, err := asciicast.NewReader(io.NewSectionReader(src, 0, r.file.written))
		if err != nil {
			return fmt.Errorf("cut the recording: %w", err)
		}
		h := rd.Header()
		r.header = &h
	}
	h := *r.header
	h.Timestamp = r.start
	if cut.cols > 0 {
		// The kept part starts at the size the dropped part left.
		h.Width, h.Height = cut.cols, cut.rows
	}
	dst, err := os.CreateTemp(filepath.Dir(r.path), "."+filepath.Base(r.path)+".cut-*")
	if err != nil {
		return fmt.Errorf("cut the recording: %w", err)
	}
	done := false
	defer func() {
		if !done {
			dst.Close()
			os.Remove(dst.Name())
		}
	}()
	head, err := writeCutHead(dst, h, r.start, cut, r.limit)
	if err != nil {
		return err
	}
	if _, err := src.Seek(cut.off, io.SeekStart); err != nil {
		return fmt.Errorf("cut the recording: %w", err)
	}
	// An *io.LimitedReader of an *os.File: copy_file_range on Linux.
	kept := r.file.written - cut.off
	if n, err := io.Copy(dst, io.LimitReader(src, kept)); err != nil || n != kept {
		return fmt.Errorf("cut the recording: copied %d of %d bytes: %w", n, kept, err)
	}
	if err := os.Rename(dst.Name(), r.path); err != nil {
		return fmt.Errorf("cut the recording: %w", err)
	}
	done = true
	old := r.file
	r.file = &castFile{f: dst, written: head + kept, lineEnd: head + kept}
	// Flushed above: nothing buffered, so this cannot fail.
	if err := r.w.Redirect(r.file, head+kept); err != nil {
		return err
	}
	r.cut = nil
	// The old file is gone from the folder; closing it frees its space.
	if err := old.f.Close(); err != nil {
		r.log.Warn("close the recording's dropped part", "path", r.path, "err", err)
	}
	return nil
}

// writeCutHead writes the header of a cut recording and the note of the
// cut: an output event at 0, so a replay of the dropped stretch shows why
// it is empty, and a marker where the kept part starts, for players that
// offer markers as places to jump to. It returns the bytes written.
func writeCutHead(f *os.File, h asciicast.Header, start time.Time, cut cutPoint, limit int64) (int64, error) {
	w, err := asciicast.NewWriter(f, h, func() time.Time { return start })
	if err != nil {
		return 0, fmt.Errorf("cut the recording: %w", err)
	}
	size := w.Size()
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("cut the recording: %w", err)
	}
	note := fmt.Sprintf("[switchboard] %d bytes of output dropped here: the recording is capped at %s", cut.dropped, formatBytes(limit))
	lines := asciicast.AppendEvent(nil, asciicast.Event{Time: 0, Type: asciicast.TypeOutput, Data: visibleNote(note)})
	lines = asciicast.AppendEvent(lines, asciicast.Event{Time: cut.at.Sub(start), Type: asciicast.TypeMarker, Data: note})
	if _, err := f.Write(lines); err != nil {
		return 0, fmt.Errorf("cut the recording: %w", err)
	}
	return size + int64(len(lines)), nil
}

// fail stops the recording: it logs why, cuts the file back to its last
// whole line and, when the disk takes it, ends it with a note. The session
// goes on: its output still reaches the emulator and subscribers.
func (r *recorder) fail(err error) {
	r.err = err
	r.log.Error("recording stopped; the agent goes on", "path", r.path, "err", err)
	note := "[switchboard] the recording stopped here: " + err.Error()
	t := r.lastAt.Sub(r.start)
	lines := asciicast.AppendEvent(nil, asciicast.Event{Time: t, Type: asciicast.TypeMarker, Data: note})
	lines = asciicast.AppendEvent(lines, asciicast.Event{Time: t, Type: asciicast.TypeOutput, Data: visibleNote(note)})
	f := r.file
	// A truncation needs no space; it frees the partial line's, which
	// may be what lets the note in.
	if err := f.f.Truncate(f.lineEnd); err != nil {
		r.log.Warn("recording: cut back to its last whole line", "path", r.path, "err", err)
		return
	}
	if _, err := f.f.WriteAt(lines, f.lineEnd); err != nil {
		// Half a note would be a broken last line: none at all.
		f.f.Truncate(f.lineEnd)
	}
}

// visibleNote is note as output a replay shows: on a line of its own, in
// reverse video.
func visibleNote(note string) string {
	return "\r\n\x1b[0;7m" + note + "\x1b[0m\r\n"
}

// formatBytes writes n in the largest binary unit that divides it.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
