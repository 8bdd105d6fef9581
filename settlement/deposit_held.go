package settlement

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// heldDeposits are the transfers found for receipts whose stream this build cannot read (an event
// of a newer build, during a rollback or a rolling upgrade): they could not be recorded, and the
// cursor moves past their blocks, so the detector keeps them and records them at the first step
// that can read the receipt again. Before, such a receipt failed every step (the cursor stayed,
// and detection stopped for every merchant); now it waits alone.
//
// The memory is this process's; the first block of a kept transfer is saved too, as the cursor
// named heldCursor(name) (Number 0: none kept), before the cursor moves past it. A detector's
// first step reads again from there (recording is idempotent by credit), so a restart (the newer
// build replacing this one) finds the kept transfers again.
//
// The receipts themselves are watched whatever the watch list says of them (watch, saved with
// DepositStore.SaveHeld before the cursor moves): until their kept transfers are recorded and
// judged at their depth. Before, a receipt that left the watch list meanwhile (paid more than
// PAYMENT_MONITOR_WINDOW ago, past its late watch, refunded by the newer build) had its transfer
// recorded by this process as seen and never confirmed, and, after a restart, never found again
// when the detector read its blocks again: the customer's money at the deposit, credited nowhere.
type heldDeposits struct {
	receipts map[string]*heldReceipt
	// watch is the receipts watched for their kept transfers, each with the first block of them;
	// saved is watch as the database holds it (DepositStore.Held).
	watch, saved map[string]uint64
	floor        uint64 // the held cursor as saved: the first block of a kept transfer, 0 for none
	logged       holds[string]
	loaded       bool // the held cursor was read (the detector's first step)
}

// heldReceipt is the transfers kept for one receipt, each once (by transaction and log index).
type heldReceipt struct {
	obs  []observation
	keys map[string]int // index in obs
}

// add keeps the transfer o found, as seen only, or, kept already, keeps it where o found it: a
// reorg that moved it to another block has the scans find it there (a step's observations come
// after the kept ones). Kept where it was first found, it was recorded in a block the chain no
// longer holds, then judged dropped: the payment credited as never made.
func (h *heldReceipt) add(o observation) {
	k := strings.ToLower(o.t.TransactionHash) + fmt.Sprintf(":%d", o.t.LogIndex)
	if i, ok := h.keys[k]; ok {
		h.obs[i] = observation{t: o.t, scanned: true}
		return
	}
	h.keys[k] = len(h.obs)
	h.obs = append(h.obs, observation{t: o.t, scanned: true})
}

// heldSuffix names the held cursor of a detector: its own name and this.
const heldSuffix = ".held"

// resume is where a detector's first step reads from: cur, or, when the held cursor saved by a
// process before names an earlier block, the block before it (the kept transfers are found again
// there; the blocks between are read again, which records nothing twice).
func (d *DepositDetector) resume(ctx context.Context, cur DepositCursor) (DepositCursor, error) {
	if d.held.loaded {
		return cur, nil
	}
	h, ok, err := d.Store.Cursor(ctx, d.name()+heldSuffix)
	if err != nil {
		return cur, err
	}
	watch, err := d.Store.Held(ctx, d.name(), d.genesis)
	if err != nil {
		return cur, err
	}
	d.held.loaded, d.held.watch, d.held.saved = true, watch, maps.Clone(watch)
	if !ok || h.Number == 0 || h.Genesis != d.genesis {
		return cur, nil
	}
	d.held.floor = h.Number
	if h.Number > cur.Number {
		return cur, nil
	}
	d.Log.Info().Uint64("cursor", cur.Number).Uint64("from", h.Number).
		Msg("deposits: reading again from the first block of transfers kept for receipts that could not be read")
	return DepositCursor{Number: h.Number - 1, Genesis: cur.Genesis, WatchedAt: cur.WatchedAt}, nil
}

// withHeld adds the transfers kept for unreadable receipts to a step's observations, before the
// step's own: they are tried again each step.
func (d *DepositDetector) withHeld(obs map[string][]observation) {
	for id, h := range d.held.receipts {
		obs[id] = append(slices.Clone(h.obs), obs[id]...)
	}
}

