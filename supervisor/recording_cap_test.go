package supervisor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/supervisor/asciicast"
	"github.com/switchboard-dev/switchboard/supervisor/internal/flood"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// castCheck is what checkCast found in a recording.
type castCheck struct {
	header  asciicast.Header
	kept    string // the output events' data, notes left out
	dropped int64  // what the cut's marker says was dropped; -1 without one
	stopped string // the failure note's marker; "" without one
}

// checkCast reads a whole recording as a replay does and checks what any
// recording must be: every line decodes, times never go back, a cut's
// note comes first and its marker before the kept output.
func checkCast(t *testing.T, file []byte) castCheck {
	t.Helper()
	r, err := asciicast.NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatalf("the recording does not decode: %v", err)
	}
	out := castCheck{header: r.Header(), dropped: -1}
	var kept strings.Builder
	var last time.Duration
	for i := 0; ; i++ {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("event %d does not decode: %v", i, err)
		}
		if ev.Time < last {
			t.Fatalf("event %d at %v, after one at %v", i, ev.Time, last)
		}
		last = ev.Time
		switch {
		case ev.Type == asciicast.TypeMarker && strings.Contains(ev.Data, "bytes of output dropped here"):
			if i != 1 || kept.Len() != 0 {
				t.Errorf("the cut's marker is event %d, after output: want it right after the note", i)
			}
			if _, err := fmt.Sscanf(ev.Data, "[switchboard] %d bytes", &out.dropped); err != nil {
				t.Errorf("marker %q: %v", ev.Data, err)
			}
		case ev.Type == asciicast.TypeMarker && strings.Contains(ev.Data, "recording stopped here"):
			out.stopped = ev.Data
		case ev.Type == asciicast.TypeOutput && strings.Contains(ev.Data, "[switchboard]"):
			if strings.Contains(ev.Data, "dropped here") && (i != 0 || ev.Time != 0) {
				t.Errorf("the cut's note is event %d at %v, want the first at 0", i, ev.Time)
			}
		case ev.Type == asciicast.TypeOutput:
			if out.stopped != "" {
				t.Errorf("output recorded after the recording stopped: %q", ev.Data)
			}
			kept.WriteString(ev.Data)
		}
	}
	out.kept = kept.String()
	return out
}

// A looping agent prints past the cap: the file never passes it, keeps
// the newest output, says how much was dropped, and still replays.
func TestRecordingCapKeepsTheNewest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cap    int64
		output int
		limit  int64 // the cap in force
		cut    bool
	}{
		{"under the cap", 1 << 20, 256 << 10, 1 << 20, false},
		{"past the cap", 1 << 20, 3 << 20, 1 << 20, true},
		{"many times the cap", 2 << 20, 12 << 20, 2 << 20, true},
		{"a cap below the minimum", 4 << 10, 3 << 20, minRecordingCap, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			sv := New(Config{RuntimeDir: filepath.Join(dir, "run"), RecordingsDir: filepath.Join(dir, "rec"),
				Env: os.Environ(), DrainWait: 300 * time.Millisecond, RecordingCap: tc.cap})
			t.Cleanup(func() { sv.Close(context.Background()) })
			n := floodSize(tc.output)
			s, err := sv.Launch(LaunchSpec{SessionID: "ses_cap", Dir: dir, Cols: 120, Rows: 40,
				Profile: standinProfile(t, profile.PromptNone, "flood", strconv.Itoa(n))})
			if err != nil {
				t.Fatal(err)
			}
			if exit := waitDone(t, s); exit.Code != 0 {
				t.Fatalf("flood exit %+v", exit)
			}
			file, err := os.ReadFile(s.Info().Recording)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(file)) > tc.limit {
				t.Errorf("the recording has %d bytes, over its cap of %d", len(file), tc.limit)
			}
			got := checkCast(t, file)
			want := string(flood.AsTerminalOutput(n))
			if got.header.Width != 120 || got.header.Height != 40 {
				t.Errorf("header %dx%d, want 120x40", got.header.Width, got.header.Height)
			}
			if !strings.HasSuffix(want, got.kept) {
				t.Fatalf("the recording's output (%d bytes) is not the end of what the agent printed", len(got.kept))
			}
			if !tc.cut {
				if got.kept != want || got.dropped != -1 {
					t.Errorf("under the cap: %d of %d bytes kept, marker %d; want all, no marker", len(got.kept), len(want), got.dropped)
				}
				return
			}
			if got.dropped < 0 {
				t.Fatal("no marker where output was dropped")
			}
			if got.dropped+int64(len(got.kept)) != int64(len(want)) {
				t.Errorf("marker says %d dropped and %d are kept; the agent printed %d", got.dropped, len(got.kept), len(want))
			}
			// The newest part is kept, and it is most of what fits.
			if int64(len(got.kept)) < tc.limit/4 {
				t.Errorf("only %d bytes kept under a %d-byte cap", len(got.kept), tc.limit)
			}
			if strays, _ := filepath.Glob(filepath.Join(dir, "rec", ".*")); len(strays) > 0 {
				t.Errorf("files left by a cut: %v", strays)
			}
		})
	}
}

