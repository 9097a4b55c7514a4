package supervisor

import (
	"sync"
	"testing"
	"time"
)

func TestSubscriptionCoalescesDropsAndEnds(t *testing.T) {
	s := newSubscription(10)
	s.offer([]byte("abc"))
	s.offer([]byte("def"))
	s.offer([]byte("ghijk")) // 11 bytes would exceed the limit: dropped
	<-s.Ready()
	data, dropped, ended := s.Read()
	if string(data) != "abcdef" || dropped != 5 || ended {
		t.Fatalf("Read = %q, %d, %v; want the first two coalesced and 5 dropped", data, dropped, ended)
	}
	s.offer([]byte("xyz"))
	s.end()
	// Data that arrived before the end is read first; the end is told on
	// a wake-up of its own, so a reader that waits on Ready between the
	// two does not wait forever.
	<-s.Ready()
	if data, _, ended := s.Read(); string(data) != "xyz" || ended {
		t.Fatalf("Read = %q, %v; want the last data, not yet the end", data, ended)
	}
	end, stop := nearDeadline(t)
	defer stop()
	select {
	case <-s.Ready():
	case <-end:
		t.Fatal("no wake-up for the end")
	}
	if _, _, ended := s.Read(); !ended {
		t.Fatal("Read after the end did not say so")
	}
	s.offer([]byte("late"))
	if data, _, _ := s.Read(); len(data) != 0 {
		t.Fatalf("data offered after the end was kept: %q", data)
	}
}

func TestQueueBatchesAndBlocksPastItsLimit(t *testing.T) {
	q := newQueue(8)
	q.push(chunk{data: []byte("1234")})
	q.push(chunk{data: []byte("5678")})
	pushed := make(chan bool)
	go func() { pushed <- q.push(chunk{data: []byte("9")}) }()
	select {
	case <-pushed:
		t.Fatal("push past the limit did not wait for the consumer")
	case <-time.After(50 * time.Millisecond):
	}
	if got := q.take(nil); len(got) != 2 {
		t.Fatalf("take = %d chunks, want both queued ones at once", len(got))
	}
	if !<-pushed {
		t.Fatal("the waiting push failed")
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for q.take(nil) != nil {
		}
	})
	q.close()
	wg.Wait()
	if q.push(chunk{data: []byte("x")}) {
		t.Fatal("push after close succeeded")
	}
}