// keep updates the kept transfers after a step recorded obs: a receipt recorded is no longer
// kept; a receipt that could not be read (unreadable, its error) keeps the transfers the scan
// found for it, as seen only (their depth is judged again once recorded, as any credit's). It
// returns the first such receipt's error (by id), logged once every unreadableLogEvery per
// receipt at error level.
func (d *DepositDetector) keep(obs map[string][]observation, unreadable map[string]error, now time.Time) error {
	if d.held.receipts == nil {
		d.held.receipts = map[string]*heldReceipt{}
	}
	if d.held.logged == nil {
		d.held.logged = holds[string]{}
	}
	for id := range d.held.receipts {
		if _, still := unreadable[id]; !still {
			delete(d.held.receipts, id)
		}
	}
	ids := make([]string, 0, len(unreadable))
	for id := range unreadable {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var first error
	for _, id := range ids {
		h := d.held.receipts[id]
		if h == nil {
			h = &heldReceipt{keys: map[string]int{}}
		}
		for _, o := range obs[id] {
			if o.scanned { // not judgments of credits recorded already, nor balances: found again at each step
				h.add(o)
			}
		}
		if len(h.obs) > 0 {
			d.held.receipts[id] = h
			d.watchHeld(id, h.obs)
		}
		stream := receipt.Stream(id)
		err := fmt.Errorf("receipt %s (stream %s) cannot be read; %d transfers to its deposit wait: %w", id, stream, len(h.obs), unreadable[id])
		if first == nil {
			first = err
		}
		if d.held.logged.of(stream, now) == nil {
			d.held.logged.put(stream, now.Add(unreadableLogEvery), err)
			d.Log.Error().Err(err).Str("receipt", id).Str("stream", stream).Int("transfers", len(h.obs)).
				Msg("deposits: the receipt holds an event this build cannot read; its transfers are kept and recorded once it can be read, the other receipts are credited")
		}
	}
	return first
}

// watchHeld watches receipt id from the first block of its kept transfers obs.
func (d *DepositDetector) watchHeld(id string, obs []observation) {
	if d.held.watch == nil {
		d.held.watch = map[string]uint64{}
	}
	for _, o := range obs {
		b := max(o.t.BlockNumber, 1)
		if from, ok := d.held.watch[id]; !ok || b < from {
			d.held.watch[id] = b
		}
	}
}

// withHeldWatch adds to open the receipts watched for their kept transfers that open lacks
// (the watch list let them go; known as OpenKnown's): one more query, only while some are.
func (d *DepositDetector) withHeldWatch(ctx context.Context, open []OpenDeposit, now time.Time, known map[string]uint64) ([]OpenDeposit, error) {
	if len(d.held.watch) == 0 {
		return open, nil
	}
	in := make(map[string]bool, len(open))
	for _, o := range open {
		in[o.ReceiptID] = true
	}
	var ids []string
	for id := range d.held.watch {
		if !in[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return open, nil
	}
	slices.Sort(ids)
	more, err := d.Store.DepositsOf(ctx, ids, now, d.Monitor, known)
	if err != nil {
		return nil, err
	}
	return append(open, more...), nil
}

// releaseHeld stops watching, after a step up to block to, the receipts whose kept transfers are
// recorded and judged: readable, read past their first block, with no transfer recorded by this
// step and none waiting for its depth (open, as the step read them). A receipt that open lacks
// has no deposit to watch (its chain gone): released too.
func (d *DepositDetector) releaseHeld(obs map[string][]observation, unreadable map[string]error, open []OpenDeposit, to uint64) {
	if len(d.held.watch) == 0 {
		return
	}
	waiting := map[string]bool{}
	for _, o := range open {
		if len(o.Unconfirmed) > 0 {
			waiting[o.ReceiptID] = true
		}
	}
	for id, from := range d.held.watch {
		_, still := unreadable[id]
		if still || to < from || waiting[id] || slices.ContainsFunc(obs[id], func(o observation) bool { return o.scanned }) {
			continue
		}
		delete(d.held.watch, id)
	}
}

// saveHeld saves the receipts watched for their kept transfers, and the held cursor when its
// first block changed: before the cursor moves past a kept transfer.
func (d *DepositDetector) saveHeld(ctx context.Context) error {
	set, drop := map[string]uint64{}, []string(nil)
	var floor uint64
	for id, from := range d.held.watch {
		if d.held.saved[id] != from {
			set[id] = from
		}
		if floor == 0 || from < floor {
			floor = from
		}
	}
	for id := range d.held.saved {
		if _, ok := d.held.watch[id]; !ok {
			drop = append(drop, id)
		}
	}
	if len(set) > 0 || len(drop) > 0 {
		if err := d.Store.SaveHeld(ctx, d.name(), d.genesis, set, drop); err != nil {
			return err
		}
		d.held.saved = maps.Clone(d.held.watch)
	}
	if floor == d.held.floor {
		return nil
	}
	if err := d.Store.SaveCursor(ctx, d.name()+heldSuffix, DepositCursor{Number: floor, Genesis: d.genesis}); err != nil {
		return err
	}
	d.held.floor = floor
	return nil
}

// undecodable is the error of an event of receipt id's stream this build cannot read, nil when
// there is none (read again: the pipeline's error does not say which it was).
func (d *DepositDetector) undecodable(ctx context.Context, id string) error {
	_, err := commands.Load(ctx, d.Events, commands.ReceiptStream(id), readableReceipt, receipt.State{})
	if errors.Is(err, errReceiptUndecodable) {
		return err
	}
	return nil
}