// The recorder's cuts, event by event with a clock of its own: the
// header of a cut file has the size the dropped part left, and each cut
// keeps the newest half.
func TestRecorderCuts(t *testing.T) {
	line := func(i int) string { return fmt.Sprintf("%06d %s\r\n", i, strings.Repeat("x", 1000)) }
	for _, tc := range []struct {
		name   string
		events int
		resize int // the event before which the terminal becomes 100x30; -1 for none
		size   [2]int
	}{
		{"no cut", 500, -1, [2]int{80, 24}},
		{"one cut", 1500, -1, [2]int{80, 24}},
		{"a resize before the cut", 1500, 100, [2]int{100, 30}},
		{"a resize after the cut", 1500, 1400, [2]int{80, 24}},
		{"many cuts", 6000, 3000, [2]int{100, 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ses.cast")
			r := testRecorder(t, path, nil, minRecordingCap)
			var want strings.Builder
			start := *r.at
			for i := range tc.events {
				at := start.Add(time.Duration(i) * time.Millisecond)
				if i == tc.resize {
					r.add(chunk{at: at, resize: [2]int{100, 30}})
				}
				r.add(chunk{at: at, data: []byte(line(i))})
				want.WriteString(line(i))
				if st, err := os.Stat(path); err != nil || st.Size() > minRecordingCap {
					t.Fatalf("after event %d the file is %v, %v: over the cap", i, st.Size(), err)
				}
			}
			if err := r.close(); err != nil {
				t.Fatal(err)
			}
			file, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(file)) > minRecordingCap {
				t.Errorf("%d bytes, over the cap", len(file))
			}
			got := checkCast(t, file)
			if !strings.HasSuffix(want.String(), got.kept) {
				t.Errorf("the %d bytes kept are not the end of the output", len(got.kept))
			}
			if got.dropped == -1 {
				got.dropped = 0
			} else if tc.events <= 500 {
				t.Errorf("a marker under the cap: %d dropped", got.dropped)
			}
			if got.dropped+int64(len(got.kept)) != int64(want.Len()) {
				t.Errorf("%d kept and %d dropped, marker or none, of %d", len(got.kept), got.dropped, want.Len())
			}
			if [2]int{got.header.Width, got.header.Height} != tc.size {
				t.Errorf("header %dx%d, want %v", got.header.Width, got.header.Height, tc.size)
			}
			if got.header.Title != "test" {
				t.Errorf("header title %q: a cut lost it", got.header.Title)
			}
		})
	}
}

// testRecorder starts a recording at path, written through wrap (nil for
// the file itself), as Launch and record do.
func testRecorder(t *testing.T, path string, wrap func(*os.File) recordingFile, limit int64) *recorder {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	at := new(time.Time)
	*at = time.Now()
	w, err := asciicast.NewWriter(f, asciicast.Header{Width: 80, Height: 24, Timestamp: *at, Title: "test"},
		func() time.Time { return *at })
	if err != nil {
		t.Fatal(err)
	}
	var file recordingFile = f
	if wrap != nil {
		file = wrap(f)
	}
	return newRecorder(path, file, w, at, limit, slog.New(slog.DiscardHandler))
}

// fullDisk is a file on a disk that fills after room bytes: a write past
// it writes what fits and fails with ENOSPC, as write(2) does. Cutting
// the file back frees space, as on a real disk.
type fullDisk struct {
	*os.File
	room int64
	mu   sync.Mutex
	size int64 // guarded by mu
}

// newFullDisk wraps f, which holds what has been written to it so far.
func newFullDisk(t *testing.T, f *os.File, room int64) *fullDisk {
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		t.Fatal(err)
	}
	return &fullDisk{File: f, room: room, size: size}
}

func (d *fullDisk) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fits := min(int64(len(p)), max(d.room-d.size, 0))
	n, err := d.File.Write(p[:fits])
	d.size += int64(n)
	if err == nil && n < len(p) {
		err = &os.PathError{Op: "write", Path: d.Name(), Err: syscall.ENOSPC}
	}
	return n, err
}

func (d *fullDisk) WriteAt(p []byte, off int64) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if off+int64(len(p)) > d.room {
		return 0, &os.PathError{Op: "write", Path: d.Name(), Err: syscall.ENOSPC}
	}
	n, err := d.File.WriteAt(p, off)
	d.size = max(d.size, off+int64(n))
	return n, err
}

func (d *fullDisk) Truncate(size int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.size = size
	return d.File.Truncate(size)
}

