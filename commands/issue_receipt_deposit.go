package commands

import (
	"context"
	"time"

	"github.com/payledger/payledger/domain/receipt"
)

// DepositAddresses computes deposit addresses (DESIGN 9): where a receipt is paid, the CREATE2
// address of the deposit of (receipt, split) under the chain's deposit factory. The chain adapter
// implements it; commands never see the chain.
type DepositAddresses interface {
	// DepositAddress returns the deposit address (EIP-55) of receipt receiptID paying split, ""
	// when no deposit factory is known. Errors: wrapped store errors (reading the factory).
	DepositAddress(ctx context.Context, receiptID, split string) (string, error)
}

// depositAssignment gives new receipts their deposit address and payment window.
type depositAssignment struct {
	splits    *Splits
	addresses DepositAddresses // nil: no deposit addresses
	window    time.Duration    // PAYMENT_WINDOW; 0: no window
}

// WithDeposits makes i give every new receipt its payment window (ExpiresAt = creation + window,
// none when window is 0) and, when its merchant has a split with an address and addresses knows
// a factory, its deposit address. It returns i.
func (i *Issuer) WithDeposits(splits *Splits, addresses DepositAddresses, window time.Duration) *Issuer {
	if splits == nil {
		panic("commands.Issuer.WithDeposits: nil splits")
	}
	i.deposits = &depositAssignment{splits: splits, addresses: addresses, window: window}
	return i
}

// assign fills g's deposit fields (a nil assignment changes nothing). A receipt without a
// configured split has no deposit address: its page says so (ErrSplitRequired where it pays).
func (d *depositAssignment) assign(ctx context.Context, g receipt.Generated, now time.Time) (receipt.Generated, error) {
	if d == nil {
		return g, nil
	}
	if d.window > 0 {
		g.ExpiresAt = now.Add(d.window).UnixMilli()
	}
	if d.addresses == nil {
		return g, nil
	}
	sp, err := d.splits.Get(ctx, g.Merchant)
	if err != nil || !sp.Configured || sp.Address == "" {
		return g, err
	}
	addr, err := d.addresses.DepositAddress(ctx, g.ReceiptID, sp.Address)
	if err != nil || addr == "" {
		return g, err
	}
	g.DepositAddress, g.DepositSplit = addr, sp.Address
	return g, nil
}
