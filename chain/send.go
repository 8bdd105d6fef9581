package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/onchain"
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

// RefusedError is a node's answer refusing a signed transaction for what it is (its fee over the
// node's cap, its gas, a pool's rule), as opposed to a connection that failed, a transaction the
// node has or whose nonce is used (alreadySent), or a lack of funds (funding the operator ends
// it): sending the same bytes again may well be refused again. Settlement replaces such a
// transaction at its nonce (SignCancel) when the refusal lasts, so the nonce it holds does not
// hold every later operator transaction with it.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string { return "the node refused the transaction: " + e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// Refused says the node refused the transaction itself (see RefusedError).
func (e *RefusedError) Refused() bool { return true }

// refusal is err as a RefusedError when the node answered it (a JSON-RPC error) and it is a
// refusal of the transaction (not a lack of funds, not a nonce in use); else err.
func refusal(err error) error {
	var answered rpc.Error
	if !errors.As(err, &answered) {
		return err
	}
	msg := strings.ToLower(err.Error())
	// Not the transaction's fault: funds, a nonce in use (another transaction at it in the pool),
	// a provider's rate limit (some answer it as a JSON-RPC error). A tip under the pool's floor
	// ("transaction underpriced") is the transaction's own.
	for _, s := range []string{"insufficient funds", "replacement transaction underpriced", "nonce too high", "rate limit", "limit exceeded", "too many requests"} {
		if strings.Contains(msg, s) {
			return err
		}
	}
	return &RefusedError{Err: err}
}

// SignCancel signs a transfer of nothing from the operator to itself at nonce, with 21,000 gas
// and the node's current fees: mined, it takes the nonce of a transaction the node refuses for
// good (RefusedError), whose nonce held every later operator transaction; Replaced then drops
// the refused one and its work is signed again at a new nonce.
func (o *Operator) SignCancel(ctx context.Context, nonce uint64) (onchain.SignedTx, error) {
	opts, err := o.opts(ctx, nonce)
	if err != nil {
		return onchain.SignedTx{}, err
	}
	opts.GasLimit, opts.Value = params.TxGas, new(big.Int)
	tx, err := SendETH(opts, o.b, o.from)
	if err != nil {
		return onchain.SignedTx{}, fmt.Errorf("chain: signing the replacement at nonce %d: %w", nonce, err)
	}
	return signed(tx, "")
}

// Underpriced says whether the signed transaction raw cannot be mined at the newest block: its
// fee cap (a legacy transaction's gas price) is under that block's base fee, as during a
// gas-price spike. The node keeps such a transaction and mines nothing at its nonce, nor after it.
// False on a chain without a base fee.
func (o *Operator) Underpriced(ctx context.Context, raw []byte) (bool, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return false, err
	}
	head, err := o.b.HeaderByNumber(ctx, nil)
	if err != nil {
		return false, err
	}
	return head.BaseFee != nil && tx.GasFeeCap().Cmp(head.BaseFee) < 0, nil
}

// SignCancelOver signs SignCancel's transfer of nothing at the nonce of stuck, a signed operator
// transaction the node holds but cannot mine (Underpriced): at the node's current fees, and each
// fee at least bumped over stuck's, so that the node takes it in stuck's place (geth
// asks for 10% more on both the tip and the fee cap).
func (o *Operator) SignCancelOver(ctx context.Context, stuck []byte) (onchain.SignedTx, error) {
	old := new(types.Transaction)
	if err := old.UnmarshalBinary(stuck); err != nil {
		return onchain.SignedTx{}, err
	}
	opts, err := o.opts(ctx, old.Nonce())
	if err != nil {
		return onchain.SignedTx{}, err
	}
	opts.GasLimit, opts.Value = params.TxGas, new(big.Int)
	head, err := o.b.HeaderByNumber(ctx, nil)
	if err != nil {
		return onchain.SignedTx{}, err
	}
	if head.BaseFee == nil {
		price, err := o.b.SuggestGasPrice(ctx)
		if err != nil {
			return onchain.SignedTx{}, err
		}
		opts.GasPrice = maxBig(price, bumped(old.GasPrice()))
	} else {
		tip, err := o.b.SuggestGasTipCap(ctx)
		if err != nil {
			return onchain.SignedTx{}, err
		}
		opts.GasTipCap = maxBig(tip, bumped(old.GasTipCap()))
		// Twice the base fee, as SendETH: room for the spike to go on for a few blocks.
		current := new(big.Int).Add(opts.GasTipCap, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
		opts.GasFeeCap = maxBig(current, bumped(old.GasFeeCap()))
	}
	tx, err := SendETH(opts, o.b, o.from)
	if err != nil {
		return onchain.SignedTx{}, fmt.Errorf("chain: signing the replacement at nonce %d: %w", old.Nonce(), err)
	}
	return signed(tx, "")
}

// bumped is fee raised by the replacement bump: how much higher than a pending transaction's fees
// its replacement's are at least (an eighth, over the pool's 10%).
func bumped(fee *big.Int) *big.Int {
	return new(big.Int).Add(fee, new(big.Int).Add(new(big.Int).Rsh(fee, 3), big.NewInt(1)))
}

func maxBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}
