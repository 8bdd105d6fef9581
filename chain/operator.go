package chain

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/onchain"
)

// OperatorBackend is what the operator needs from a node: contract calls, gas estimation,
// sending, receipts and code. *ethclient.Client (RPC.Backend) and the simulated client are both.
type OperatorBackend interface {
	bind.ContractBackend
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
}

// Operator is the service's own account (CHAIN_OPERATOR_KEY) on a chain: it signs split
// deployments and releases (gas estimated, never fixed) without sending them, so that the caller
// records a transaction before broadcasting it. It holds no nonce state: the caller picks nonces.
type Operator struct {
	key     *ecdsa.PrivateKey
	from    common.Address
	chainID *big.Int
	b       OperatorBackend
	tokens  []Token
	// confirmations is CHAIN_CONFIRMATIONS: the depth at which a sweep counts as done and a
	// transaction whose nonce another took counts as dropped (0: DefaultConfirmations).
	confirmations int
}

// DefaultConfirmations is the operator's depth when none is set: CHAIN_CONFIRMATIONS' default.
const DefaultConfirmations = 2

// WithConfirmations sets the depth (CHAIN_CONFIRMATIONS, the block itself counts as 1) at which
// the operator judges its transactions final (SweepOutcome, Replaced); call it before use.
func (o *Operator) WithConfirmations(n int) *Operator {
	o.confirmations = n
	return o
}

// depth is the confirmation depth, at least 1.
func (o *Operator) depth() uint64 {
	if o.confirmations <= 0 {
		return DefaultConfirmations
	}
	return uint64(o.confirmations)
}

// ErrNoOperatorKey: the operator was made without CHAIN_OPERATOR_KEY; it reads, never signs.
var ErrNoOperatorKey = errors.New("chain: no operator key (CHAIN_OPERATOR_KEY)")

// NewOperator returns the operator of key (64 hex, with or without 0x) on chainID over b, paying
// in tokens (CHAIN_TOKENS; ETH is native). An empty key gives a read-only operator whose signing
// methods return ErrNoOperatorKey. Errors: a malformed key.
func NewOperator(keyHex string, chainID uint64, b OperatorBackend, tokens []Token) (*Operator, error) {
	if keyHex == "" {
		return &Operator{chainID: new(big.Int).SetUint64(chainID), b: b, tokens: tokens}, nil
	}
	k, err := crypto.HexToECDSA(strings.TrimPrefix(keyHex, "0x"))
	if err != nil {
		return nil, fmt.Errorf("chain: CHAIN_OPERATOR_KEY: %w", err)
	}
	return &Operator{key: k, from: crypto.PubkeyToAddress(k.PublicKey), chainID: new(big.Int).SetUint64(chainID), b: b, tokens: tokens}, nil
}

// Backend is the node the operator signs for (a *LateBackend when serve started without it).
func (o *Operator) Backend() OperatorBackend { return o.b }

// chainChecker is a backend that reads its node's chain id on demand (Backend, LateBackend).
type chainChecker interface {
	CheckChain(ctx context.Context) error
}

// sameChainNow reads the chain id again before an answer that the caller records for good: the
// guard's verdict is up to ChainIDEvery old, and in that minute after ETH_RPC_URL was routed to
// another chain its answers (nothing releasable, a nonce taken, a sweep that reverts) would free
// or close the ledger's work on this one. A backend without a chain id check (the simulated
// client) has nothing to read.
func (o *Operator) sameChainNow(ctx context.Context) error {
	if c, ok := o.b.(chainChecker); ok {
		return c.CheckChain(ctx)
	}
	return nil
}

// Sender is the operator's address, lower case.
func (o *Operator) Sender() string { return strings.ToLower(o.from.Hex()) }

// PendingNonce is the node's next nonce for the operator.
func (o *Operator) PendingNonce(ctx context.Context) (uint64, error) {
	return o.b.PendingNonceAt(ctx, o.from)
}

// HasCode says whether a contract is deployed at address (at the head).
func (o *Operator) HasCode(ctx context.Context, address string) (bool, error) {
	code, err := o.b.CodeAt(ctx, common.HexToAddress(address), nil)
	return len(code) > 0, err
}

// Token is the address of symbol ("ETH": "", ok).
func (o *Operator) Token(symbol string) (string, bool) {
	if strings.EqualFold(symbol, "ETH") {
		return "", true
	}
	t, ok := FindToken(o.tokens, symbol)
	if !ok {
		return "", false
	}
	return strings.ToLower(t.Address.Hex()), true
}

