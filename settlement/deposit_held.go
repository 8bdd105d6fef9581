package settlement

import (
	"context"
	"errors"
	"fmt"
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
type heldDeposits struct {
	receipts map[string]*heldReceipt
	floor    uint64 // the held cursor as saved: the first block of a kept transfer, 0 for none
	logged   holds[string]
	loaded   bool // the held cursor was read (the detector's first step)
}

// heldReceipt is the transfers kept for one receipt, each once (by transaction and log index).
type heldReceipt struct {
	obs  []observation
	keys map[string]bool
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
	d.held.loaded = true
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
			h = &heldReceipt{keys: map[string]bool{}}
		}
		for _, o := range obs[id] {
			if !o.scanned {
				continue // judgments of credits recorded already, and balances: found again at each step
			}
			k := strings.ToLower(o.t.TransactionHash) + fmt.Sprintf(":%d", o.t.LogIndex)
			if h.keys[k] {
				continue
			}
			h.keys[k] = true
			h.obs = append(h.obs, observation{t: o.t, scanned: true})
		}
		if len(h.obs) > 0 {
			d.held.receipts[id] = h
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

// saveHeld saves the held cursor when its first block changed: before the cursor moves past a
// kept transfer.
func (d *DepositDetector) saveHeld(ctx context.Context) error {
	var floor uint64
	for _, h := range d.held.receipts {
		for _, o := range h.obs {
			if floor == 0 || o.t.BlockNumber < floor {
				floor = max(o.t.BlockNumber, 1)
			}
		}
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
