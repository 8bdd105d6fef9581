package settlement

// Open charges whose transaction can never be mined: its nonce was taken.

import (
	"context"
	"errors"

	"github.com/google/uuid"
)

// droppedCharges finds, among the open charges a run takes over, those whose unsettled
// transaction can never be mined because another operator transaction took its nonce (sent
// outside the ledger, e.g. after a crash between recording a charge and broadcasting it). Their
// bytes sent again are "nonce too low" for ever, so without this the charge stayed pending and
// its period held: the subscription was never charged again. A dropped spend (or approval,
// before any spend) charged nothing: the period is freed for a new claim. A dropped transfer
// moved nothing from the operator: the charge goes back to spent and a new transfer is sent.
type droppedCharges struct {
	chain interface {
		Dropped(ctx context.Context, raw []byte) (bool, error)
	}
	ledger interface {
		Advance(ctx context.Context, token uuid.UUID, row ChargeRow, from []string, txs []OperatorTx) error
		SettleTxs(ctx context.Context, txs []SettledTx) error
	}
	token  uuid.UUID
	claims chargeClaims
}

// dropReason is the result of a charge whose spend can never be mined.
const dropReason = "the charge's transaction can never be mined (another operator transaction took its nonce); nothing was charged, and the period is charged again"

// settle returns the items that go on through the wave; the others' results are set.
func (d droppedCharges) settle(ctx context.Context, items []*chargeItem) ([]*chargeItem, error) {
	var out []*chargeItem
	for _, it := range items {
		dropped, err := d.dropped(ctx, it.row)
		if err != nil {
			return nil, err
		}
		row := it.row
		switch {
		case row.Status == ChargeTransferring && dropped[row.TransferTx]:
			row.Status, row.TransferTx = ChargeSpent, ""
			err = d.ledger.Advance(ctx, d.token, row, []string{ChargeTransferring}, nil)
		case row.Status == ChargeSpending && (dropped[row.SpendTx] || (row.SpendTx == "" && dropped[row.ApproveTx])):
			row.Status, row.ApproveTx, row.SpendTx = ChargeClaimed, "", ""
			if err = d.ledger.Advance(ctx, d.token, row, []string{ChargeSpending}, nil); err == nil {
				err = d.claims.drop(ctx, row)
			}
			if err == nil {
				it.row = row
				it.res = resultOf(it, ResultSkipped, dropReason)
				continue
			}
		}
		if errors.Is(err, ErrClaimLost) {
			it.res = resultOf(it, ResultSkipped, "another run took this charge over")
			continue
		}
		if err != nil {
			return nil, err
		}
		it.row = row
		out = append(out, it)
	}
	return out, nil
}

// dropped is the set of row's unsettled transactions that can never be mined; they are recorded
// reverted (no gas), so that no later recovery sends them again.
func (d droppedCharges) dropped(ctx context.Context, row ChargeRow) (map[string]bool, error) {
	out := map[string]bool{}
	var settled []SettledTx
	for hash, raw := range row.Raws {
		gone, err := d.chain.Dropped(ctx, raw)
		if err != nil {
			return nil, err
		}
		if gone {
			out[hash] = true
			settled = append(settled, SettledTx{Hash: hash, Status: TxReverted})
		}
	}
	if len(settled) > 0 {
		if err := d.ledger.SettleTxs(ctx, settled); err != nil {
			return nil, err
		}
	}
	return out, nil
}
