package chain

import (
	"context"
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/settlement"
)

// PaymentWatcher is the wallet verifier's port (commands.PaymentWatcher) over a Follower: it
// resolves token symbols through CHAIN_TOKENS (ETH is native) and applies CHAIN_CONFIRMATIONS.
type PaymentWatcher struct {
	f             *Follower
	tokens        []Token
	confirmations int
}

var _ settlement.PaymentWatcher = (*PaymentWatcher)(nil)

// NewPaymentWatcher follows payments on c; confirmations below 1 count as 1.
func NewPaymentWatcher(c Client, tokens []Token, confirmations int) *PaymentWatcher {
	return &PaymentWatcher{f: NewFollower(c), tokens: tokens, confirmations: max(confirmations, 1)}
}

// Decimals is token's decimals: 18 for ETH, CHAIN_TOKENS' for the others.
func (w *PaymentWatcher) Decimals(token string) (uint8, bool) {
	if strings.EqualFold(token, "ETH") {
		return 18, true
	}
	t, ok := FindToken(w.tokens, token)
	return t.Decimals, ok
}

// Watch follows p. Errors: an unknown token, an invalid expectation (Expectation.Validate),
// ErrAlreadyFollowed.
func (w *PaymentWatcher) Watch(p settlement.WatchedPayment) error {
	e := Expectation{TxHash: common.HexToHash(p.TxHash), BuyerWallet: common.HexToAddress(p.BuyerWallet), Token: p.Token,
		Decimals: 18, SplitAddress: common.HexToAddress(p.SplitAddress), RequiredUnits: p.RequiredUnits,
		ToleranceBps: p.ToleranceBps, Confirmations: w.confirmations}
	if !strings.EqualFold(p.Token, "ETH") {
		t, ok := FindToken(w.tokens, p.Token)
		if !ok {
			return errors.New("chain: token " + p.Token + " is not in CHAIN_TOKENS")
		}
		e.TokenAddress, e.Decimals = t.Address, t.Decimals
	}
	return w.f.Add(e)
}

// Audit watches txHash, recorded paid in block (number, hash), for a reorg past its depth
// (Follower.Audit).
func (w *PaymentWatcher) Audit(txHash string, number uint64, blockHash string) {
	w.f.Audit(common.HexToHash(txHash), number, common.HexToHash(blockHash))
}

// Unwatch stops following txHash.
func (w *PaymentWatcher) Unwatch(txHash string) { w.f.Remove(common.HexToHash(txHash)) }

// Len is the number of payments followed.
func (w *PaymentWatcher) Len() int { return w.f.Len() }

// Step is one Follower step, its decisions as verdicts (hashes and addresses lower-case hex).
func (w *PaymentWatcher) Step(ctx context.Context) ([]settlement.PaymentVerdict, error) {
	ds, err := w.f.Step(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]settlement.PaymentVerdict, len(ds))
	for i, d := range ds {
		v := d.Verdict
		out[i] = settlement.PaymentVerdict{TxHash: strings.ToLower(d.Expectation.TxHash.Hex()), Paid: v.Status == Paid, Reorged: v.Status == Reorged,
			FailureCode: v.FailureCode, BlockNumber: v.BlockNumber, BlockHash: strings.ToLower(v.BlockHash.Hex()),
			LogIndex: v.LogIndex, AmountUnits: v.AmountUnits}
	}
	return out, nil
}
