package testwait

import (
	"testing"
	"time"
)

func TestPoll(t *testing.T) {
	t.Parallel()
	n := 0
	if !Poll(nil, func() bool { n++; return n == 3 }) || n != 3 {
		t.Errorf("Poll gave up on a condition that came true at the third look (%d looks)", n)
	}
	end := make(chan time.Time)
	close(end)
	if Poll(end, func() bool { return false }) {
		t.Error("Poll reported a condition that never held")
	}
}