// Releasable is what split owes payee in token ("" for ETH), read with ReleaseGasCeiling as the
// call's gas: a contract whose releasable burns gas costs the node no more than a release may
// (else each read could take the node's whole RPC gas cap, every pass, holding up the other
// splits' distribution). Errors: onchain.ErrReleaseGas when the read needs more, bind.ErrNoCode,
// the revert, node errors.
func (o *Operator) Releasable(ctx context.Context, split, token, payee string) (*big.Int, error) {
	a, err := contracts.PaymentSplitMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	method, args := "releasable", []any{common.HexToAddress(payee)}
	if token != "" {
		method, args = "releasable0", []any{common.HexToAddress(token), common.HexToAddress(payee)}
	}
	data, err := a.Pack(method, args...)
	if err != nil {
		return nil, err
	}
	to := common.HexToAddress(split)
	out, err := o.b.CallContract(ctx, ethereum.CallMsg{From: o.from, To: &to, Data: data, Gas: ReleaseGasCeiling}, nil)
	if err != nil {
		if !isRevert(err) && gasCapped(err) {
			return nil, fmt.Errorf("%w: reading what is releasable took more than %d gas (%v)", onchain.ErrReleaseGas, ReleaseGasCeiling, err)
		}
		return nil, err
	}
	if len(out) == 0 {
		if code, err := o.b.CodeAt(ctx, to, nil); err != nil || len(code) == 0 {
			return nil, cmp.Or(err, bind.ErrNoCode)
		}
	}
	vals, err := a.Unpack(method, out)
	if err != nil {
		return nil, err
	}
	due, ok := vals[0].(*big.Int)
	if !ok {
		return nil, fmt.Errorf("chain: releasable answered %T", vals[0])
	}
	if due.Sign() == 0 { // the distributor covers receipts as released on it
		if err := o.sameChainNow(ctx); err != nil {
			return nil, err
		}
	}
	return due, nil
}

// opts signs without sending at nonce; GasLimit 0: go-ethereum estimates it.
func (o *Operator) opts(ctx context.Context, nonce uint64) (*bind.TransactOpts, error) {
	if o.key == nil {
		return nil, ErrNoOperatorKey
	}
	t, err := bind.NewKeyedTransactorWithChainID(o.key, o.chainID)
	if err != nil {
		return nil, err
	}
	t.Context, t.Nonce, t.NoSend = ctx, new(big.Int).SetUint64(nonce), true
	return t, nil
}

func signed(tx *types.Transaction, contract string) (onchain.SignedTx, error) {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return onchain.SignedTx{}, err
	}
	return onchain.SignedTx{Hash: tx.Hash().Hex(), Raw: raw, Nonce: tx.Nonce(), Gas: tx.Gas(), Contract: contract}, nil
}

// ReleaseGasCeiling is the most gas the operator gives one release. It pays the gas of every
// release, and a merchant's split may be any PaymentSplitter (stop 60), one whose release burns
// gas without reverting: each release of each batch would cost up to the block's gas limit.
// Measured with PaymentSplit on the development chain (whose rules price new storage high), the
// costliest release, ETH to a payee never paid before as the split's first release, took
// 444,565 gas and a USDC one 380,264 (Ethereum's rules: far less); the ceiling leaves more than
// twice that for a payee contract's receive or a proxied token.
const ReleaseGasCeiling = 1_000_000

// SignRelease signs release(token, payee), or release(payee) for ETH, at nonce, with the gas the
// node estimates for it. Errors: onchain.ErrReleaseGas when that is more than ReleaseGasCeiling
// (the transaction's gas limit is the estimate, so a contract that burns more when mined than
// when estimated still stops at the ceiling); the estimate's revert when nothing is due
// (OpenZeppelin's splitter reverts then); bind.ErrNoCode; node errors.
func (o *Operator) SignRelease(ctx context.Context, nonce uint64, split, token, payee string) (onchain.SignedTx, error) {
	s, err := contracts.NewPaymentSplit(common.HexToAddress(split), o.b)
	if err != nil {
		return onchain.SignedTx{}, err
	}
	opts, err := o.opts(ctx, nonce)
	if err != nil {
		return onchain.SignedTx{}, err
	}
	if opts.GasLimit, err = o.releaseGas(ctx, split, token, payee); err != nil {
		return onchain.SignedTx{}, err
	}
	var tx *types.Transaction
	if token == "" {
		tx, err = s.Release(opts, common.HexToAddress(payee))
	} else {
		tx, err = s.Release0(opts, common.HexToAddress(token), common.HexToAddress(payee))
	}
	if err != nil {
		return onchain.SignedTx{}, err
	}
	return signed(tx, "")
}

