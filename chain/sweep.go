package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/onchain"
)

// Sweeper is the operator's account calling the deposit factory's sweep (DESIGN 9): many
// deposits per transaction, each flushed of every configured token and of ETH, gas estimated.
// It signs without sending, as Operator does, so the caller records a sweep before broadcasting.
type Sweeper struct {
	*Operator
	factory common.Address
	abi     *abi.ABI
	tokens  []common.Address
	codes   splitCodes
	// headroom is the gas added per distinct split and listed token (SweepGasSplitHeadroom).
	headroom uint64
}

// NewSweeper returns the sweeper of the factory at factory, signing with op and flushing op's
// tokens (CHAIN_TOKENS) and ETH. Errors: the factory address is malformed.
func NewSweeper(op *Operator, factory string) (*Sweeper, error) {
	if !common.IsHexAddress(factory) {
		return nil, fmt.Errorf("chain: deposit factory %q is not an address", factory)
	}
	a, err := contracts.DepositFactoryMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	s := &Sweeper{Operator: op, factory: common.HexToAddress(factory), abi: a, headroom: SweepGasSplitHeadroom}
	for _, t := range op.tokens {
		s.tokens = append(s.tokens, t.Address)
	}
	return s, nil
}

// WithSplitHeadroom sets the gas added per split and token to a sweep's estimate (default
// SweepGasSplitHeadroom): tests set 0 to have a chain change after the estimate outgrow the
// limit, as one larger than the headroom would.
func (s *Sweeper) WithSplitHeadroom(gas uint64) *Sweeper {
	s.headroom = gas
	return s
}

// depositKeys are deposits as the factory's sweep takes them.
func depositKeys(deposits []onchain.SweepDeposit) []contracts.DepositFactoryDepositKey {
	out := make([]contracts.DepositFactoryDepositKey, len(deposits))
	for i, d := range deposits {
		out[i] = contracts.DepositFactoryDepositKey{ReceiptId: DepositReceiptKey(d.ReceiptID), Split: common.HexToAddress(d.Split)}
	}
	return out
}

// The gas ceiling of a sweep (GasCeiling). The operator pays every sweep's gas, and a deposit's
// ETH flush forwards all the gas left to its split (Deposit.sol, whose bytecode fixes every
// deposit address): a merchant's pre-deployed split whose receive() burns gas would make every
// batch holding one of its ETH deposits cost that much, up to the transaction cap. Measured by
// eth_estimateGas on the simulated chain (Osaka rules, and the development chain's default
// whose state-gas metering prices new storage high), two tokens listed, every deposit a new
// clone holding both tokens and ETH into a PaymentSplit: one deposit into a split that never
// held the tokens 164,610 gas (Osaka) and 342,182 (development); each further deposit of a
// 100-deposit batch 86,574 (Osaka) and 84,145 (development). The ceiling is about 1.7 times
// that per deposit, plus the new storage of each distinct split, plus the transaction's own.
const (
	SweepGasBase       = 100_000 // the transaction: intrinsic gas and the call
	SweepGasPerDeposit = 40_000  // a deposit: calldata, its clone's deployment, the pair checks
	SweepGasPerFlush   = 35_000  // a deposit's flush of one listed token, or of its ETH
	SweepGasPerSplit   = 150_000 // per distinct split and listed token: its first balance's storage
	// SweepGasCap is a transaction's gas cap (EIP-7825, 2^24): no larger sweep can be mined.
	SweepGasCap = 1 << 24
	// SweepGasSplitHeadroom is added to a sweep's estimate per distinct split and listed token:
	// a split that held the token when the sweep was estimated and was emptied by releases mined
	// before it has its balance written from zero, which the estimate did not price. The margin
	// alone did not cover it: a one-deposit sweep into such a split ran out of gas (115,212 of
	// 116,828). On Osaka rules that write is a cold SSTORE from zero (~17,000 gas more); on the
	// development chain's (Amsterdam's state-gas metering, EIP-8037, a fork to come) the same
	// sweep's estimate rose by 99,087 gas, so 20,000 was not enough there. It stays within the
	// ceiling's SweepGasPerSplit for the same storage, and the limit within the ceiling.
	SweepGasSplitHeadroom = 100_000
)

// sweepSplits is how many distinct splits deposits sweep to.
func sweepSplits(deposits []onchain.SweepDeposit) uint64 {
	splits := map[string]bool{}
	for _, d := range deposits {
		splits[strings.ToLower(d.Split)] = true
	}
	return uint64(len(splits))
}

