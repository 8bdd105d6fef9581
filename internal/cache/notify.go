package cache

// Subscriber receives the notifications of a channel an Invalidations listener follows, for
// uses other than a cache (the payment page's event stream wakes on readmodels.ReceiptsChangedChannel).
// Both functions are called on the listener's goroutine and must not block.
type Subscriber struct {
	// OnNotify gets each payload (readmodels.ReceiptsChangedChannel: comma-separated ids, or "*").
	OnNotify func(payload string)
	// OnListening says whether the listener is connected: while it is not, changes may go
	// unannounced and the subscriber must not rely on notifications.
	OnListening func(on bool)
}

func (s Subscriber) invalidate(payload string) {
	if s.OnNotify != nil {
		s.OnNotify(payload)
	}
}

func (s Subscriber) setListening(on bool) {
	if s.OnListening != nil {
		s.OnListening(on)
	}
}
