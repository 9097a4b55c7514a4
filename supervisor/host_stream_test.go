//go:build unix

package supervisor

import (
	"testing"

	"github.com/switchboard-dev/switchboard/supervisor/hostwire"
)

// A HostStream hands out the state, then the live output, never a Read
// across a resize, with Size the size of the last Read's bytes; output out
// of place ends it with an error.
func TestHostStreamOrder(t *testing.T) {
	at := hostwire.Attached{Session: "ses_a", Offset: 100, Caught: 4, Cols: 80, Rows: 24}
	type read struct {
		data       string
		cols, rows int
		ended      bool
	}
	for _, tc := range []struct {
		name  string
		feed  func(s *HostStream)
		reads []read
		fails bool
	}{
		{"state then output", func(s *HostStream) {
			s.deliverState(100, []byte("ST"))
			s.deliverState(100, []byte("AT"))
			s.deliver(100, []byte("live"))
		}, []read{{"STATlive", 80, 24, false}}, false},
		{"a resize splits the reads", func(s *HostStream) {
			s.deliverState(100, []byte("STAT"))
			s.deliver(100, []byte("old"))
			s.resized(hostwire.Size{Cols: 100, Rows: 30})
			s.deliver(103, []byte("new"))
			s.resized(hostwire.Size{Cols: 90, Rows: 20})
			s.ended(&hostwire.Exit{Reason: "exited"}, nil)
		}, []read{{"STATold", 80, 24, false}, {"new", 100, 30, false}, {"", 90, 20, true}}, false},
		{"output before the whole state", func(s *HostStream) {
			s.deliverState(100, []byte("ST"))
			s.deliver(100, []byte("live"))
		}, []read{{"ST", 80, 24, false}, {"", 80, 24, true}}, true},
		{"a gap", func(s *HostStream) {
			s.deliverState(100, []byte("STAT"))
			s.deliver(101, []byte("live"))
		}, []read{{"STAT", 80, 24, false}, {"", 80, 24, true}}, true},
		{"state after output", func(s *HostStream) {
			s.deliverState(100, []byte("STAT"))
			s.deliver(100, []byte("live"))
			s.deliverState(100, []byte("X"))
		}, []read{{"STATlive", 80, 24, false}, {"", 80, 24, true}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newHostStream(nil, at)
			tc.feed(s)
			for i, want := range tc.reads {
				select {
				case <-s.Ready():
				default:
					t.Fatalf("read %d: Ready not signalled", i)
				}
				data, _, ended := s.Read()
				cols, rows := s.Size()
				if got := (read{string(data), cols, rows, ended}); got != want {
					t.Errorf("read %d = %+v, want %+v", i, got, want)
				}
			}
			if err := s.Err(); (err != nil) != tc.fails {
				t.Errorf("Err = %v, want an error: %v", err, tc.fails)
			}
		})
	}
}
