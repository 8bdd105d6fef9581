package settlement

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

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

// Receipts are read (or, known from the step before, taken from memory) depositRead per chunk, and
// each chunk's decisions appended in one multi-stream append while the next chunk is read;
// receipts recorded one by one (no multi-stream append, a conflict) go depositAppends at once
// (an append waiting on the store's group commit holds no connection).
const (
	depositRead    = 1000
	depositAppends = 256
)

// streamsAppender is the store's optional multi-stream append (eventstore/postgres.Store.AppendStreams).
type streamsAppender interface {
	AppendStreams(ctx context.Context, appends []eventstore.StreamAppend) ([]eventstore.AppendResult, []error)
}

// record records each receipt's observations through the pipeline: decided on the state read in
// one batch and appended with its version as expectation; on a conflict (another detector got
// there first) or any other failure, again through commands.ChangeReceipt, which reloads and
// retries. It returns how many receipts changed, and the receipts whose stream this build cannot
// read (unreadable: their error; deposit_held.go keeps their transfers); the first other error
// stops the cursor. With a store
// that appends to many streams at once, each chunk's decisions go out together (recordChunk)
// while the next chunk is read.
func (d *DepositDetector) record(ctx context.Context, obs map[string][]observation, now time.Time) (int, map[string]error, error) {
	ids := make([]string, 0, len(obs))
	for id := range obs {
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return 0, nil, nil
	}
	r := &recording{d: d, obs: obs, prices: d.prices(ctx), now: now, sem: make(chan struct{}, depositAppends), unreadable: map[string]error{}}
	multi, _ := d.Events.(streamsAppender)
	if multi != nil {
		var cached []string
		ids, cached = d.known.split(ids)
		for len(cached) > 0 {
			c := readChunk{ids: cached[:min(depositRead, len(cached))]}
			cached = cached[len(c.ids):]
			r.wg.Go(func() { r.chunk(ctx, multi, c) })
		}
	}
	for c := range d.readChunks(ctx, ids) {
		if multi == nil || c.read == nil { // no multi-stream append, or the read failed
			r.each(ctx, c.ids, c.read)
			continue
		}
		r.wg.Go(func() { r.chunk(ctx, multi, c) })
	}
	r.wg.Wait()
	return r.changed, r.unreadable, r.firstErr
}

// recording is one step's recording in flight: receipts recorded one by one (each) or a chunk at
// once (chunk), concurrently.
type recording struct {
	d        *DepositDetector
	obs      map[string][]observation
	prices   map[string]string // this step's USD prices (DepositDetector.prices)
	now      time.Time
	sem      chan struct{} // bounds the receipts recorded one by one at once
	wg       sync.WaitGroup
	mu       sync.Mutex
	firstErr error
	changed  int
	// unreadable are the receipts whose stream this build cannot read, with that error: passed
	// over, not failing the step.
	unreadable map[string]error
}

func (r *recording) done(id string, n int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil && errors.Is(err, errReceiptUndecodable) {
		r.unreadable[id] = err
		return
	}
	if err != nil && r.firstErr == nil {
		r.firstErr = recordErr(id, err)
	}
	r.changed += min(n, 1)
}

// each records ids one by one through the pipeline (recordOne), depositAppends at a time.
func (r *recording) each(ctx context.Context, ids []string, read map[string][]eventstore.RecordedEvent) {
	for _, id := range ids {
		r.sem <- struct{}{}
		r.wg.Go(func() {
			defer func() { <-r.sem }()
			n, err := r.d.recordOne(ctx, id, r.obs[id], read[receipt.Stream(id)], r.prices, r.now)
			if err != nil {
				if uerr := r.d.undecodable(ctx, id); uerr != nil {
					err = uerr // this receipt's alone: passed over (deposit_held.go)
				}
			}
			r.done(id, n, err)
		})
	}
}