// GasCeiling is the most gas the operator gives a sweep of deposits: see SweepGasBase.
func (s *Sweeper) GasCeiling(deposits []onchain.SweepDeposit) uint64 {
	flushes := uint64(len(s.tokens) + 1)
	c := SweepGasBase + uint64(len(deposits))*(SweepGasPerDeposit+flushes*SweepGasPerFlush) +
		sweepSplits(deposits)*uint64(len(s.tokens))*SweepGasPerSplit
	return min(c, SweepGasCap)
}

// sweepGasLimit is the limit a sweep of deposits estimated at gas is signed with: the estimate,
// GasMarginPercent more, and the headroom (SweepGasSplitHeadroom) per distinct split and listed
// token, at most the ceiling.
func (s *Sweeper) sweepGasLimit(gas uint64, deposits []onchain.SweepDeposit, ceiling uint64) uint64 {
	headroom := sweepSplits(deposits) * uint64(len(s.tokens)) * s.headroom
	return min(gas+gas*GasMarginPercent/100+headroom, ceiling)
}

// outOfGasSelector is Deposit.sol's OutOfGas() error: a flush ran out of the gas it was given.
var outOfGasSelector = common.Bytes2Hex(crypto.Keccak256([]byte("OutOfGas()"))[:4])

// SignSweep signs factory.sweep(deposits, tokens) at nonce with the gas the node estimates, asked
// with GasCeiling as its gas (a burning split costs the node no more than that to estimate
// either), plus GasMarginPercent and SweepGasSplitHeadroom, at most the ceiling. Errors: onchain.ErrSweepGas when the sweep
// needs more than the ceiling (the node's "gas required exceeds allowance", or the factory's
// OutOfGas revert), onchain.ErrSweepReverts when the estimate reverts otherwise, node errors.
func (s *Sweeper) SignSweep(ctx context.Context, nonce uint64, deposits []onchain.SweepDeposit) (onchain.SignedTx, error) {
	data, err := s.abi.Pack("sweep", depositKeys(deposits), s.tokens)
	if err != nil {
		return onchain.SignedTx{}, err
	}
	ceiling := s.GasCeiling(deposits)
	gas, err := s.b.EstimateGas(ctx, ethereum.CallMsg{From: s.from, To: &s.factory, Data: data, Gas: ceiling})
	switch {
	case err == nil && gas > ceiling:
		return onchain.SignedTx{}, fmt.Errorf("%w: estimated %d gas for %d deposits, the ceiling is %d", onchain.ErrSweepGas, gas, len(deposits), ceiling)
	case err == nil:
	case isRevert(err) && strings.Contains(strings.ToLower(revertReason(err)), outOfGasSelector):
		return onchain.SignedTx{}, fmt.Errorf("%w: out of gas at %d for %d deposits (%s)", onchain.ErrSweepGas, ceiling, len(deposits), revertReason(err))
	case isRevert(err):
		// The deposits are left until their receipts change: only on this chain's word.
		if err := s.sameChainNow(ctx); err != nil {
			return onchain.SignedTx{}, err
		}
		return onchain.SignedTx{}, fmt.Errorf("%w: %s", onchain.ErrSweepReverts, revertReason(err))
	case gasCapped(err):
		return onchain.SignedTx{}, fmt.Errorf("%w: more than %d gas for %d deposits (%v)", onchain.ErrSweepGas, ceiling, len(deposits), err)
	default:
		return onchain.SignedTx{}, fmt.Errorf("estimate the sweep: %w", err)
	}
	opts, err := s.opts(ctx, nonce)
	if err != nil {
		return onchain.SignedTx{}, err
	}
	opts.GasLimit = s.sweepGasLimit(gas, deposits, ceiling)
	f, err := contracts.NewDepositFactory(s.factory, s.b)
	if err != nil {
		return onchain.SignedTx{}, err
	}
	tx, err := f.Sweep(opts, depositKeys(deposits), s.tokens)
	if err != nil {
		return onchain.SignedTx{}, err
	}
	return signed(tx, "")
}

