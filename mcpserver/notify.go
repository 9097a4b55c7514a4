package mcpserver

import "sync"

// signals wakes long polls when the state they wait on may have changed:
// work.await_packet waits on its repository, session.await_answer on its
// question. A waiter takes the channel first, then re-checks the state in a
// transaction, then waits on the channel: a change committed between the
// check and the wait still closes the channel it holds, so no wake-up is
// lost. Signals are sent after commit, never inside a transaction.
type signals struct {
	mu sync.Mutex
	// waiting maps a key to the channel its next signal closes. Guarded by
	// mu.
	waiting map[string]chan struct{}
	// onWait, when set, is called with the key of every wait, after the
	// channel is taken (Options.OnWait).
	onWait func(key string)
}

func newSignals(onWait func(key string)) *signals {
	return &signals{waiting: map[string]chan struct{}{}, onWait: onWait}
}

// wait returns a channel closed by the next signal of key.
func (s *signals) wait(key string) <-chan struct{} {
	s.mu.Lock()
	ch, ok := s.waiting[key]
	if !ok {
		ch = make(chan struct{})
		s.waiting[key] = ch
	}
	s.mu.Unlock()
	if s.onWait != nil {
		s.onWait(key)
	}
	return ch
}

// signal wakes every waiter of key.
func (s *signals) signal(key string) {
	s.mu.Lock()
	ch, ok := s.waiting[key]
	delete(s.waiting, key)
	s.mu.Unlock()
	if ok {
		close(ch)
	}
}

// signalAll wakes every waiter: anything may have changed (another
// instance's signals may have been missed).
func (s *signals) signalAll() {
	s.mu.Lock()
	waiting := s.waiting
	s.waiting = map[string]chan struct{}{}
	s.mu.Unlock()
	for _, ch := range waiting {
		close(ch)
	}
}

// fromOtherInstance is a signal another instance sharing the database
// committed (store.DB.OnSignal): "" for any.
func (s *signals) fromOtherInstance(key string) {
	if key == "" {
		s.signalAll()
		return
	}
	s.signal(key)
}

// Parked reports whether a long poll waits on key (QueueKey, QuestionKey,
// TraceKey).
func (r *Registry) Parked(key string) bool { return r.sig.hasWaiters(key) }

// hasWaiters reports whether anyone waits on key.
func (s *signals) hasWaiters(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.waiting[key]
	return ok
}
