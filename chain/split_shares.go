package chain

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain/contracts"
)

// Shares is payee's shares in the split contract at split (PaymentSplitter's shares(account)).
// A contract that is not a splitter answers an error (a revert, or no data to decode).
func (o *Operator) Shares(ctx context.Context, split, payee string) (*big.Int, error) {
	s, err := contracts.NewPaymentSplitCaller(common.HexToAddress(split), o.b)
	if err != nil {
		return nil, err
	}
	return s.Shares(&bind.CallOpts{Context: ctx}, common.HexToAddress(payee))
}
