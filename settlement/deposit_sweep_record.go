package settlement

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// settle records the outcome of every open sweep of the operator: mined CHAIN_CONFIRMATIONS deep
// in a block still on the chain, its Swept events become DepositSwept on their receipts
// (recorded once per transaction and token, however often a settle runs, by this process or
// another), then its deposits are freed; not that deep yet (a reorg may still drop it), it is
// broadcast again; its nonce taken by another transaction of the key, it is dropped.
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
			dropped, err := h.dropped(ctx, o, out)
			if err != nil {
				return err
			}
			if dropped {
				continue
			}
			if err := h.chain.Broadcast(ctx, o.Tx.Raw); err != nil {
				return fmt.Errorf("rebroadcast sweep %s: %w", o.Tx.Hash, err)
			}
			continue
		}
		for i := range res.Swept {
			res.Swept[i].TransactionHash, res.Swept[i].BlockNumber = o.Tx.Hash, res.BlockNumber
		}
		changes, err := h.record(ctx, res.Swept)
		if err != nil {
			return err
		}
		out.Recorded = append(out.Recorded, changes...)
		for _, f := range res.Failed {
			zerolog.Ctx(ctx).Error().Str("receipt", f.ReceiptID).Str("token", f.Token).Str("reason", f.Reason).
				Msg("deposit sweep: a flush failed; its funds stay at the deposit until the receipt changes")
		}
		elsewhere, err := h.sweptElsewhere(ctx, o, res, out)
		if err != nil {
			return err
		}
		held, err := h.stuck(ctx, o, res)
		if err != nil {
			return err
		}
		if err := h.ledger.SettleSweep(ctx, o.Tx.ID, settledStatus(res.Success), res.GasUsed, append(held, elsewhere...)); err != nil {
			return err
		}
		out.Settled++
		if err := h.holdReverted(ctx, o, res); err != nil {
			return err
		}
	}
	return nil
}

// dropped settles o when it can no longer be mined: its nonce was taken by another transaction
// of the operator's key (a crash between recording it and sending it, then a transaction the
// ledger did not sign: serve's factory deployment takes the node's pending nonce). Rebroadcast,
// it got "nonce too low", taken as sent, and it stayed open for good with its deposits never
// claimed again. Its deposits are freed to be swept again by a new sweep; it is recorded
// reverted with no gas (operator_transactions has no dropped status: a migration would add one).
func (h *SweepDepositsHandler) dropped(ctx context.Context, o OpenSweep, out *Swept) (bool, error) {
	gone, err := h.chain.Replaced(ctx, o.Tx.Hash, o.Tx.Nonce)
	if err != nil {
		return false, fmt.Errorf("sweep %s: %w", o.Tx.Hash, err)
	}
	if !gone {
		return false, nil
	}
	zerolog.Ctx(ctx).Error().Str("tx", o.Tx.Hash).Uint64("nonce", o.Tx.Nonce).Int("deposits", len(o.Deposits)).
		Msg("deposit sweep: dropped, another transaction of the operator key took its nonce; its deposits will be swept again")
	if err := h.ledger.SettleSweep(ctx, o.Tx.ID, TxReverted, 0, nil); err != nil {
		return false, err
	}
	out.Dropped++
	return true, nil
}

// holdReverted holds back the split of a sweep mined reverted whose deposits are all of that one
// split, when it is not the operator's PaymentSplit code: a contract that receives cheaply when
// estimated and burns the gas when mined (the factory's OutOfGas) would otherwise have its
// deposits freed and swept again every pass, each sweep's gas limit paid by the operator.
func (h *SweepDepositsHandler) holdReverted(ctx context.Context, o OpenSweep, res *SweepOutcome) error {
	if res.Success || len(o.Deposits) == 0 {
		return nil
	}
	split := strings.ToLower(o.Deposits[0].Split)
	for _, d := range o.Deposits {
		if !strings.EqualFold(d.Split, split) {
			return nil
		}
	}
	standard, err := h.chain.StandardSplit(ctx, split)
	if err != nil || standard {
		return err
	}
	h.holdBack(ctx, SweepCandidate{ReceiptID: o.Deposits[0].ReceiptID, Split: split},
		fmt.Errorf("%w: its sweep %s reverted when mined (%d gas)", ErrSweepGas, o.Tx.Hash, res.GasUsed))
	return nil
}

func settledStatus(ok bool) string {
	if ok {
		return TxMined
	}
	return TxReverted
}

