package settlement

// The verifier's follow list: which pending payments the watcher follows, and which wait.

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// followList keeps the watcher following the receipts pending on a wallet payment (the work
// list, read from the receipts read model, so that a restart or another instance's submission is
// picked up). A payment whose expectation cannot be built yet, or just decided, waits (skip).
type followList struct {
	pending interface {
		PendingWalletPayments(ctx context.Context, afterID string, limit int) ([]PendingWalletPayment, error)
	}
	watcher interface {
		Watch(w WatchedPayment) error
		Unwatch(txHash string)
	}
	expect expectations
	page   int

	mu       sync.Mutex
	followed map[string]PendingWalletPayment // lower-case hash -> payment
	skip     map[string]time.Time            // receipt/attempt -> not before (unbuildable, or just decided)
}

// sync follows the payments of the work list not followed yet and stops following those no
// longer in it. Errors: wrapped store errors.
func (f *followList) sync(ctx context.Context, now time.Time) error {
	list, err := f.pendingAll(ctx)
	if err != nil {
		return err
	}
	for _, p := range f.fresh(list, now) {
		e, err := f.expect.expectation(ctx, p)
		if err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Str("receipt_id", p.ReceiptID).Msg("wallet payment cannot be verified yet")
			f.hold(p, now.Add(retryBuild))
			continue
		}
		f.mu.Lock()
		if _, ok := f.followed[e.TxHash]; ok {
			f.watcher.Unwatch(e.TxHash) // the same hash, resubmitted by a newer attempt
		}
		if err := f.watcher.Watch(e); err == nil {
			f.followed[e.TxHash] = p
		}
		f.mu.Unlock()
	}
	return nil
}

// fresh returns the payments of list to follow (neither followed for the same attempt nor
// waiting), stops following those not in list, and forgets the waits that ended.
func (f *followList) fresh(list []PendingWalletPayment, now time.Time) []PendingWalletPayment {
	f.mu.Lock()
	defer f.mu.Unlock()
	current := make(map[string]bool, len(list))
	var fresh []PendingWalletPayment
	for _, p := range list {
		p.TransactionHash = strings.ToLower(p.TransactionHash)
		hash := p.TransactionHash
		current[hash] = true
		if fl, ok := f.followed[hash]; ok && fl.ReceiptID == p.ReceiptID && fl.AttemptID == p.AttemptID {
			continue
		}
		if until, ok := f.skip[p.ReceiptID+"/"+p.AttemptID]; ok && now.Before(until) {
			continue
		}
		fresh = append(fresh, p)
	}
	for hash := range f.followed {
		if !current[hash] {
			delete(f.followed, hash)
			f.watcher.Unwatch(hash)
		}
	}
	for k, until := range f.skip {
		if !now.Before(until) {
			delete(f.skip, k)
		}
	}
	return fresh
}

// pendingAll reads every page of the work list.
func (f *followList) pendingAll(ctx context.Context) ([]PendingWalletPayment, error) {
	var all []PendingWalletPayment
	after := ""
	for {
		list, err := f.pending.PendingWalletPayments(ctx, after, f.page)
		if err != nil {
			return nil, err
		}
		all = append(all, list...)
		if len(list) < f.page {
			return all, nil
		}
		after = list[len(list)-1].ReceiptID
	}
}

// take stops following the payment of hash (its verdict is in) and returns it; false when it is
// not followed (removed while the step ran).
func (f *followList) take(hash string) (PendingWalletPayment, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.followed[hash]
	delete(f.followed, hash)
	return p, ok
}

// hold keeps p's attempt from being followed again before until.
func (f *followList) hold(p PendingWalletPayment, until time.Time) {
	f.mu.Lock()
	f.skip[p.ReceiptID+"/"+p.AttemptID] = until
	f.mu.Unlock()
}

// release lets p's attempt be followed again from the next sync.
func (f *followList) release(p PendingWalletPayment) {
	f.mu.Lock()
	delete(f.skip, p.ReceiptID+"/"+p.AttemptID)
	f.mu.Unlock()
}
