package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/onchain"
	"github.com/payledger/payledger/domain/subscription"
)

// GasMarginPercent is added to every eth_estimateGas answer of a charge transaction (the
// estimate is exact for the state it ran on; a concurrent change, e.g. a first transfer into an
// empty split or another period's storage slot, may cost a little more).
const GasMarginPercent = 20

// ChargeOperator is subscription charging's chain (commands.ChargeChain): the operator account
// with the spend-permission manager and USDC, over an RPC connection whose batches serve the
// checks, the broadcasts and the receipts of a whole wave.
type ChargeOperator struct {
	*Operator                      // the key, its address and the chain id
	rpc        atomic.Pointer[RPC] // nil until the node answered (NewLateChargeOperator; Connect)
	late       *LateBackend        // the Operator's backend when built before the node answered
	connecting sync.Mutex          // one Connect at a time
	signer     types.Signer
	manager    common.Address
	usdc       common.Address
	managerABI *abi.ABI
	tokenABI   *abi.ABI

	mu     sync.Mutex
	tip    *big.Int
	feeCap *big.Int
	feesAt time.Time
}

// NewChargeOperator returns the charging chain of the operator keyHex (CHAIN_OPERATOR_KEY) on
// chainID over r, with the manager (SPEND_PERMISSION_MANAGER) and USDC from tokens.
func NewChargeOperator(keyHex string, chainID uint64, r *RPC, tokens []Token, manager string) (*ChargeOperator, error) {
	c, err := newChargeOperator(keyHex, chainID, r.Backend(), tokens, manager)
	if err != nil {
		return nil, err
	}
	c.rpc.Store(r)
	return c, nil
}

// newChargeOperator is the charging chain over backend b, without its RPC connection yet.
func newChargeOperator(keyHex string, chainID uint64, b OperatorBackend, tokens []Token, manager string) (*ChargeOperator, error) {
	if keyHex == "" {
		return nil, ErrNoOperatorKey
	}
	op, err := NewOperator(keyHex, chainID, b, tokens)
	if err != nil {
		return nil, err
	}
	usdc, ok := FindToken(tokens, "USDC")
	if !ok || !common.IsHexAddress(manager) {
		return nil, fmt.Errorf("chain: charging needs USDC in CHAIN_TOKENS and SPEND_PERMISSION_MANAGER (%q)", manager)
	}
	mABI, err := contracts.SpendPermissionManagerMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	tABI, err := contracts.TestTokenMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return &ChargeOperator{Operator: op, signer: types.LatestSignerForChainID(op.chainID),
		manager: common.HexToAddress(manager), usdc: usdc.Address, managerABI: mABI, tokenABI: tABI}, nil
}

// USDC is the charged token's address, lower case.
func (c *ChargeOperator) USDC() string { return strings.ToLower(c.usdc.Hex()) }

// Stats is the RPC connection's call counts.
func (c *ChargeOperator) Stats() Stats {
	r, err := c.node()
	if err != nil {
		return Stats{}
	}
	return r.Stats()
}

// checkCalls is how many eth_calls one spend check makes (spendCallArgs' order).
const checkCalls = 5