// chunk decides every receipt of c on the events read (c.read), or, for a chunk without reads, on
// the state this detector last appended (known), and appends the decisions in one multi-stream
// append; a receipt that does not go through that way (changed since, a decision refused) goes
// one by one, reloaded.
func (r *recording) chunk(ctx context.Context, multi streamsAppender, c readChunk) {
	appends, decided := make([]eventstore.StreamAppend, 0, len(c.ids)), make([]*knownReceipt, 0, len(c.ids))
	ids := newEventIDs(len(c.ids))
	var again []string
	for _, id := range c.ids {
		k, ok := r.d.known.get(id)
		var err error
		if c.read != nil || !ok {
			k, err = foldRead(c.read[receipt.Stream(id)])
		}
		var evs []eventstore.EventData
		if err == nil {
			evs, k, err = decideEncode(k, r.obs[id], r.prices, r.now, ids)
		}
		switch {
		case err != nil:
			again = append(again, id)
		case len(evs) > 0:
			appends = append(appends, eventstore.StreamAppend{Stream: receipt.Stream(id), Expected: eventstore.Exact(k.version - uint64(len(evs))), Events: evs})
			decided = append(decided, k)
		}
	}
	if len(appends) > 0 {
		_, errs := multi.AppendStreams(ctx, appends)
		for i, err := range errs {
			id := decided[i].st.Receipt.ReceiptID
			if err != nil {
				r.d.known.forget(id)
				again = append(again, id)
				continue
			}
			r.d.known.put(id, decided[i])
			r.done(id, len(appends[i].Events), nil)
		}
	}
	r.each(ctx, again, nil)
}

// foldRead is a receipt's state and version from its events as read, folded in time linear in
// its credits (receipt.Folder). Errors: the fold's, receipt.ErrNotFound (no events).
func foldRead(evs []eventstore.RecordedEvent) (*knownReceipt, error) {
	k := &knownReceipt{}
	f := receipt.NewFolder(receipt.State{})
	for _, e := range evs {
		ev, err := receipt.Decode(e.Type, e.Data)
		if err != nil {
			return k, err
		}
		if e.Version != k.version+1 {
			return k, fmt.Errorf("receipt stream read with a gap at version %d", e.Version)
		}
		f.Apply(ev)
		k.version = e.Version
	}
	k.st = f.State()
	if !k.st.Exists {
		return k, receipt.ErrNotFound
	}
	return k, nil
}

// decideEncode decides a receipt's observations on k and encodes the events for appending, their
// ids drawn from ids; it returns them and the receipt as they leave it (k itself when they add
// nothing: k is never changed). Errors: decideDeposit's, ids'.
func decideEncode(k *knownReceipt, obs []observation, prices map[string]string, now time.Time, ids *eventIDs) ([]eventstore.EventData, *knownReceipt, error) {
	decided, after, err := decideFold(k.st, obs, prices, now.UnixMilli())
	if err != nil || len(decided) == 0 {
		return nil, k, err
	}
	out := make([]eventstore.EventData, len(decided))
	for i, e := range decided {
		id, err := ids.next()
		if err != nil {
			return nil, k, err
		}
		if out[i], err = commands.NewEvent(id, receipt.TypeOf(e), e, depositMeta); err != nil {
			return nil, k, err
		}
	}
	return out, &knownReceipt{st: after, version: k.version + uint64(len(decided))}, nil
}

// eventIDs draws the version 7 ids of a chunk's events from crypto/rand through one buffer:
// uuid.NewV7 reads the system's randomness 16 bytes at a time, and at a confirming block's
// 10,000 events those reads were 4% of the detector's Go time (issue 38). The ids are as random
// as NewV7's, and as NewV7's ordered by their time.
type eventIDs struct{ r *bufio.Reader }

// newEventIDs is ids for about 2 events of each of n receipts (a confirmation and a payment);
// more are drawn as they are needed.
func newEventIDs(n int) *eventIDs {
	return &eventIDs{r: bufio.NewReaderSize(rand.Reader, min(max(n, 1)*2*16, 64<<10))}
}

func (e *eventIDs) next() (uuid.UUID, error) {
	id, err := uuid.NewV7FromReader(e.r)
	if err != nil {
		return id, fmt.Errorf("deposits: event id: %w", err)
	}
	return id, nil
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
	out, _, err := decideFold(st, obs, prices, at)
	return out, err
}

// decideFold is decideDeposit with the state the events leave the receipt in (folded once).
func decideFold(st receipt.State, obs []observation, prices map[string]string, at int64) ([]receipt.Event, receipt.State, error) {
	var out []receipt.Event
	var uncredited []DepositTransfer // this step's ETH transfers by transaction not credited (dust)
	for _, o := range obs {
		var evs []receipt.Event
		var err error
		if o.t.Contract != "" { // a token not configured: recorded, never credited
			evs, err = receipt.ObserveUnknownToken(st, unknownOf(o.t, at))
		} else {
			evs, err = observeDeposit(st, o, uncredited, prices, at)
		}
		if err != nil {
			return nil, st, err
		}
		if len(evs) == 0 && uncreditedETH(st, o) {
			uncredited = append(uncredited, o.t)
		}
		for _, e := range evs {
			st = receipt.Evolve(st, e)
		}
		out = append(out, evs...)
	}
	return out, st, nil
}

