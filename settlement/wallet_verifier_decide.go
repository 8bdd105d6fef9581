package settlement

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/payledger/payledger/commands"
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

// decide is the receipt events of verdict v on payment p. A submitted hash is a hint (DESIGN 9):
// only the deposit follower, reading the receipt's own deposit address, pays or fails a receipt,
// and a transfer to the split pays nothing (section 8's split path is retired). The one verdict
// recorded on the receipt is the same transaction confirmed again after a reorg past the depth
// took it off the chain (flagged): PaymentRestored, through receipt.Confirm. Everything else
// records nothing on the receipt (a revert is telemetry: revertedTelemetry).
func (r verdictRecorder) decide(p PendingWalletPayment, v PaymentVerdict) func(receipt.State) ([]receipt.Event, error) {
	at := r.now().UnixMilli()
	return func(st receipt.State) ([]receipt.Event, error) {
		if !v.Paid || st.ChainWithdrawnTx == "" || !strings.EqualFold(st.ChainWithdrawnTx, p.TransactionHash) {
			return nil, nil
		}
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
}

// revertedTelemetry records, as the receipt's telemetry (never a status change), that the
// transaction a customer submitted reverted, so that the page can say so; the payment window
// decides the receipt. A receipt past its hourly telemetry limit keeps the reports it has.
func (r verdictRecorder) revertedTelemetry(ctx context.Context, p PendingWalletPayment) error {
	now := r.now()
	evs := []receipt.Event{receipt.TelemetryRecorded{Event: "error", AttemptID: p.AttemptID, Code: commands.CodeTxReverted, At: now.UnixMilli()}}
	err := commands.AppendTelemetry(ctx, r.store, p.ReceiptID, now, evs, chainMeta)
	if err != nil && !errors.Is(err, commands.ErrTelemetryLimited) {
		return fmt.Errorf("wallet payment of %s: recording its revert: %w", p.ReceiptID, err)
	}
	return nil
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

// expectation is what p's transaction is watched for: the token, the receipt's own deposit
// address as recipient (never the split: DESIGN 9) and the required amount; its verdict only
// tells a revert, or restores a flagged payment (decide). Errors: the payment cannot be judged
// (a receipt without a deposit address, a token the chain does not configure, no quote or
// EUR/USD rate), wrapped store errors.
func (x expectations) expectation(ctx context.Context, p PendingWalletPayment) (WatchedPayment, error) {
	w := WatchedPayment{TxHash: p.TransactionHash, BuyerWallet: strings.ToLower(p.BuyerWallet), Token: p.Token}
	decimals, ok := x.tokens.Decimals(p.Token)
	if !ok {
		return w, fmt.Errorf("token %s is not configured on the chain (CHAIN_TOKENS)", p.Token)
	}
	var deposit string
	var err error
	deposit, w.RequiredUnits, w.ToleranceBps, err = x.required(ctx, p.ReceiptID, p.Token, decimals)
	if err != nil {
		return w, err
	}
	if !walletRE.MatchString(deposit) {
		return w, fmt.Errorf("receipt %s has no deposit address", p.ReceiptID)
	}
	w.SplitAddress = strings.ToLower(deposit)
	return w, nil
}

// required is the receipt's deposit address, the amount a payment of it in token must bring, in
// base units, and the tolerance (receipt.RequiredAmount over the receipt's events).
func (x expectations) required(ctx context.Context, receiptID, token string, decimals uint8) (string, *big.Int, uint, error) {
	evs, err := commands.ReadReceiptEvents(ctx, x.store, receiptID)
	if err != nil {
		return "", nil, 0, err
	}
	var st receipt.State
	decoded := make([]receipt.Event, 0, len(evs))
	for _, re := range evs {
		ev, err := receipt.Decode(re.Type, re.Data)
		if err != nil {
			return "", nil, 0, err
		}
		decoded = append(decoded, ev)
		st = receipt.Evolve(st, ev)
	}
	req, err := receipt.RequiredAmount(st, token, receipt.LatestQuote(decoded, token))
	if err != nil {
		return "", nil, 0, fmt.Errorf("receipt %s in %s: %w", receiptID, token, err)
	}
	return st.Receipt.DepositAddress, req.Units(decimals), req.ToleranceBps, nil
}
