package chain

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain/contracts"
)

// transactor signs with key for chainID; the gas limit stays 0, so it is always estimated.
func transactor(ctx context.Context, key *ecdsa.PrivateKey, chainID uint64) (*bind.TransactOpts, error) {
	o, err := bind.NewKeyedTransactorWithChainID(key, new(big.Int).SetUint64(chainID))
	if err != nil {
		return nil, err
	}
	o.Context = ctx
	return o, nil
}

// SendETH sends wei from key to to as a plain transfer (EIP-1559, fees suggested by the node,
// gas estimated); it does not wait. go-ethereum's bound contracts refuse an address without code,
// which a plain transfer may well go to, hence the transaction built here.
func SendETH(ctx context.Context, b bind.ContractTransactor, chainID uint64, key *ecdsa.PrivateKey, to common.Address, wei *big.Int) (*types.Transaction, error) {
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := b.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, err
	}
	gas, err := b.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: wei})
	if err != nil {
		return nil, fmt.Errorf("estimating gas: %w", err)
	}
	head, err := b.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	id := new(big.Int).SetUint64(chainID)
	var data types.TxData
	if head.BaseFee == nil { // a chain before London: legacy pricing
		price, err := b.SuggestGasPrice(ctx)
		if err != nil {
			return nil, err
		}
		data = &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: gas, To: &to, Value: wei}
	} else {
		tip, err := b.SuggestGasTipCap(ctx)
		if err != nil {
			return nil, err
		}
		// Twice the base fee leaves room for it to rise for a few blocks, as go-ethereum's bind does.
		feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
		data = &types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Value: wei}
	}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(id), data)
	if err != nil {
		return nil, err
	}
	return tx, b.SendTransaction(ctx, tx)
}

// SendToken sends units of the ERC-20 at token from key to to (transfer), gas estimated; it does
// not wait. Any ERC-20 works: only the standard transfer of the test token's ABI is used.
func SendToken(ctx context.Context, b bind.ContractBackend, chainID uint64, key *ecdsa.PrivateKey, token, to common.Address, units *big.Int) (*types.Transaction, error) {
	o, err := transactor(ctx, key, chainID)
	if err != nil {
		return nil, err
	}
	tok, err := contracts.NewTestToken(token, b)
	if err != nil {
		return nil, err
	}
	return tok.Transfer(o, to, units)
}