// CheckSpends reads, per check and in batches: isApproved, isRevoked, getCurrentPeriod on the
// manager, the account's USDC balance and its allowance to the manager.
func (c *ChargeOperator) CheckSpends(ctx context.Context, checks []onchain.SpendCheck) ([]onchain.SpendStatus, error) {
	args := make([][]any, 0, len(checks)*checkCalls)
	perms := make([]contracts.SpendPermissionManagerSpendPermission, len(checks))
	for i, ch := range checks {
		p, err := SpendPermissionContract(ch.Permission)
		if err != nil {
			return nil, err
		}
		perms[i] = p
		calls, err := c.spendCallArgs(p)
		if err != nil {
			return nil, err
		}
		args = append(args, calls...)
	}
	r, err := c.node()
	if err != nil {
		return nil, err
	}
	res, errs, err := batchCall[hexutil.Bytes](ctx, r, "eth_call", args)
	if err != nil {
		return nil, err
	}
	out := make([]onchain.SpendStatus, len(checks))
	refused := false
	for i, ch := range checks {
		lo, hi := i*checkCalls, (i+1)*checkCalls
		if out[i], err = c.spendStatus(perms[i], ch.Amount, res[lo:hi], errs[lo:hi]); err != nil {
			return nil, err
		}
		refused = refused || out[i].Refusal != ""
	}
	// A refusal is recorded as the charge's failure, for good: only on this chain's word (the
	// guard's verdict may be a minute old; Operator.sameChainNow).
	if refused {
		if err := r.freshChain(ctx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// spendCallArgs is the eth_call arguments of one check: isApproved, isRevoked, getCurrentPeriod,
// balanceOf, allowance.
func (c *ChargeOperator) spendCallArgs(p contracts.SpendPermissionManagerSpendPermission) ([][]any, error) {
	type call struct {
		to     common.Address
		abi    *abi.ABI
		method string
		params []any
	}
	calls := []call{
		{c.manager, c.managerABI, "isApproved", []any{p}}, {c.manager, c.managerABI, "isRevoked", []any{p}},
		{c.manager, c.managerABI, "getCurrentPeriod", []any{p}}, {c.usdc, c.tokenABI, "balanceOf", []any{p.Account}},
		{c.usdc, c.tokenABI, "allowance", []any{p.Account, c.manager}},
	}
	out := make([][]any, len(calls))
	for i, x := range calls {
		data, err := x.abi.Pack(x.method, x.params...)
		if err != nil {
			return nil, err
		}
		out[i] = []any{map[string]any{"to": x.to, "data": hexutil.Bytes(data)}, "latest"}
	}
	return out, nil
}

// spendStatus judges one check from its calls' answers r and errors e (spendCallArgs' order).
func (c *ChargeOperator) spendStatus(p contracts.SpendPermissionManagerSpendPermission, amount *big.Int, r []hexutil.Bytes, e []error) (onchain.SpendStatus, error) {
	for j, x := range e {
		if x != nil && j != 2 { // getCurrentPeriod reverts outside [start, end): a refusal below
			return onchain.SpendStatus{}, fmt.Errorf("eth_call: %w", x)
		}
	}
	approved, _ := unpackOne[bool](c.managerABI, "isApproved", r[0])
	revoked, _ := unpackOne[bool](c.managerABI, "isRevoked", r[1])
	balance, err1 := unpackOne[*big.Int](c.tokenABI, "balanceOf", r[3])
	allowance, err2 := unpackOne[*big.Int](c.tokenABI, "allowance", r[4])
	if err := errors.Join(err1, err2); err != nil {
		return onchain.SpendStatus{}, err
	}
	st := onchain.SpendStatus{Approved: approved}
	switch {
	case revoked:
		st.Refusal = subscription.ReasonRevoked // the charge fails and the subscription ends (DecideRevoked)
	case e[2] != nil:
		st.Refusal = "the spend permission is not in force now: " + e[2].Error()
	case balance.Cmp(amount) < 0:
		st.Refusal = fmt.Sprintf("insufficient USDC balance: %s base units, the charge is %s", balance, amount)
	case allowance.Cmp(amount) < 0:
		st.Refusal = fmt.Sprintf("the customer's wallet lets the spend-permission manager move %s USDC base units, the charge is %s", allowance, amount)
	default:
		vals, err := c.managerABI.Unpack("getCurrentPeriod", r[2])
		if err != nil || len(vals) != 1 {
			return onchain.SpendStatus{}, fmt.Errorf("getCurrentPeriod: %v", err)
		}
		period := *abi.ConvertType(vals[0], new(contracts.SpendPermissionManagerPeriodSpend)).(*contracts.SpendPermissionManagerPeriodSpend)
		if new(big.Int).Add(period.Spend, amount).Cmp(p.Allowance) > 0 {
			st.Refusal = fmt.Sprintf("%s (%s of %s base units)", subscription.ReasonPeriodSpent, period.Spend, p.Allowance)
		}
	}
	return st, nil
}

func unpackOne[T any](a *abi.ABI, method string, data []byte) (T, error) {
	var zero T
	vals, err := a.Unpack(method, data)
	if err != nil || len(vals) != 1 {
		return zero, fmt.Errorf("%s: unexpected answer: %v", method, err)
	}
	v, ok := vals[0].(T)
	if !ok {
		return zero, fmt.Errorf("%s: unexpected type %T", method, vals[0])
	}
	return v, nil
}

// fees are the tip and fee cap of new transactions: the node's tip and twice the base fee, read
// at most every 10 s.
func (c *ChargeOperator) fees(ctx context.Context) (*big.Int, *big.Int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tip != nil && time.Since(c.feesAt) < 10*time.Second {
		return c.tip, c.feeCap, nil
	}
	r, err := c.node()
	if err != nil {
		return nil, nil, err
	}
	b := r.Backend()
	head, err := b.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	tip, err := b.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, nil, err
	}
	r.count(2)
	base := head.BaseFee
	if base == nil {
		base = new(big.Int)
	}
	c.tip, c.feeCap, c.feesAt = tip, new(big.Int).Add(tip, new(big.Int).Mul(base, big.NewInt(2))), time.Now()
	return c.tip, c.feeCap, nil
}

// EstimateGas estimates every call from the operator against the latest block in JSON-RPC
// batches and adds GasMarginPercent. A call the node says would revert has its Revert set (the
// node's message); any other error of one call, or of the batch, is an error.
func (c *ChargeOperator) EstimateGas(ctx context.Context, calls []onchain.TxCall) ([]onchain.GasEstimate, error) {
	args := make([][]any, len(calls))
	for i, call := range calls {
		if !common.IsHexAddress(call.To) {
			return nil, fmt.Errorf("estimate gas: %q is not an address", call.To)
		}
		args[i] = []any{map[string]any{"from": c.from, "to": common.HexToAddress(call.To), "data": hexutil.Bytes(call.Data)}, "latest"}
	}
	r, err := c.node()
	if err != nil {
		return nil, err
	}
	res, errs, err := batchCall[hexutil.Uint64](ctx, r, "eth_estimateGas", args)
	if err != nil {
		return nil, fmt.Errorf("eth_estimateGas: %w", err)
	}
	out := make([]onchain.GasEstimate, len(calls))
	for i := range calls {
		if e := errs[i]; e != nil {
			if !isRevert(e) {
				return nil, fmt.Errorf("eth_estimateGas: %w", e)
			}
			out[i].Revert = revertReason(e)
			continue
		}
		g := uint64(res[i])
		out[i].Gas = g + g*GasMarginPercent/100
	}
	return out, nil
}

// isRevert says whether a node's answer to a call means the call reverts.
func isRevert(err error) bool {
	var re rpc.Error
	if errors.As(err, &re) && re.ErrorCode() == 3 {
		return true // "execution reverted" with its revert data
	}
	return strings.Contains(strings.ToLower(err.Error()), "revert")
}

// revertReason is the node's message of a reverted call, with its revert data when it has any.
func revertReason(err error) string {
	msg := err.Error()
	var de rpc.DataError
	if errors.As(err, &de) {
		if d, ok := de.ErrorData().(string); ok && d != "" && d != "0x" && !strings.Contains(msg, d) {
			msg += " (" + d + ")"
		}
	}
	return msg
}

// SignCall signs call (its Gas the estimated limit) at nonce, without sending it.
func (c *ChargeOperator) SignCall(ctx context.Context, nonce uint64, call onchain.TxCall) (onchain.SignedTx, error) {
	if call.Gas == 0 {
		return onchain.SignedTx{}, errors.New("chain: a charge transaction needs its estimated gas limit")
	}
	if !common.IsHexAddress(call.To) {
		return onchain.SignedTx{}, fmt.Errorf("chain: %q is not an address", call.To)
	}
	tip, feeCap, err := c.fees(ctx)
	if err != nil {
		return onchain.SignedTx{}, err
	}
	to := common.HexToAddress(call.To)
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: c.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: call.Gas, To: &to, Data: call.Data}), c.signer, c.key)
	if err != nil {
		return onchain.SignedTx{}, err
	}
	return signed(tx, "")
}

