package chain

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain/contracts"
)

// SendETH sends opts.Value wei from opts.From to to as a plain transfer and does not wait. Like
// go-ethereum's bind: opts.Nonce nil takes the pool's pending nonce, opts.GasLimit 0 estimates
// the gas, and the fees are the node's suggestion unless set. go-ethereum's bound contracts
// refuse an address without code, which a plain transfer may well go to, hence this function.
func SendETH(opts *bind.TransactOpts, b bind.ContractTransactor, to common.Address) (*types.Transaction, error) {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	nonce, gas, err := nonceAndGas(ctx, opts, b, to)
	if err != nil {
		return nil, err
	}
	head, err := b.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	var data types.TxData
	if head.BaseFee == nil { // a chain before London: legacy pricing
		price := opts.GasPrice
		if price == nil {
			if price, err = b.SuggestGasPrice(ctx); err != nil {
				return nil, err
			}
		}
		data = &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: gas, To: &to, Value: opts.Value}
	} else {
		tip := opts.GasTipCap
		if tip == nil {
			if tip, err = b.SuggestGasTipCap(ctx); err != nil {
				return nil, err
			}
		}
		// Twice the base fee leaves room for it to rise for a few blocks, as go-ethereum's bind does.
		feeCap := opts.GasFeeCap
		if feeCap == nil {
			feeCap = new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
		}
		data = &types.DynamicFeeTx{Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Value: opts.Value}
	}
	tx, err := opts.Signer(opts.From, types.NewTx(data))
	if err != nil {
		return nil, err
	}
	if opts.NoSend {
		return tx, nil
	}
	return tx, b.SendTransaction(ctx, tx)
}

func nonceAndGas(ctx context.Context, opts *bind.TransactOpts, b bind.ContractTransactor, to common.Address) (uint64, uint64, error) {
	var nonce uint64
	if opts.Nonce != nil {
		nonce = opts.Nonce.Uint64()
	} else {
		n, err := b.PendingNonceAt(ctx, opts.From)
		if err != nil {
			return 0, 0, err
		}
		nonce = n
	}
	gas := opts.GasLimit
	if gas == 0 {
		g, err := b.EstimateGas(ctx, ethereum.CallMsg{From: opts.From, To: &to, Value: opts.Value})
		if err != nil {
			return 0, 0, fmt.Errorf("estimating gas: %w", err)
		}
		gas = g
	}
	return nonce, gas, nil
}

// SendToken sends units of the ERC-20 at token from opts.From to to (transfer) and does not
// wait; gas is estimated unless opts.GasLimit is set. Any ERC-20 works: only the standard
// transfer of the test token's ABI is used.
func SendToken(opts *bind.TransactOpts, b bind.ContractBackend, token, to common.Address, units *big.Int) (*types.Transaction, error) {
	tok, err := contracts.NewTestToken(token, b)
	if err != nil {
		return nil, err
	}
	if opts.GasLimit != 0 {
		return tok.Transfer(opts, to, units)
	}
	// The estimate holds for the state of the moment; the recipient's balance emptied before the
	// transfer is mined (a split released meanwhile) makes its storage write a zero-to-non-zero
	// one, which would run a bare estimate out of gas: on the development chain (every fork
	// active) a transfer to a zero balance costs 147,734 gas, to a non-zero one 49,036. The limit
	// has that margin; only the gas used is paid.
	probe := *opts
	probe.NoSend = true
	tx, err := tok.Transfer(&probe, to, units)
	if err != nil {
		return nil, err
	}
	padded := *opts
	padded.GasLimit = tx.Gas() + transferMargin
	padded.Nonce = new(big.Int).SetUint64(tx.Nonce())
	return tok.Transfer(&padded, to, units)
}

// transferMargin is added to an ERC-20 transfer's estimated gas (see SendToken).
const transferMargin = 110_000
