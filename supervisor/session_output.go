package supervisor

import (
	"io"
	"os"
	"time"

	"github.com/switchboard-dev/switchboard/supervisor/asciicast"
)

// A session's output path: the one reader of the PTY, and what it feeds
// (the emulator, the recording) and answers (the emulator's replies).

// readLoop is the only reader of the PTY.
func (s *Session) readLoop() {
	defer close(s.readDone)
	readChunks(s.master, func(c chunk) {
		s.recQ.push(c)
		s.emuQ.push(c)
		s.mu.Lock()
		for sub := range s.subs {
			sub.offer(c.data)
		}
		s.mu.Unlock()
	})
}

// readChunks reads tty until a read fails, and hands each read to deliver
// as a chunk stamped with its time: the read loop of a session here and of
// an agent host's agent (host_agent.go).
func readChunks(tty io.Reader, deliver func(chunk)) {
	// Reads land in a slab that chunks are cut from: a chunk is shared,
	// read-only, by every consumer, so it cannot be a reused buffer, and a
	// fresh 32 KiB buffer per read (most reads are a few KiB) would make
	// the garbage collector the agent's bottleneck.
	var slab []byte
	for {
		if len(slab) < readSize {
			slab = make([]byte, slabSize)
		}
		n, err := tty.Read(slab[:readSize])
		if n > 0 {
			deliver(chunk{data: slab[:n:n], at: time.Now()})
			slab = slab[n:]
		}
		if err != nil {
			// EIO once every process has closed the terminal: the normal
			// end on Linux (on Windows, the end of the pipe once the
			// pseudo console is closed, pty_windows.go).
			return
		}
	}
}

// emulate feeds the emulator from its queue and tells screen watchers. It
// runs in the background (goInBackground): it may fall behind the agent.
func (s *Session) emulate() {
	defer close(s.emuDone)
	var batch []chunk
	for {
		batch = s.emuQ.take(batch)
		if batch == nil {
			return
		}
		before, noteBefore := s.term.Seq(), s.term.Notification().Seq
		for _, c := range batch {
			if c.resize[0] > 0 {
				s.term.Resize(c.resize[0], c.resize[1]) // a hosted session's, in order with its output
			}
			s.term.Write(c.data)
		}
		changed := s.term.Seq() != before
		if !changed && s.term.Notification().Seq == noteBefore {
			continue
		}
		now := time.Now()
		s.mu.Lock()
		s.noteOutputLocked(now, noteBefore, changed)
		if changed {
			s.changedAt = now
		}
		s.notifyScreensLocked()
		s.mu.Unlock()
	}
}

// notifyScreensLocked tells every ScreenChanged watcher that the screen
// changed. s.mu is held.
func (s *Session) notifyScreensLocked() {
	for ch := range s.screens {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// record writes the asciicast file from its queue. Each event carries the
// time its bytes were read, not the time the recorder got to them. It runs
// in the background (goInBackground), like emulate. The recording is
// capped and survives a full disk (recording_cap.go).
func (s *Session) record(f *os.File, w *asciicast.Writer, at *time.Time, done chan<- error) {
	done <- s.recordTo(newRecorder(f.Name(), f, w, at, s.recCap, s.log.With("session", s.id)))
}

// recordTo drains the recorder queue into r until the queue is closed.
func (s *Session) recordTo(r *recorder) error { return recordQueue(s.recQ, r) }

// recordQueue drains q into r until q is closed. It keeps draining after r
// has failed, so the read loop never waits on a broken disk.
func recordQueue(q *queue, r *recorder) error {
	var batch []chunk
	for {
		batch = q.take(batch)
		if batch == nil {
			return r.close()
		}
		for _, c := range batch {
			r.add(c)
		}
		// Flushed when the agent pauses, not after every batch: while it
		// prints, the next batch is already waiting and the writer's
		// buffer fills and writes on its own.
		if q.idle() {
			r.flush()
		}
	}
}

// write is the only writer of the PTY: input, emulator replies and the
// bootstrap prompt, in the order they were queued.
func (s *Session) write() {
	var tty io.Writer = s.master
	if s.hosted != nil {
		tty = s.hosted
	}
	for {
		select {
		case p := <-s.input:
			if _, err := tty.Write(p); err != nil {
				return
			}
		case <-s.stopIn:
			return
		}
	}
}

// reply queues what the emulator answers the program (cursor position,
// device attributes). It must not wait: it runs inside the emulator.
func (s *Session) reply(p []byte) {
	select {
	case s.input <- append([]byte(nil), p...):
	default:
	}
}