// A full disk ends the recording, not the recorder's caller: the file is
// cut back to its last whole event and ends with a note when the space
// that freed holds it, and later chunks are taken and dropped.
func TestRecorderFullDisk(t *testing.T) {
	event := strings.Repeat("y", 1000) + "\r\n"
	for _, tc := range []struct {
		name  string
		room  func(header, line int64) int64 // the disk's room, from the header's and one event line's size
		note  bool
		whole int // the events the file keeps
	}{
		{"the cut frees room for the note", func(h, l int64) int64 { return h + 4*l - 1 }, true, 3},
		{"no room for the note", func(h, l int64) int64 { return h + 3*l + 5 }, false, 3},
		{"full from the first event", func(h, l int64) int64 { return h }, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ses.cast")
			var disk *fullDisk
			r := testRecorder(t, path, func(f *os.File) recordingFile {
				disk = newFullDisk(t, f, 0)
				return disk
			}, 0)
			lineSize := int64(len(asciicast.AppendEvent(nil, asciicast.Event{Time: time.Second, Type: "o", Data: event})))
			disk.room = tc.room(r.w.Size(), lineSize)
			var logs bytes.Buffer
			r.log = slog.New(slog.NewTextHandler(&logs, nil))
			for i := range 10 {
				// A second apart, so every line has the same length.
				r.add(chunk{at: r.start.Add(time.Duration(i+1) * time.Second), data: []byte(event)})
				r.flush()
			}
			if err := r.close(); err != nil {
				t.Errorf("close after a logged failure: %v", err)
			}
			if !errors.Is(r.err, syscall.ENOSPC) {
				t.Errorf("the recorder stopped on %v, want ENOSPC", r.err)
			}
			if !strings.Contains(logs.String(), "recording stopped") || !strings.Contains(logs.String(), "no space left") {
				t.Errorf("no log line says the recording stopped: %q", logs.String())
			}
			file, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := checkCast(t, file)
			if got.kept != strings.Repeat(event, tc.whole) {
				t.Errorf("the file keeps %d bytes of output, want %d whole events", len(got.kept), tc.whole)
			}
			if (got.stopped != "") != tc.note {
				t.Errorf("note %q, want one: %v", got.stopped, tc.note)
			}
		})
	}
}

// The disk fills while an agent prints: its output still reaches a
// subscriber and the emulator, all of it, and the read loop never waits
// on the recording.
func TestFullDiskKeepsTheSessionGoing(t *testing.T) {
	n := floodSize(2 << 20) // under subLimit: a subscriber read at the end has it all
	proc, err := Start(Spec{Path: standinBin(t), Args: []string{"flood", strconv.Itoa(n)}, Cols: 120, Rows: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	s := &Session{id: "ses_full", master: proc.PTY(), proc: proc, cfg: &Config{}, log: slog.New(slog.DiscardHandler),
		emuQ: newQueue(emuLimit), recQ: newQueue(recLimit),
		subs: map[*Subscription]struct{}{}, screens: map[chan struct{}]struct{}{},
		term: vt.New(120, 40), readDone: make(chan struct{}), emuDone: make(chan struct{})}
	sub := s.Subscribe()
	path := filepath.Join(t.TempDir(), "ses_full.cast")
	r := testRecorder(t, path, func(f *os.File) recordingFile { return newFullDisk(t, f, 300<<10) }, 0)
	var logs bytes.Buffer
	r.log = slog.New(slog.NewTextHandler(&logs, nil))
	recDone := make(chan error, 1)
	go func() { recDone <- s.recordTo(r) }()
	go s.emulate()
	go s.readLoop()

	if _, err := proc.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-s.readDone
	s.recQ.close()
	s.emuQ.close()
	<-s.emuDone
	if err := <-recDone; err != nil {
		t.Errorf("record: %v", err)
	}
	data, dropped, _ := sub.Read()
	if want := flood.AsTerminalOutput(n); dropped != 0 || !bytes.Equal(data, want) {
		t.Errorf("the subscriber got %d bytes (%d dropped), want the %d the agent printed", len(data), dropped, len(want))
	}
	var last bytes.Buffer
	flood.Write(&last, n)
	lines := bytes.Split(bytes.TrimRight(last.Bytes(), "\n"), []byte("\n"))
	if tail := string(lines[len(lines)-1][5:13]); !strings.Contains(s.term.Text(), tail) {
		t.Errorf("the screen lacks the last line %s:\n%s", tail, s.term.Text())
	}
	if !strings.Contains(logs.String(), "recording stopped") {
		t.Errorf("no log line says the recording stopped: %q", logs.String())
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := checkCast(t, file)
	if int64(len(file)) > 300<<10 || got.kept == "" || !strings.HasPrefix(string(flood.AsTerminalOutput(n)), got.kept) {
		t.Errorf("the recording holds %d bytes of output in %d: want the start of the output, within the disk", len(got.kept), len(file))
	}
}