// ApproveCall is approveWithSignature(permission, signature) on the manager.
func (c *ChargeOperator) ApproveCall(p subscription.Permission, signature string) (onchain.TxCall, error) {
	perm, err := SpendPermissionContract(p)
	if err != nil {
		return onchain.TxCall{}, err
	}
	sig, err := hexutil.Decode(signature)
	if err != nil {
		return onchain.TxCall{}, fmt.Errorf("%w: permission signature: %v", subscription.ErrInvalid, err)
	}
	data, err := c.managerABI.Pack("approveWithSignature", perm, sig)
	if err != nil {
		return onchain.TxCall{}, err
	}
	return onchain.TxCall{To: c.manager.Hex(), Data: data}, nil
}

// SpendCall is spend(permission, amount) on the manager.
func (c *ChargeOperator) SpendCall(p subscription.Permission, amount *big.Int) (onchain.TxCall, error) {
	perm, err := SpendPermissionContract(p)
	if err != nil {
		return onchain.TxCall{}, err
	}
	data, err := c.managerABI.Pack("spend", perm, amount)
	if err != nil {
		return onchain.TxCall{}, err
	}
	return onchain.TxCall{To: c.manager.Hex(), Data: data}, nil
}

// TransferCall is the USDC transfer of amount to to.
func (c *ChargeOperator) TransferCall(to string, amount *big.Int) (onchain.TxCall, error) {
	if !common.IsHexAddress(to) {
		return onchain.TxCall{}, fmt.Errorf("%w: split %q is not an address", subscription.ErrInvalid, to)
	}
	data, err := c.tokenABI.Pack("transfer", common.HexToAddress(to), amount)
	if err != nil {
		return onchain.TxCall{}, err
	}
	return onchain.TxCall{To: c.usdc.Hex(), Data: data}, nil
}

