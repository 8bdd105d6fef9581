package webhooks

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/panics"
)

// sendLoop is what every sender (the receipt workers, the endpoint worker, the subscription
// sender) does with its outbox: claim as soon as it has room, send each claimed item
// concurrently, and claim again while earlier attempts still wait for their receivers (waiting for
// a whole claim let hanging receivers hold everyone's webhooks for the timeout). One key (merchant
// or endpoint) has at most share attempts in flight, so one with a backlog does not take every
// place; an item may count against several keys (the receipt workers: its merchant's and its
// receiver's). run returns once ctx has ended and no attempt is left running.
type sendLoop[T any, K comparable] struct {
	batch, inFlight, share int
	keys                   *flying[K]  // attempts in flight by key (the receipt workers share one)
	keysOf                 func(T) []K // the keys an item counts against in flight
	claim                  func(ctx context.Context, limit, share int, busy map[K]int) ([]T, error)
	attempt                func(ctx context.Context, item T)
	wake                   chan struct{} // an ended attempt signals it; the loop waits on it
	poll                   time.Duration
	full                   func() // optional, after a full claim (the receipt workers wake one another)
	log                    zerolog.Logger
	what                   string // the claim's warning message
	// fails, when set, records the claims' outcomes (Dispatcher.Failing): a failure is logged
	// when it starts a run, not at every claim of the run (ten a second), which the app's health
	// reports once it lasts. Nil: every failure is logged.
	fails *claimFailures
}

func (l sendLoop[T, K]) run(ctx context.Context) {
	var sending sync.WaitGroup
	defer sending.Wait()
	busy := make(chan struct{}, l.inFlight) // one token per attempt in flight
	for ctx.Err() == nil {
		room := min(l.batch, l.inFlight-len(busy))
		if room > 0 {
			items, err := claimCounted(l.keys, l.keysOf, func(busy map[K]int) ([]T, error) { return l.claim(ctx, room, l.share, busy) })
			if (err == nil || ctx.Err() == nil) && l.fails.claimed(err, time.Now()) {
				l.log.Warn().Err(err).Msg(l.what)
			}
			for _, it := range items {
				ks := l.keysOf(it) // counted in flight by claimCounted
				busy <- struct{}{}
				sending.Go(func() {
					defer func() {
						for _, k := range ks {
							l.keys.add(k, -1) // before the wake-up: a claim sees the place free
						}
						<-busy
						signal(l.wake)
					}()
					// A panicking attempt ends neither the process nor the loop: it is the owning
					// worker's failure (internal/panics), and its item, still leased, is claimed
					// again when the lease runs out (its attempt was not recorded).
					defer panics.Recover(ctx, l.log)
					l.attempt(ctx, it)
				})
			}
			if len(items) == room {
				if l.full != nil {
					l.full()
				}
				continue
			}
		}
		select {
		case <-ctx.Done():
		case <-l.wake:
		case <-time.After(l.poll):
		}
	}
}

// signal wakes whoever waits on c, unless a wake-up is pending already.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// flying counts attempts in flight by endpoint or merchant.
type flying[K comparable] struct {
	claiming sync.Mutex // one claim at a time (claimCounted)
	mu       sync.Mutex
	n        map[K]int
}

// claimCounted runs claim with f's counts and counts what it claimed in flight before another
// claim of f reads them: the claims of the receipt workers, which share one count, take turns.
// Each read the counts at once and counted its items only when its claim came back, so workers
// claiming together each saw a merchant's share free and each took it: a merchant whose receiver
// hangs had several times merchantShare attempts on the wire (48 of 32 with two workers), and up
// to every place of eight workers, its backlog holding up everyone's webhooks again.
func claimCounted[T any, K comparable](f *flying[K], keysOf func(T) []K, claim func(busy map[K]int) ([]T, error)) ([]T, error) {
	f.claiming.Lock()
	defer f.claiming.Unlock()
	items, err := claim(f.snapshot())
	for _, it := range items {
		for _, k := range keysOf(it) {
			f.add(k, 1)
		}
	}
	return items, err
}

func newFlying[K comparable]() *flying[K] { return &flying[K]{n: map[K]int{}} }

func (f *flying[K]) add(k K, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[k] += n; f.n[k] == 0 {
		delete(f.n, k)
	}
}

func (f *flying[K]) snapshot() map[K]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.n)
}
