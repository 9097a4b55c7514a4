package app

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/app/termview"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor/asciicast"
	"github.com/switchboard-dev/switchboard/supervisor/vt"
)

// Replay labels, also what the tests tap.
const (
	labelPlay  = "Play"
	labelPause = "Pause"
)

// replaySpeeds are the playback speeds offered.
var replaySpeeds = []string{"1×", "2×", "4×", "8×", "16×"}

// recording is a session's asciicast file in memory: what a replay seeks in.
type recording struct {
	header asciicast.Header
	events []asciicast.Event // output and resize events, in time order
	// truncated says the file ends mid-event: the app stopped while writing.
	truncated bool
}

func loadRecording(path string) (*recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open the recording: %w", err)
	}
	defer f.Close()
	r, err := asciicast.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read the recording: %w", err)
	}
	rec := &recording{header: r.Header()}
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rec, nil
		}
		if errors.Is(err, asciicast.ErrTruncated) {
			rec.truncated = true
			return rec, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read the recording: %w", err)
		}
		if ev.Type == asciicast.TypeOutput || ev.Type == asciicast.TypeResize {
			rec.events = append(rec.events, ev)
		}
	}
}

func (r *recording) duration() time.Duration {
	if len(r.events) == 0 {
		return 0
	}
	return r.events[len(r.events)-1].Time
}

// player replays a recording into a terminal emulator: the screen at any
// moment is the recording's output up to that moment, so a seek back starts
// over and replays fast (the emulator does tens of MB/s), a seek forward
// goes on from where it is.
type player struct {
	rec *recording

	mu   sync.Mutex
	term *vt.Terminal // guarded by mu
	next int          // index of the first event not yet applied; guarded by mu
	at   time.Duration
}

func newPlayer(rec *recording) *player {
	p := &player{rec: rec}
	p.reset()
	return p
}

func (p *player) reset() {
	cols, rows := p.rec.header.Width, p.rec.header.Height
	p.term = vt.New(cols, rows)
	p.next, p.at = 0, 0
}

// seek moves the screen to time t and returns its snapshot.
func (p *player) seek(t time.Duration) *vt.Snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t < p.at {
		p.reset()
	}
	for p.next < len(p.rec.events) && p.rec.events[p.next].Time <= t {
		ev := p.rec.events[p.next]
		if ev.Type == asciicast.TypeResize {
			if c, r, err := asciicast.ParseResize(ev.Data); err == nil {
				p.term.Resize(c, r)
			}
		} else {
			p.term.Write([]byte(ev.Data))
		}
		p.next++
	}
	p.at = t
	return p.term.Snapshot()
}

// replayView is the Sessions window's pane for a session that no longer
// runs here: its recording on a timeline with its trace events, play,
// pause, speed and seek.
type replayView struct {
	g      *gui
	player *player
	term   *termview.Terminal
	slider *widget.Slider
	clock  *widget.Label
	play   *widget.Button
	speed  *widget.Select
	events []store.TraceEvent
	start  time.Time // the recording's time zero, for the trace events
	list   *widget.List
	// current is the index of the last trace event at or before the
	// position shown, -1 before the first; on the Fyne goroutine only.
	current int

	mu      sync.Mutex
	playing bool          // guarded by mu
	stop    chan struct{} // closes the playing goroutine; guarded by mu
	content fyne.CanvasObject
}

// readOnly is a terminal target that takes nothing: a replay cannot be typed into.
type readOnly struct{}

func (readOnly) Input([]byte) error    { return nil }
func (readOnly) Paste(string) error    { return nil }
func (readOnly) Resize(int, int) error { return nil }