// releaseGas is the node's estimate of the release, asked with ReleaseGasCeiling as its gas, so
// that a burning contract costs the node no more than that to estimate either. Errors:
// onchain.ErrReleaseGas when the release needs more (the node's "gas required exceeds
// allowance"), the revert, bind.ErrNoCode, node errors.
func (o *Operator) releaseGas(ctx context.Context, split, token, payee string) (uint64, error) {
	to := common.HexToAddress(split)
	if code, err := o.b.PendingCodeAt(ctx, to); err != nil || len(code) == 0 {
		if err == nil {
			err = bind.ErrNoCode
		}
		return 0, err
	}
	a, err := contracts.PaymentSplitMetaData.GetAbi()
	if err != nil {
		return 0, err
	}
	var data []byte
	if token == "" {
		data, err = a.Pack("release", common.HexToAddress(payee))
	} else {
		data, err = a.Pack("release0", common.HexToAddress(token), common.HexToAddress(payee))
	}
	if err != nil {
		return 0, err
	}
	gas, err := o.b.EstimateGas(ctx, ethereum.CallMsg{From: o.from, To: &to, Data: data, Gas: ReleaseGasCeiling})
	switch {
	case err == nil && gas <= ReleaseGasCeiling:
		return gas, nil
	case err == nil:
		return 0, fmt.Errorf("%w: estimated %d gas, the ceiling is %d", onchain.ErrReleaseGas, gas, ReleaseGasCeiling)
	case !isRevert(err) && gasCapped(err):
		return 0, fmt.Errorf("%w: more than %d gas (%v)", onchain.ErrReleaseGas, ReleaseGasCeiling, err)
	default:
		return 0, err
	}
}

// gasCapped says whether a node's estimate failed because the call needs more gas than it was
// given ("gas required exceeds allowance", geth and anvil; "out of gas").
func gasCapped(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "exceeds allowance") || strings.Contains(msg, "out of gas")
}

// SignDeploy signs the deployment of a PaymentSplit paying payees sharesBps at nonce.
func (o *Operator) SignDeploy(ctx context.Context, nonce uint64, payees []string, sharesBps []int) (onchain.SignedTx, error) {
	if len(payees) != len(sharesBps) {
		return onchain.SignedTx{}, errors.New("chain: payees and shares differ in length")
	}
	addrs, shares := make([]common.Address, len(payees)), make([]*big.Int, len(payees))
	for i := range payees {
		addrs[i], shares[i] = common.HexToAddress(payees[i]), big.NewInt(int64(sharesBps[i]))
	}
	opts, err := o.opts(ctx, nonce)
	if err != nil {
		return onchain.SignedTx{}, err
	}
	addr, tx, _, err := contracts.DeployPaymentSplit(opts, o.b, addrs, shares)
	if err != nil {
		return onchain.SignedTx{}, err
	}
	return signed(tx, strings.ToLower(addr.Hex()))
}

// Broadcast sends a signed transaction. A node that already has it, or has mined its nonce,
// answers with an error that is not one here: the receipt lookup settles it. Errors: a
// *RefusedError when the node refuses the transaction itself, the node's or connection's others.
func (o *Operator) Broadcast(ctx context.Context, raw []byte) error {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return err
	}
	if err := o.b.SendTransaction(ctx, tx); err != nil && !alreadySent(err) {
		return refusal(err)
	}
	return nil
}

// alreadySent says whether a node's refusal of a transaction means it has it, or has mined its
// nonce: no error for a broadcast, whose receipt lookup settles it.
func alreadySent(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "already known") || strings.Contains(msg, "nonce too low") || strings.Contains(msg, "already imported")
}

// final is the receipt of hash once its block is the operator's depth deep and still on the
// chain (its hash read again at its number); nil while it is not mined, not that deep, or its
// block was just replaced.
func (o *Operator) final(ctx context.Context, hash string) (*types.Receipt, error) {
	r, err := o.b.TransactionReceipt(ctx, common.HexToHash(hash))
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil || r.BlockNumber == nil {
		return nil, err
	}
	head, err := o.b.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	if head.Number.Uint64()+1 < r.BlockNumber.Uint64()+o.depth() {
		return nil, nil
	}
	h, err := o.b.HeaderByNumber(ctx, r.BlockNumber)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if h.Hash() != r.BlockHash {
		return nil, nil
	}
	return r, nil
}

