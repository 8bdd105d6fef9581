package transport

import "testing"

func TestReceiptWatchWakesOnlyTheAnnouncedStreams(t *testing.T) {
	t.Parallel()
	w := newReceiptWatch(nil, nil)
	a, unsubA := w.subscribe("rcpt_a")
	b, unsubB := w.subscribe("rcpt_b")
	woken := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	w.notify("rcpt_x,rcpt_a")
	w.notify("rcpt_a") // a second wake before the stream reads coalesces
	if !woken(a) || woken(a) || woken(b) {
		t.Fatal("rcpt_a should be woken once, rcpt_b not")
	}
	w.notify("*")
	if !woken(a) || !woken(b) {
		t.Fatal(`"*" wakes every stream`)
	}
	if w.listening.Load() {
		t.Fatal("without a listener the watch must not claim to listen (streams poll)")
	}
	unsubA()
	unsubB()
	if len(w.subs) != 0 {
		t.Fatalf("subscriptions left: %v", w.subs)
	}
}
