package settlement

import (
	"context"

	"github.com/payledger/payledger/commands"
)

// depositSwept says whether the distributor may pay out r: a receipt paid at a deposit address
// waits until its confirmed credits are swept to the split (DepositSwept, the sweeper's record),
// since until then its funds are not in the split and an earlier release would be taken for its
// cover. Other receipts do not wait.
func (h *DistributeSplitsHandler) depositSwept(ctx context.Context, r PaidReceipt) (bool, error) {
	if !r.Deposit {
		return true, nil
	}
	l, err := commands.LoadReceipt(ctx, h.store, r.ReceiptID)
	if err != nil {
		return false, err
	}
	return l.State.Swept(), nil
}
