package settlement

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// depositMeta is the metadata of the events the deposit detector appends.
var depositMeta = eventstore.Metadata{Actor: "chain", Source: "deposit-detector"}

// streamsReader is the store's optional batch read (eventstore/postgres.Store.ReadStreams).
type streamsReader interface {
	ReadStreams(ctx context.Context, streams []string) (map[string][]eventstore.RecordedEvent, error)
}

// Receipts are read depositRead per query and their facts appended up to depositAppends at once
// (an append waiting on the store's group commit holds no connection).
const (
	depositRead    = 1000
	depositAppends = 256
)

// record records each receipt's observations through the pipeline: decided on the state read in
// one batch and appended with its version as expectation; on a conflict (another detector got
// there first) or any other failure, again through commands.ChangeReceipt, which reloads and
// retries. It returns how many receipts changed; the first error stops the cursor.
func (d *DepositDetector) record(ctx context.Context, obs map[string][]observation, now time.Time) (int, error) {
	ids := make([]string, 0, len(obs))
	for id := range obs {
		ids = append(ids, id)
	}
	var mu sync.Mutex
	var firstErr error
	changed := 0
	done := func(id string, n int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil && firstErr == nil {
			firstErr = recordErr(id, err)
		}
		changed += min(n, 1)
	}
	prices := d.prices(ctx)
	var wg sync.WaitGroup
	sem := make(chan struct{}, depositAppends)
	for c := range d.readChunks(ctx, ids) {
		for _, id := range c.ids {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				n, err := d.recordOne(ctx, id, obs[id], c.read[receipt.Stream(id)], prices, now)
				done(id, n, err)
			})
		}
	}
	wg.Wait()
	return changed, firstErr
}

// readChunk is depositRead receipts and their events as read.
type readChunk struct {
	ids  []string
	read map[string][]eventstore.RecordedEvent
}

// readChunks reads the receipts' events depositRead at a time, ahead of their appends: the next
// chunk is read while the appends of the one before are in flight.
func (d *DepositDetector) readChunks(ctx context.Context, ids []string) <-chan readChunk {
	out := make(chan readChunk, 2)
	go func() {
		defer close(out)
		for len(ids) > 0 {
			chunk := ids[:min(depositRead, len(ids))]
			ids = ids[len(chunk):]
			out <- readChunk{ids: chunk, read: d.readStreams(ctx, chunk)}
		}
	}()
	return out
}

// readStreams reads the receipts' events in one query when the store can (nil otherwise: each is
// loaded by the pipeline).
func (d *DepositDetector) readStreams(ctx context.Context, ids []string) map[string][]eventstore.RecordedEvent {
	r, ok := d.Events.(streamsReader)
	if !ok {
		return nil
	}
	streams := make([]string, len(ids))
	for i, id := range ids {
		streams[i] = receipt.Stream(id)
	}
	read, err := r.ReadStreams(ctx, streams)
	if err != nil {
		return nil
	}
	return read
}

// recordOne records a receipt's observations: first on the events read, then, if that does not
// go through, by the pipeline's retrying path. It returns how many events were appended.
func (d *DepositDetector) recordOne(ctx context.Context, id string, obs []observation, evs []eventstore.RecordedEvent,
	prices map[string]string, now time.Time) (int, error) {
	n := 0
	decide := func(st receipt.State) ([]receipt.Event, error) {
		out, err := decideDeposit(st, obs, prices, now.UnixMilli())
		n = len(out)
		return out, err
	}
	if len(evs) > 0 {
		if _, _, err := commands.ChangeReceiptRead(ctx, d.Events, id, evs, depositMeta, decide); err == nil {
			return n, nil
		}
	}
	_, _, err := commands.ChangeReceipt(ctx, d.Events, id, depositMeta, decide)
	if errors.Is(err, receipt.ErrState) || errors.Is(err, receipt.ErrNotFound) {
		return 0, nil // no deposit address (any more): nothing to credit
	}
	return n, err
}

// prices are the current USD prices that value transfers in unquoted tokens; nil without a price
// source or when they cannot be read (the transfers are then credited and valued later: by the
// next observation, or the first quote in their token).
func (d *DepositDetector) prices(ctx context.Context) map[string]string {
	if d.Prices == nil {
		return nil
	}
	p, err := d.Prices.USDPrices(ctx)
	if err != nil {
		d.Log.Warn().Err(err).Msg("deposit valuation: prices unavailable")
		return nil
	}
	return p
}

// decideDeposit folds the observations of one receipt into the events they add, in order.
func decideDeposit(st receipt.State, obs []observation, prices map[string]string, at int64) ([]receipt.Event, error) {
	var out []receipt.Event
	for _, o := range obs {
		t := o.t
		if o.balance {
			var ok bool
			if t, ok = balanceTransfer(st, t); !ok {
				continue
			}
		}
		evs, err := receipt.ObserveDeposit(st, receipt.DepositObservation{Transfer: seenOf(t, at), Confirmed: o.confirmed, Dropped: o.dropped,
			At: at, Prices: prices})
		if err != nil {
			return nil, err
		}
		for _, e := range evs {
			st = receipt.Evolve(st, e)
		}
		out = append(out, evs...)
	}
	return out, nil
}

// balanceTransfer is the ETH a deposit's balance shows beyond what its transfers already credit
// (not dropped): ETH that a contract sent, found by no transaction. ok is false for none.
func balanceTransfer(st receipt.State, b DepositTransfer) (DepositTransfer, bool) {
	balance, ok := new(big.Int).SetString(b.AmountUnits, 10)
	if !ok {
		return b, false
	}
	for _, c := range st.Credits {
		if c.Dropped || !strings.EqualFold(c.Token, "ETH") {
			continue
		}
		if units, ok := new(big.Int).SetString(c.AmountUnits, 10); ok {
			balance.Sub(balance, units)
		}
	}
	if balance.Sign() <= 0 {
		return b, false
	}
	b.AmountUnits = balance.String()
	return b, true
}

func seenOf(t DepositTransfer, at int64) receipt.DepositTransferSeen {
	return receipt.DepositTransferSeen{TransactionHash: t.TransactionHash, LogIndex: t.LogIndex, BlockNumber: t.BlockNumber,
		BlockHash: t.BlockHash, Sender: t.Sender, Token: t.Token, AmountUnits: t.AmountUnits, Decimals: t.Decimals, At: at}
}