// BroadcastAll sends the signed transactions in batches; a transaction the node already has, or
// whose nonce is mined, is no error (its receipt settles it).
func (c *ChargeOperator) BroadcastAll(ctx context.Context, raws [][]byte) error {
	args := make([][]any, len(raws))
	for i, raw := range raws {
		args[i] = []any{hexutil.Bytes(raw)}
	}
	r, err := c.node()
	if err != nil {
		return err
	}
	_, errs, err := batchCall[hexutil.Bytes](ctx, r, "eth_sendRawTransaction", args)
	if err != nil {
		return err
	}
	for _, e := range errs {
		if e != nil && !alreadySent(e) {
			return e
		}
	}
	return nil
}

// Outcomes reads the receipts of hashes in batches: nil for those not final yet. A transaction
// is final once its block is the operator's confirmation depth deep (CHAIN_CONFIRMATIONS, its
// own block counting as 1) and still on the chain (the block at its number has its hash), as a
// sweep is (Operator.final): a spend or transfer counted at depth 1 could be reorged away after
// the charge (or its failure) was recorded and the transfer of the operator's funds sent. A nil
// outcome leaves the charge pending; the next run sends the same bytes again.
func (c *ChargeOperator) Outcomes(ctx context.Context, hashes []string) ([]*onchain.TxOutcome, error) {
	hs := make([]common.Hash, len(hashes))
	for i, h := range hashes {
		hs[i] = common.HexToHash(h)
	}
	node, err := c.node()
	if err != nil {
		return nil, err
	}
	rs, err := node.TransactionReceipts(ctx, hs)
	if err != nil {
		return nil, err
	}
	canonical, err := c.canonicalAtDepth(ctx, node, rs)
	if err != nil {
		return nil, err
	}
	f, err := contracts.NewPaymentSplitFilterer(common.Address{}, nil)
	if err != nil {
		return nil, err
	}
	out := make([]*onchain.TxOutcome, len(hashes))
	for i, r := range rs {
		if r != nil && r.BlockNumber != nil && canonical[r.BlockNumber.Uint64()] == r.BlockHash {
			out[i] = outcome(f, r)
		}
	}
	return out, nil
}

// canonicalAtDepth is the hash of the chain's block at each number of the receipts rs that is
// at least the confirmation depth deep (one batch of headers for the distinct numbers).
func (c *ChargeOperator) canonicalAtDepth(ctx context.Context, node *RPC, rs []*types.Receipt) (map[uint64]common.Hash, error) {
	out := map[uint64]common.Hash{}
	var numbers []uint64
	var head uint64
	for _, r := range rs {
		if r == nil || r.BlockNumber == nil {
			continue
		}
		if numbers == nil {
			var err error
			if head, err = node.BlockNumber(ctx); err != nil {
				return nil, err
			}
			numbers = []uint64{}
		}
		n := r.BlockNumber.Uint64()
		if _, seen := out[n]; seen || head+1 < n+c.depth() {
			continue
		}
		out[n] = common.Hash{}
		numbers = append(numbers, n)
	}
	if len(numbers) == 0 {
		return out, nil
	}
	headers, err := node.HeadersByNumber(ctx, numbers)
	if err != nil {
		return nil, err
	}
	for i, h := range headers {
		if h != nil {
			out[numbers[i]] = h.Hash()
		}
	}
	return out, nil
}

// Dropped says whether the signed operator transaction raw can never be mined: another
// transaction of the key took its nonce (mined at the confirmation depth) and it is in no block
// (Operator.Replaced). A charge recorded and then not broadcast (a crash) loses its nonce to a
// transaction sent outside the ledger; sending its bytes again is then "nonce too low" for ever.
func (c *ChargeOperator) Dropped(ctx context.Context, raw []byte) (bool, error) {
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		return false, fmt.Errorf("chain: signed transaction: %w", err)
	}
	return c.Replaced(ctx, tx.Hash().Hex(), tx.Nonce())
}