// observeDeposit decides one observation of a transfer or a balance: a balance is what it holds
// beyond the credits (balanceTransfer), named with the senders of the step's uncredited ETH
// transfers it holds (DepositTransferSeen.Senders).
func observeDeposit(st receipt.State, o observation, uncredited []DepositTransfer, prices map[string]string, at int64) ([]receipt.Event, error) {
	t := o.t
	var senders []string
	if o.balance {
		var ok bool
		if t, ok = balanceTransfer(st, t); !ok {
			return nil, nil
		}
		senders = sendersBy(uncredited, t.BlockNumber)
	}
	seen := seenOf(t, at)
	seen.Senders = senders
	return receipt.ObserveDeposit(st, receipt.DepositObservation{Transfer: seen, Confirmed: o.confirmed, Dropped: o.dropped, At: at, Prices: prices})
}

// uncreditedETH says whether o, which added nothing, is an ETH transfer by transaction the
// receipt has no credit of and no balance credit holds: dust (receipt's dust_transfers.go), whose
// ETH the next balance read of this step credits. The block's transactions were read for it, so
// its sender is known (stop 72).
func uncreditedETH(st receipt.State, o observation) bool {
	if o.balance || o.dropped || o.t.LogIndex != receipt.ETHLogIndex || o.t.Sender == "" {
		return false
	}
	if _, known := st.Credit(o.t.TransactionHash, o.t.LogIndex); known {
		return false
	}
	return !st.HeldByBalance(seenOf(o.t, 0))
}

// sendersBy are the distinct senders of ts mined at or before block n, in order.
func sendersBy(ts []DepositTransfer, n uint64) []string {
	var out []string
	for _, t := range ts {
		if t.BlockNumber <= n && !slices.ContainsFunc(out, func(s string) bool { return strings.EqualFold(s, t.Sender) }) {
			out = append(out, t.Sender)
		}
	}
	return out
}

// balanceTransfer is the ETH a deposit's balance at the end of block b shows beyond what its
// credits still hold there: ETH that a contract sent, found by no transaction, and ETH dust. ok
// is false for none. What the credits hold is the ETH they brought (not dropped) less the ETH
// recorded swept from the deposit in blocks up to b's, never below zero: a sweep moves the whole
// balance to the split, so the ETH of a swept credit is no longer in the balance. Compared with
// the credits alone, a deposit swept and then sent ETH by a contract (a failed receipt's late
// payment from a smart wallet) showed no more than it had been credited, and the payment was
// never credited (stop 71). A sweep recorded later than b is not counted: the balance read before
// it still holds what it moved. A sweep mined by b and not recorded yet makes the figure smaller
// (credited later, once recorded); never larger than the balance itself.
func balanceTransfer(st receipt.State, b DepositTransfer) (DepositTransfer, bool) {
	balance, ok := new(big.Int).SetString(b.AmountUnits, 10)
	if !ok {
		return b, false
	}
	held := new(big.Int)
	for _, c := range st.Credits {
		if c.Dropped || !strings.EqualFold(c.Token, "ETH") {
			continue
		}
		if units, ok := new(big.Int).SetString(c.AmountUnits, 10); ok {
			held.Add(held, units)
		}
	}
	for _, w := range st.Sweeps {
		if !strings.EqualFold(w.Token, "ETH") || w.BlockNumber > b.BlockNumber {
			continue
		}
		if units, ok := new(big.Int).SetString(w.AmountUnits, 10); ok {
			held.Sub(held, units)
		}
	}
	if held.Sign() > 0 {
		balance.Sub(balance, held)
	}
	if balance.Sign() <= 0 {
		return b, false
	}
	b.AmountUnits = balance.String()
	return b, true
}

func seenOf(t DepositTransfer, at int64) receipt.DepositTransferSeen {
	return receipt.DepositTransferSeen{TransactionHash: t.TransactionHash, LogIndex: t.LogIndex, BlockNumber: t.BlockNumber,
		BlockHash: t.BlockHash, Sender: t.Sender, Token: t.Token, AmountUnits: t.AmountUnits, Decimals: t.Decimals, BlockTime: t.BlockTime, TxIndex: t.TxIndex, At: at}
}

func unknownOf(t DepositTransfer, at int64) receipt.DepositUnknownToken {
	return receipt.DepositUnknownToken{TransactionHash: t.TransactionHash, LogIndex: t.LogIndex, BlockNumber: t.BlockNumber, BlockHash: t.BlockHash,
		TokenAddress: t.Contract, Sender: t.Sender, AmountUnits: t.AmountUnits, At: at}
}