// Replaced says whether the operator's transaction hash, signed at nonce, can no longer be
// mined: the operator's nonce in the block at the confirmation depth is past nonce (another
// transaction of the key took it, one sent outside the ledger, or after a crash between
// recording this one and sending it), and hash is in no block. The nonce is read first: a
// transaction found after it was mined, not replaced. False until the head is that deep.
func (o *Operator) Replaced(ctx context.Context, hash string, nonce uint64) (bool, error) {
	head, err := o.b.HeaderByNumber(ctx, nil)
	if err != nil {
		return false, err
	}
	if head.Number.Uint64()+1 < o.depth() {
		return false, nil
	}
	mined, err := o.nonceAt(ctx, new(big.Int).SetUint64(head.Number.Uint64()+1-o.depth()))
	if err != nil || mined <= nonce {
		return false, err
	}
	_, err = o.b.TransactionReceipt(ctx, common.HexToHash(hash))
	if errors.Is(err, ErrNotFound) {
		// A dropped transaction frees its work for good: only on this chain's word.
		if err := o.sameChainNow(ctx); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, err
}

// nonceAt is the operator's nonce at block n: how many of its transactions are mined up to it.
func (o *Operator) nonceAt(ctx context.Context, n *big.Int) (uint64, error) {
	b := o.b
	if l, ok := b.(*LateBackend); ok {
		var err error
		if b, err = l.get(); err != nil {
			return 0, err
		}
	}
	r, ok := b.(interface {
		NonceAt(ctx context.Context, a common.Address, n *big.Int) (uint64, error)
	})
	if !ok {
		return 0, errors.New("chain: the backend reads no nonces")
	}
	return r.NonceAt(ctx, o.from, n)
}

// Outcome returns a mined transaction's result, nil while it is not mined. A release (split set)
// counts once its block is the operator's depth (CHAIN_CONFIRMATIONS) deep and still on the
// chain, as a sweep does (final): its outcome settles the ledger for good and the distributor
// records the receipts' payouts on it, so a release counted in a block a reorg then left (its
// transaction reverted, or replaced, in the new branch) would stand in their histories with
// nothing on the chain behind it. A deployment counts at once: its address is fixed by the
// operator's nonce, and split deployment answers its caller with it. For a release of split,
// Released sums the PaymentReleased / ERC20PaymentReleased events split itself emitted: other
// contracts the release runs (a payee contract receiving ETH, a token) may emit events of the
// same signature, which would inflate the amount recorded as released. split "" (a deployment)
// counts none.
func (o *Operator) Outcome(ctx context.Context, hash, split string) (*onchain.TxOutcome, error) {
	var r *types.Receipt
	var err error
	if split != "" {
		r, err = o.final(ctx, hash)
	} else {
		r, err = o.b.TransactionReceipt(ctx, common.HexToHash(hash))
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		}
	}
	if err != nil || r == nil {
		return nil, err
	}
	if r.TxHash != common.HexToHash(hash) {
		return nil, fmt.Errorf("chain: receipt of %s: the node answered the receipt of %s", hash, r.TxHash.Hex())
	}
	f, err := contracts.NewPaymentSplitFilterer(common.Address{}, nil)
	if err != nil {
		return nil, err
	}
	out := outcome(f, logsOf(r, split))
	if r.ContractAddress != (common.Address{}) {
		out.Contract = strings.ToLower(r.ContractAddress.Hex())
		return out, nil
	}
	if out.Released == nil {
		out.Released = new(big.Int)
	}
	return out, nil
}

// logsOf is r with only the logs emitted by contract (none when contract is not an address).
func logsOf(r *types.Receipt, contract string) *types.Receipt {
	c := *r
	c.Logs = nil
	if !common.IsHexAddress(contract) {
		return &c
	}
	at := common.HexToAddress(contract)
	for _, l := range r.Logs {
		if l.Address == at {
			c.Logs = append(c.Logs, l)
		}
	}
	return &c
}

// outcome is a mined transaction's result; Released sums its split's PaymentReleased and
// ERC20PaymentReleased events (read with f), nil when it has none.
func outcome(f *contracts.PaymentSplitFilterer, r *types.Receipt) *onchain.TxOutcome {
	out := &onchain.TxOutcome{Success: r.Status == types.ReceiptStatusSuccessful, GasUsed: r.GasUsed}
	for _, l := range r.Logs {
		if ev, err := f.ParseERC20PaymentReleased(*l); err == nil {
			out.Released = add(out.Released, ev.Amount)
		} else if ev, err := f.ParsePaymentReleased(*l); err == nil {
			out.Released = add(out.Released, ev.Amount)
		}
	}
	return out
}

func add(a, b *big.Int) *big.Int {
	if a == nil {
		return new(big.Int).Set(b)
	}
	return new(big.Int).Add(a, b)
}
