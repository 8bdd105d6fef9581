package webhooks

import (
	"fmt"
	"sync"
	"time"
)

// claimQuiet is how long after its last failed claim a sender still counts as failing: a loop
// claims again within its poll (at most a second) or once an attempt in flight ends (within the
// client's timeout), so a run of failures with no claim for this long is over (the loop ended).
const claimQuiet = 15 * time.Second

// claimFailures is one sender's run of failed claims with no claim that went through between
// them. A claim that failed the same way every time (a statement timeout on a large backlog, a
// table the service's role may no longer update) stopped every webhook of its kind; each failure
// was a warning, ten a second, while /healthz said ok: the dispatcher's Run never returned.
type claimFailures struct {
	what string // the sender, for the error: "receipt webhooks", "endpoint webhooks"
	mu   sync.Mutex
	// since is the run's first failure (zero: none), last its latest, err that one's error.
	since, last time.Time
	err         error
}

// claimed records a claim's outcome at now; it reports whether err starts a run of failures
// (the one failure the loop logs: the app's health reports a run that lasts).
func (f *claimFailures) claimed(err error, now time.Time) (first bool) {
	if f == nil {
		return err != nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		f.since, f.last, f.err = time.Time{}, time.Time{}, nil
		return false
	}
	if first = !f.ongoing(now); first {
		f.since = now
	}
	f.last, f.err = now, err
	return first
}

// ongoing says whether a run of failures goes on at now; f.mu held.
func (f *claimFailures) ongoing(now time.Time) bool {
	return !f.since.IsZero() && now.Sub(f.last) < claimQuiet
}

// reading is the run of failures going on at now (zero times and nil when none).
func (f *claimFailures) reading(now time.Time) (since, last time.Time, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ongoing(now) {
		return time.Time{}, time.Time{}, nil
	}
	return f.since, f.last, fmt.Errorf("%s: every claim fails: %w", f.what, f.err)
}

// Failing is the longest run of failed claims the dispatcher's senders (receipt webhooks, endpoint
// webhooks, and subscription webhooks sent through it) are in: since its first failure, the latest at last with err, none of that sender's
// claims went through. The app's health (Watch) marks the dispatcher stuck once a run has lasted a
// minute, naming it and logging err, and clears it when a claim goes through. Times are on the
// wall clock, as the health's.
func (d *Dispatcher) Failing() (since, last time.Time, err error) {
	now := time.Now()
	for _, f := range []*claimFailures{d.receiptClaims, d.endpointClaims, d.subscriptionClaims} {
		if f == nil {
			continue
		}
		if s, l, e := f.reading(now); !s.IsZero() && (since.IsZero() || s.Before(since)) {
			since, last, err = s, l, e
		}
	}
	return since, last, err
}
