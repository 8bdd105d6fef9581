package settlement

import (
	"context"
	"fmt"
	"math/big"
	"sort"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// settle records the outcome of every open sweep of the operator: mined, its Swept events become
// DepositSwept on their receipts (recorded once per transaction and token, however often a
// settle runs, by this process or another), then its deposits are freed; not mined, it is
// broadcast again.
func (h *SweepDepositsHandler) settle(ctx context.Context, out *Swept) error {
	open, err := h.ledger.OpenSweeps(ctx, h.chain.Sender())
	if err != nil {
		return err
	}
	for _, o := range open {
		res, err := h.chain.SweepOutcome(ctx, o.Tx.Hash, o.Deposits)
		if err != nil {
			return fmt.Errorf("sweep %s: %w", o.Tx.Hash, err)
		}
		if res == nil {
			if err := h.chain.Broadcast(ctx, o.Tx.Raw); err != nil {
				return fmt.Errorf("rebroadcast sweep %s: %w", o.Tx.Hash, err)
			}
			continue
		}
		changes, err := h.record(ctx, o.Tx.Hash, res)
		if err != nil {
			return err
		}
		out.Recorded = append(out.Recorded, changes...)
		for _, f := range res.Failed {
			zerolog.Ctx(ctx).Warn().Str("receipt", f.ReceiptID).Str("token", f.Token).Str("reason", f.Reason).
				Msg("deposit sweep: a flush failed; its funds stay at the deposit until the receipt changes")
		}
		if err := h.ledger.SettleSweep(ctx, o.Tx.ID, settledStatus(res.Success), res.GasUsed, stuck(o, res)); err != nil {
			return err
		}
		out.Settled++
	}
	return nil
}

func settledStatus(ok bool) string {
	if ok {
		return TxMined
	}
	return TxReverted
}

// stuck are the receipts of o whose sweep cannot go through as it is: a flush the factory caught
// (SweepFailed), or the only deposit of a reverted sweep. They wait for their receipt to change.
func stuck(o OpenSweep, res *SweepOutcome) []string {
	var ids []string
	if !res.Success && len(o.Deposits) == 1 {
		ids = append(ids, o.Deposits[0].ReceiptID)
	}
	for _, f := range res.Failed {
		ids = append(ids, f.ReceiptID)
	}
	return ids
}

// record appends DepositSwept for each receipt and token the sweep moved.
func (h *SweepDepositsHandler) record(ctx context.Context, hash string, res *SweepOutcome) ([]commands.ReceiptChange, error) {
	byReceipt := map[string]map[string]*big.Int{}
	for _, s := range res.Swept {
		if byReceipt[s.ReceiptID] == nil {
			byReceipt[s.ReceiptID] = map[string]*big.Int{}
		}
		if byReceipt[s.ReceiptID][s.Token] == nil {
			byReceipt[s.ReceiptID][s.Token] = new(big.Int)
		}
		byReceipt[s.ReceiptID][s.Token].Add(byReceipt[s.ReceiptID][s.Token], s.Amount)
	}
	ids := make([]string, 0, len(byReceipt))
	for id := range byReceipt {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	meta := eventstore.Metadata{Actor: "sweeper", Source: "deposit sweep"}
	var out []commands.ReceiptChange
	for _, id := range ids {
		var evs []receipt.DepositSwept
		for token, amount := range byReceipt[id] {
			evs = append(evs, receipt.DepositSwept{TransactionHash: hash, Token: token, AmountUnits: amount.String(), BlockNumber: res.BlockNumber,
				At: h.now().UnixMilli()})
		}
		sort.Slice(evs, func(i, j int) bool { return evs[i].Token < evs[j].Token })
		_, r, err := commands.ChangeReceipt(ctx, h.store, id, meta, func(s receipt.State) ([]receipt.Event, error) {
			return receipt.RecordSweeps(s, evs)
		})
		if err != nil {
			return out, fmt.Errorf("receipt %s: %w", id, err)
		}
		if r.Position != (eventstore.Position{}) {
			out = append(out, commands.ReceiptChange{ReceiptID: id, Result: r})
		}
	}
	return out, nil
}
