package cache

import "sync"

// Signal wakes whoever waits on it each time a NOTIFY arrives on a channel it is registered on
// (Invalidations.Register), and each time the listener connects or loses its connection (what
// happened meanwhile was not announced). It carries no payload: a woken waiter re-reads what it
// depends on.
type Signal struct {
	mu        sync.Mutex
	ch        chan struct{}
	listening bool
}

// NewSignal returns a signal; it wakes nobody until registered with a running Invalidations.
func NewSignal() *Signal { return &Signal{ch: make(chan struct{})} }

// Wait returns a channel closed at the next notification, and whether notifications are being
// received now (false: the waiter must poll).
func (s *Signal) Wait() (<-chan struct{}, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ch, s.listening
}

func (s *Signal) wake() {
	close(s.ch)
	s.ch = make(chan struct{})
}

func (s *Signal) invalidate(string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wake()
}

func (s *Signal) setListening(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listening = on
	s.wake()
}