// stuck are the receipts of o whose sweep cannot go through as it is: a flush the factory caught
// (SweepFailed), or the only deposit of a reverted sweep to a split that is not the operator's
// PaymentSplit code (holdReverted holds that split back). They wait for their receipt to change.
//
// A reverted sweep to the operator's own split code is freed, its deposit swept again at a new
// estimate: its gas was estimated on a chain that changed before it was mined, not a deposit that
// cannot be swept (a release of the same split signed at a lower nonce, by this instance's
// distributor or another's, emptied the split's balance of the token, and the transfer into it
// then cost the new storage slot the estimate had not counted: out of gas). Kept as stuck, such a
// receipt stayed paid for good, its funds at the deposit, with no log. A deposit whose sweep
// reverts whatever the state is caught by the next estimate (ErrSweepReverts: left checked, no
// gas spent).
func (h *SweepDepositsHandler) stuck(ctx context.Context, o OpenSweep, res *SweepOutcome) ([]string, error) {
	var ids []string
	if !res.Success {
		zerolog.Ctx(ctx).Error().Str("tx", o.Tx.Hash).Uint64("gas_used", res.GasUsed).Int("deposits", len(o.Deposits)).
			Msg("deposit sweep reverted when mined; its deposits are swept again at a new estimate, unless their split is not the operator's code")
	}
	if !res.Success && len(o.Deposits) == 1 {
		standard, err := h.chain.StandardSplit(ctx, strings.ToLower(o.Deposits[0].Split))
		if err != nil {
			return nil, fmt.Errorf("the code of split %s: %w", o.Deposits[0].Split, err)
		}
		if !standard {
			ids = append(ids, o.Deposits[0].ReceiptID)
		}
	}
	for _, f := range res.Failed {
		ids = append(ids, f.ReceiptID)
	}
	return ids, nil
}

// sweptElsewhere handles the deposits a successful sweep found empty (no Swept event, no
// failure): sweeping is permissionless, so someone else moved their funds first. Their deposits'
// Swept events on chain up to o's block (res is CHAIN_CONFIRMATIONS deep, so they are too) are
// recorded instead; they are returned as stuck, so that a deposit whose credits are still not
// covered is not swept again and again for nothing. A sweep by someone else after o's block may
// still be replaced by a fork: it is not recorded (recorded, a fork dropping it left the receipt
// swept for good with the funds at its deposit), and its deposit is not stuck but checked again,
// so the later sweep is recorded once the operator's next sweep, finding the deposit empty, is deep.
func (h *SweepDepositsHandler) sweptElsewhere(ctx context.Context, o OpenSweep, res *SweepOutcome, out *Swept) ([]string, error) {
	if !res.Success {
		return nil, nil
	}
	seen := map[string]bool{}
	for _, f := range res.Swept {
		seen[f.ReceiptID] = true
	}
	for _, f := range res.Failed {
		seen[f.ReceiptID] = true
	}
	var ids []string
	for _, d := range o.Deposits {
		if seen[d.ReceiptID] {
			continue
		}
		funds, err := h.chain.DepositSweeps(ctx, d)
		if err != nil {
			return nil, fmt.Errorf("sweeps of the deposit of %s: %w", d.ReceiptID, err)
		}
		all := len(funds)
		deep := slices.DeleteFunc(funds, func(f SweptFunds) bool { return f.BlockNumber > res.BlockNumber })
		changes, err := h.record(ctx, deep)
		if err != nil {
			return nil, err
		}
		out.Recorded = append(out.Recorded, changes...)
		if len(deep) == all {
			ids = append(ids, d.ReceiptID)
		}
	}
	return ids, nil
}

// record appends DepositSwept for each receipt, transaction and token of funds, those not
// recorded yet.
func (h *SweepDepositsHandler) record(ctx context.Context, funds []SweptFunds) ([]commands.ReceiptChange, error) {
	type key struct{ tx, token string }
	byReceipt := map[string]map[key]*receipt.DepositSwept{}
	for _, f := range funds {
		if byReceipt[f.ReceiptID] == nil {
			byReceipt[f.ReceiptID] = map[key]*receipt.DepositSwept{}
		}
		k := key{strings.ToLower(f.TransactionHash), f.Token}
		e := byReceipt[f.ReceiptID][k]
		if e == nil {
			e = &receipt.DepositSwept{TransactionHash: k.tx, Token: f.Token, AmountUnits: "0", BlockNumber: f.BlockNumber, At: h.now().UnixMilli()}
			byReceipt[f.ReceiptID][k] = e
		}
		sum, _ := new(big.Int).SetString(e.AmountUnits, 10)
		e.AmountUnits = sum.Add(sum, f.Amount).String()
		if f.LogIndex != nil && (e.LogIndex == nil || *f.LogIndex > *e.LogIndex) {
			li := *f.LogIndex // the last Swept event of the transaction for this token
			e.LogIndex = &li
		}
		if f.TxIndex != nil {
			ti := *f.TxIndex // one transaction: every event of it has its index
			e.TxIndex = &ti
		}
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
		for _, e := range byReceipt[id] {
			evs = append(evs, *e)
		}
		sort.Slice(evs, func(i, j int) bool {
			return evs[i].BlockNumber < evs[j].BlockNumber || evs[i].BlockNumber == evs[j].BlockNumber && evs[i].Token < evs[j].Token
		})
		_, r, err := commands.ChangeReceipt(ctx, h.store, id, meta, func(s receipt.State) ([]receipt.Event, error) {
			return receipt.RecordSweeps(s, evs)
		})
		if err != nil {
			if _, lerr := commands.Load(ctx, h.store, commands.ReceiptStream(id), readableReceipt, receipt.State{}); errors.Is(lerr, errReceiptUndecodable) {
				// Its sweep stands on chain; recorded by a build that reads it (sweptElsewhere).
				h.unreadable = cmp.Or(h.unreadable, h.unreadableReceipt(ctx, id, lerr))
				continue
			}
			return out, fmt.Errorf("receipt %s: %w", id, err)
		}
		if r.Position != (eventstore.Position{}) {
			out = append(out, commands.ReceiptChange{ReceiptID: id, Result: r})
		}
	}
	return out, nil
}
