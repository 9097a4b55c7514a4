package mcpserver

import (
	"sync"
	"testing"
	"time"
)

func TestSignalsWakeEveryWaiterOnce(t *testing.T) {
	s := newSignals(nil)
	a, b := s.wait("repo_a"), s.wait("repo_a")
	other := s.wait("repo_b")
	s.signal("repo_a")
	for _, ch := range []<-chan struct{}{a, b} {
		select {
		case <-ch:
		case <-time.After(time.Second):
			t.Fatal("a waiter of repo_a was not woken")
		}
	}
	select {
	case <-other:
		t.Fatal("repo_b woken by repo_a's signal")
	default:
	}
	// A wait after the signal waits for the next one.
	next := s.wait("repo_a")
	select {
	case <-next:
		t.Fatal("a new waiter saw an old signal")
	default:
	}
	s.signal("nobody waits") // no effect, no panic
}

// No lost wake-up: a waiter that takes its channel before checking state
// is woken by a signal that lands between its check and its wait.
func TestSignalsNoLostWakeup(t *testing.T) {
	s := newSignals(nil)
	var mu sync.Mutex
	available := 0
	var wg sync.WaitGroup
	const n = 200
	for i := 0; i < n; i++ {
		wg.Add(2)
		go func() { // producer
			defer wg.Done()
			mu.Lock()
			available++
			mu.Unlock()
			s.signal("k")
		}()
		go func() { // consumer
			defer wg.Done()
			for {
				ch := s.wait("k")
				mu.Lock()
				if available > 0 {
					available--
					mu.Unlock()
					return
				}
				mu.Unlock()
				select {
				case <-ch:
				case <-time.After(5 * time.Second):
					t.Error("consumer never woken: a wake-up was lost")
					return
				}
			}
		}()
	}
	wg.Wait()
}