// newReplayView loads session s's recording and trace. It returns nil and a
// reason when there is nothing to replay.
func newReplayView(g *gui, s store.Session) (*replayView, string) {
	agents := g.core.Agents()
	if agents == nil {
		return nil, "No recordings here."
	}
	rec, err := loadRecording(agents.RecordingPath(s.ID))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, "This session has no recording: it was not started by Switchboard."
		}
		return nil, err.Error()
	}
	// The recording's time zero is stored in whole seconds; the session
	// began (a few milliseconds before its process started) within that
	// second, and is precise: trace events line up with the output to the
	// millisecond rather than the second.
	start := rec.header.Timestamp
	if d := s.StartedAt.Sub(start); d > -time.Second && d < time.Second {
		start = s.StartedAt
	}
	v := &replayView{g: g, player: newPlayer(rec), start: start, current: -1}
	if trace, err := invoke(g, mcpserver.MethodTraceRead, mcpserver.TraceReadArgs{SessionID: s.ID}); err == nil {
		v.events = trace.Events
	}
	v.term = termview.New(readOnly{})
	v.term.SetScrollback(nil)
	dur := rec.duration()
	v.slider = widget.NewSlider(0, max(dur.Seconds(), 0.001))
	v.slider.Step = 0.05
	// The end is told by the slider's own value: a second count turned
	// into a Duration loses its last digits, and would fall just short.
	v.slider.OnChanged = func(sec float64) { v.show(time.Duration(sec*float64(time.Second)), sec >= v.slider.Max) }
	v.clock = widget.NewLabel("")
	v.play = widget.NewButtonWithIcon(labelPlay, theme.MediaPlayIcon(), v.toggle)
	v.speed = widget.NewSelect(replaySpeeds, nil)
	v.speed.SetSelected(replaySpeeds[0])

	list := widget.NewList(
		func() int { return len(v.events) },
		func() fyne.CanvasObject { return widget.NewLabel("event") },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			ev := v.events[i]
			// The event the replay has reached last stands out.
			mark, l := "  ", o.(*widget.Label)
			if i == v.current {
				mark = "▸ "
			}
			l.TextStyle.Bold = i == v.current
			l.SetText(fmt.Sprintf("%s%s  #%d %s", mark, fmtOffset(v.offset(ev)), ev.Seq, traceLine(ev)))
		})
	list.OnSelected = func(i widget.ListItemID) {
		v.slider.SetValue(v.offset(v.events[i]).Seconds())
	}
	v.list = list
	note := ""
	if rec.truncated {
		note = "  (the recording ends early: the app stopped while writing it)"
	}
	controls := container.NewBorder(nil, nil, container.NewHBox(v.play, v.speed), v.clock, v.slider)
	events := container.NewBorder(widget.NewLabelWithStyle("Trace"+note, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, list)
	split := container.NewVSplit(v.term, events)
	split.SetOffset(0.75)
	v.content = container.NewBorder(nil, controls, nil, nil, split)
	v.show(0, false)
	return v, ""
}

// offset is where a trace event falls on the recording's timeline.
func (v *replayView) offset(ev store.TraceEvent) time.Duration {
	return max(ev.At.Sub(v.start), 0)
}

// traceLine is what the replay's list says of an event: its type and
// method, and for a report what the agent said, on one line and cut short
// (the list is an index; the Reports pane has the whole text).
func traceLine(ev store.TraceEvent) string {
	line := strings.TrimSpace(string(ev.Type) + " " + ev.Method)
	r := ev.Report
	if r == nil {
		return line
	}
	line += " · " + string(r.Kind)
	if text := strings.Join(strings.Fields(r.Text), " "); text != "" {
		if runes := []rune(text); len(runes) > traceLineText {
			text = string(runes[:traceLineText-1]) + "…"
		}
		line += ": " + text
	}
	return line
}

// traceLineText is how much of a report's text the replay's list shows.
const traceLineText = 80

func fmtOffset(d time.Duration) string {
	d = d.Round(100 * time.Millisecond)
	return fmt.Sprintf("%d:%04.1f", int(d.Minutes()), d.Seconds()-float64(int(d.Minutes())*60))
}

// show paints the screen at t, and marks the trace event reached last.
func (v *replayView) show(t time.Duration, atEnd bool) {
	v.term.SetSnapshot(v.player.seek(t))
	v.clock.SetText(fmtOffset(t) + " / " + fmtOffset(v.player.rec.duration()))
	// Events are in sequence order, and their times never go back. The
	// slider rounds to its step, so an event within half a step counts as
	// reached; at the end every event is (the session's last ones come
	// after its last output).
	reach := t + time.Duration(v.slider.Step/2*float64(time.Second))
	if atEnd {
		reach = time.Duration(math.MaxInt64)
	}
	cur := sort.Search(len(v.events), func(i int) bool { return v.offset(v.events[i]) > reach }) - 1
	if cur == v.current || v.list == nil {
		return
	}
	prev := v.current
	v.current = cur
	if prev >= 0 {
		v.list.RefreshItem(prev)
	}
	if cur >= 0 {
		v.list.RefreshItem(cur)
		v.list.ScrollTo(cur)
	}
}

// toggle starts or pauses playback.
func (v *replayView) toggle() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.playing {
		close(v.stop)
		v.playing = false
		v.play.SetText(labelPlay)
		v.play.SetIcon(theme.MediaPlayIcon())
		return
	}
	v.playing, v.stop = true, make(chan struct{})
	v.play.SetText(labelPause)
	v.play.SetIcon(theme.MediaPauseIcon())
	if v.slider.Value >= v.slider.Max {
		v.slider.SetValue(0)
	}
	go v.run(v.stop)
}

// run advances the replay at the chosen speed, 30 frames a second.
func (v *replayView) run(stop <-chan struct{}) {
	tick := time.NewTicker(time.Second / 30)
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			elapsed := now.Sub(last)
			last = now
			done := false
			fyne.DoAndWait(func() {
				speed := float64(v.speed.SelectedIndex())
				factor := 1 << int(speed)
				t := v.slider.Value + elapsed.Seconds()*float64(factor)
				if t >= v.slider.Max {
					t, done = v.slider.Max, true
				}
				v.slider.SetValue(t)
			})
			if done {
				fyne.Do(v.toggle)
				return
			}
		}
	}
}

// close stops playback.
func (v *replayView) close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.playing {
		close(v.stop)
		v.playing = false
	}
}
