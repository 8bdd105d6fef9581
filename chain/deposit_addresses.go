package chain

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// DepositAddresses computes receipts' deposit addresses under one deposit factory (DESIGN 9):
// chain.DepositAddress(factory, receipt id, split), nothing deployed.
type DepositAddresses struct {
	Factory common.Address // zero: no factory known, no deposit addresses
}

// DepositAddress implements commands.DepositAddresses. Errors: a split that is not an address.
func (d DepositAddresses) DepositAddress(_ context.Context, receiptID, split string) (string, error) {
	if d.Factory == (common.Address{}) {
		return "", nil
	}
	if !common.IsHexAddress(split) {
		return "", fmt.Errorf("deposit address of %s: split %q is not an address", receiptID, split)
	}
	return DepositAddress(d.Factory, receiptID, common.HexToAddress(split)).Hex(), nil
}