// SweepOutcome reads a mined sweep: the deposits' Swept events and the factory's SweepFailed
// ones, attributed to the receipts of deposits by their keys. Nil while it is not mined, and
// until its block is the confirmation depth deep and still on the chain (DESIGN 9: a block
// replaced before the depth stops counting): a sweep recorded at depth 1 and then reorged away
// left its receipt swept and its funds at the deposit for good.
func (s *Sweeper) SweepOutcome(ctx context.Context, hash string, deposits []onchain.SweepDeposit) (*onchain.SweepOutcome, error) {
	r, err := s.final(ctx, hash)
	if err != nil || r == nil {
		return nil, err
	}
	out := &onchain.SweepOutcome{Success: r.Status == types.ReceiptStatusSuccessful, GasUsed: r.GasUsed}
	ti := int(r.TransactionIndex)
	if r.BlockNumber != nil {
		out.BlockNumber = r.BlockNumber.Uint64()
	}
	byKey := map[common.Hash]string{}
	for _, d := range deposits {
		byKey[DepositReceiptKey(d.ReceiptID)] = d.ReceiptID
	}
	dep, _ := contracts.NewDepositFilterer(common.Address{}, nil)
	fac, _ := contracts.NewDepositFactoryFilterer(common.Address{}, nil)
	for _, l := range r.Logs {
		if ev, err := dep.ParseSwept(*l); err == nil {
			id, ok := byKey[ev.ReceiptId]
			if ok && l.Address == DepositAddressOfKey(s.factory, ev.ReceiptId, ev.Split) {
				li := int(l.Index)
				out.Swept = append(out.Swept, onchain.SweptFunds{ReceiptID: id, Token: s.symbol(ev.Token), Amount: ev.Amount, LogIndex: &li, TxIndex: &ti})
			}
		} else if ev, err := fac.ParseSweepFailed(*l); err == nil && l.Address == s.factory {
			if id, ok := byKey[ev.ReceiptId]; ok {
				out.Failed = append(out.Failed, onchain.SweepFailure{ReceiptID: id, Token: s.symbol(ev.Token), Reason: common.Bytes2Hex(ev.Reason)})
			}
		}
	}
	return out, nil
}

// DepositSweeps reads the Swept events of deposit's address, from the first block (a deposit's
// events are few; the address and receipt key topics narrow the node's search).
func (s *Sweeper) DepositSweeps(ctx context.Context, d onchain.SweepDeposit) ([]onchain.SweptFunds, error) {
	key := DepositReceiptKey(d.ReceiptID)
	f, err := contracts.NewDepositFilterer(DepositAddressOfKey(s.factory, key, common.HexToAddress(d.Split)), s.b)
	if err != nil {
		return nil, err
	}
	it, err := f.FilterSwept(&bind.FilterOpts{Context: ctx}, [][32]byte{key}, nil, nil)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []onchain.SweptFunds
	for it.Next() {
		li, ti := int(it.Event.Raw.Index), int(it.Event.Raw.TxIndex)
		out = append(out, onchain.SweptFunds{ReceiptID: d.ReceiptID, Token: s.symbol(it.Event.Token), Amount: it.Event.Amount,
			TransactionHash: it.Event.Raw.TxHash.Hex(), BlockNumber: it.Event.Raw.BlockNumber, LogIndex: &li, TxIndex: &ti})
	}
	return out, it.Error()
}

// symbol is a token address's symbol: ETH for the zero address, the configured symbol, else
// the address itself.
func (s *Sweeper) symbol(token common.Address) string {
	if token == (common.Address{}) {
		return "ETH"
	}
	for _, t := range s.Operator.tokens {
		if t.Address == token {
			return t.Symbol
		}
	}
	return strings.ToLower(token.Hex())
}

// DepositBalance is what deposit holds of token ("" or "ETH": ether), for tests and checks.
func (s *Sweeper) DepositBalance(ctx context.Context, deposit, token string) (*big.Int, error) {
	if token == "" || strings.EqualFold(token, "ETH") {
		b, ok := s.b.(interface {
			BalanceAt(ctx context.Context, a common.Address, n *big.Int) (*big.Int, error)
		})
		if !ok {
			return nil, errors.New("chain: the backend reads no balances")
		}
		return b.BalanceAt(ctx, common.HexToAddress(deposit), nil)
	}
	addr, ok := s.Token(token)
	if !ok {
		return nil, fmt.Errorf("chain: unknown token %s", token)
	}
	t, err := contracts.NewTestToken(common.HexToAddress(addr), s.b)
	if err != nil {
		return nil, err
	}
	return t.BalanceOf(nil, common.HexToAddress(deposit))
}
