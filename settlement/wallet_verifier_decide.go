package settlement

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/failure"
	"github.com/payledger/payledger/domain/receipt"
)

// What a verdict records, and what a payment must show on chain to get one.

// verdictRecorder records the chain's verdicts on the receipts, through the command pipeline.
type verdictRecorder struct {
	store commands.Store
	now   func() time.Time
}

// record appends the verdict to the receipt, loading it alone. Errors: wrapped store errors.
func (r verdictRecorder) record(ctx context.Context, p PendingWalletPayment, v PaymentVerdict) (commands.ReceiptChange, error) {
	_, res, err := commands.ChangeReceipt(ctx, r.store, p.ReceiptID, chainMeta, r.decide(p, v))
	if err != nil {
		return commands.ReceiptChange{}, fmt.Errorf("wallet payment of %s: recording its verdict: %w", p.ReceiptID, err)
	}
	return commands.ReceiptChange{ReceiptID: p.ReceiptID, Result: res}, nil
}

// decide is the receipt events of verdict v on payment p: PaymentConfirmed (ignored by a receipt
// already confirmed) or PaymentFailed.
func (r verdictRecorder) decide(p PendingWalletPayment, v PaymentVerdict) func(receipt.State) ([]receipt.Event, error) {
	at := r.now().UnixMilli()
	return func(st receipt.State) ([]receipt.Event, error) {
		if v.Paid {
			c := receipt.PaymentConfirmed{AttemptID: p.AttemptID, TransactionHash: p.TransactionHash,
				BuyerWallet: strings.ToLower(p.BuyerWallet), Token: p.Token, VerifiedBy: "chain",
				BlockNumber: v.BlockNumber, BlockHash: strings.ToLower(v.BlockHash), At: at}
			if v.LogIndex >= 0 {
				i := v.LogIndex
				c.LogIndex = &i
			}
			if v.AmountUnits != nil {
				c.AmountUnits = v.AmountUnits.String()
			}
			return receipt.Confirm(st, c)
		}
		code, _ := failure.Lookup(v.FailureCode)
		return receipt.Fail(st, receipt.PaymentFailed{AttemptID: p.AttemptID, Code: v.FailureCode, Category: code.Category,
			Reason: code.Description, Action: code.Action, At: at})
	}
}

// expectations builds what a payment must show on chain: its token as the chain configures it,
// the merchant's split as recipient and the receipt's required amount.
type expectations struct {
	store  commands.Store
	splits *commands.Splits
	tokens interface {
		Decimals(token string) (uint8, bool)
	}
}

// expectation is what p's transaction must show: the token, the merchant's split as recipient
// and the required amount. Errors: the payment cannot be judged yet (no configured split, a token
// the chain does not configure, no quote or EUR/USD rate), wrapped store errors.
func (x expectations) expectation(ctx context.Context, p PendingWalletPayment) (WatchedPayment, error) {
	w := WatchedPayment{TxHash: p.TransactionHash, BuyerWallet: strings.ToLower(p.BuyerWallet), Token: p.Token}
	decimals, ok := x.tokens.Decimals(p.Token)
	if !ok {
		return w, fmt.Errorf("token %s is not configured on the chain (CHAIN_TOKENS)", p.Token)
	}
	sp, err := x.splits.Require(ctx, p.Merchant)
	if err != nil {
		return w, err
	}
	if !walletRE.MatchString(sp.Address) {
		return w, fmt.Errorf("the split of %s has no contract address", p.Merchant)
	}
	w.SplitAddress = strings.ToLower(sp.Address)
	w.RequiredUnits, w.ToleranceBps, err = x.required(ctx, p.ReceiptID, p.Token, decimals)
	return w, err
}

// required is the amount a payment of the receipt in token must bring, in base units, and the
// tolerance (receipt.RequiredAmount over the receipt's events).
func (x expectations) required(ctx context.Context, receiptID, token string, decimals uint8) (*big.Int, uint, error) {
	evs, err := commands.ReadReceiptEvents(ctx, x.store, receiptID)
	if err != nil {
		return nil, 0, err
	}
	var st receipt.State
	decoded := make([]receipt.Event, 0, len(evs))
	for _, re := range evs {
		ev, err := receipt.Decode(re.Type, re.Data)
		if err != nil {
			return nil, 0, err
		}
		decoded = append(decoded, ev)
		st = receipt.Evolve(st, ev)
	}
	req, err := receipt.RequiredAmount(st, token, receipt.LatestQuote(decoded, token))
	if err != nil {
		return nil, 0, fmt.Errorf("receipt %s in %s: %w", receiptID, token, err)
	}
	return req.Units(decimals), req.ToleranceBps, nil
}
