package chain

import (
	"context"
	"errors"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain/contracts"
)

// SplitPayees reads the payees of the split contract at split and their shares, in the
// contract's order: payee(0), payee(1), … with shares(payee) each, until the shares read add up
// to totalShares() (PaymentSplitter has no payee count; payee(i) past the last reverts). At most
// limit+1 payees are read, so a caller that accepts limit can refuse a longer split without
// reading all of it. ok is false when the contract does not answer as a splitter (a call
// reverts or returns nothing to decode, no shares, or payees that do not add up to the total).
// Errors: the node's.
func (o *Operator) SplitPayees(ctx context.Context, split string, limit int) (payees []string, shares []*big.Int, ok bool, err error) {
	s, err := contracts.NewPaymentSplitCaller(common.HexToAddress(split), gasCappedCaller{o.b, SplitReadGasCeiling})
	if err != nil {
		return nil, nil, false, err
	}
	opts := &bind.CallOpts{Context: ctx}
	total, err := s.TotalShares(opts)
	if err != nil || total.Sign() <= 0 {
		return nil, nil, false, notSplitter(err)
	}
	sum := new(big.Int)
	for i := 0; sum.Cmp(total) < 0; i++ {
		if i > limit {
			return payees, shares, true, nil
		}
		p, err := s.Payee(opts, big.NewInt(int64(i)))
		if err != nil {
			return nil, nil, false, notSplitter(err)
		}
		sh, err := s.Shares(opts, p)
		if err != nil || sh.Sign() <= 0 {
			return nil, nil, false, notSplitter(err)
		}
		payees, shares = append(payees, strings.ToLower(p.Hex())), append(shares, sh)
		sum.Add(sum, sh)
	}
	if sum.Cmp(total) != 0 {
		return nil, nil, false, nil
	}
	return payees, shares, true, nil
}

// notSplitter is err unless it says that the contract does not answer as a splitter (nil then):
// a revert, no code, an answer that does not decode, or a read that needs more gas than
// SplitReadGasCeiling.
func notSplitter(err error) error {
	if err == nil || isRevert(err) || errors.Is(err, bind.ErrNoCode) || strings.Contains(err.Error(), "abi: ") || gasCapped(err) {
		return nil
	}
	return err
}

// SplitReadGasCeiling is the most gas one read of a merchant's split contract (totalShares,
// payee(i), shares(payee)) is given. The address is the merchant's, any contract: without a
// ceiling each eth_call ran to the node's RPC gas cap (geth: 50,000,000, up to its 5 s timeout),
// and one configuration request makes up to 2×MaxRecipients+3 of them, at will (a refused
// configuration may be sent again), each a provider's compute billed to the operator.
// PaymentSplit's reads take under 30,000 gas; a proxied splitter a few thousand more.
const SplitReadGasCeiling = 200_000

// gasCappedCaller gives every contract call at most gas.
type gasCappedCaller struct {
	bind.ContractCaller
	gas uint64
}

func (c gasCappedCaller) CallContract(ctx context.Context, call ethereum.CallMsg, n *big.Int) ([]byte, error) {
	if call.Gas == 0 || call.Gas > c.gas {
		call.Gas = c.gas
	}
	return c.ContractCaller.CallContract(ctx, call, n)
}

// Head is the number of the node's latest block. Errors: the node's.
func (o *Operator) Head(ctx context.Context) (uint64, error) {
	h, err := o.b.HeaderByNumber(ctx, nil)
	if err != nil {
		return 0, err
	}
	return h.Number.Uint64(), nil
}

// CodeAtBlock says whether a contract is deployed at address in block n. Reading at a named block,
// not at the head, makes the answer that block's whatever node serves it: a node that has not
// reached n answers an error, never "no code". Errors: the node's.
func (o *Operator) CodeAtBlock(ctx context.Context, address string, n uint64) (bool, error) {
	code, err := o.b.CodeAt(ctx, common.HexToAddress(address), new(big.Int).SetUint64(n))
	return len(code) > 0, err
}

// BlockTime is the timestamp (Unix s) of block n: what tells a block after a split's deployment
// from one before it, whatever node answers (a node short of n answers an error). Errors: the
// node's.
func (o *Operator) BlockTime(ctx context.Context, n uint64) (uint64, error) {
	h, err := o.b.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if err != nil {
		return 0, err
	}
	return h.Time, nil
}
