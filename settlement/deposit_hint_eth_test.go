package settlement_test

import (
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// TestHintOfASmartWalletETHPaymentIsNotRefused (stop 67): a smart-contract wallet pays ETH by an
// internal call, which no transaction field shows; the page's hint of that transaction was
// answered 400 invalid_input ("sends nothing to this receipt's deposit address") while the
// deposit follower credited the payment by the deposit's balance, so the customer was shown an
// error for a payment that paid. The hint is now answered as accepted (nothing recorded: the
// follower credits the ETH); a contract transaction that sent the deposit nothing is still 400.
func TestHintOfASmartWalletETHPaymentIsNotRefused(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	paid, other := e.receipt(1000), e.receipt(1000)
	e.quote(paid.Receipt.ReceiptID, "0.01000000")
	d := e.detector()
	e.step(d)
	h := e.hints(e.credits())
	hint := func(id string, tx *types.Transaction) (commands.WalletPaymentSubmitted, error) {
		return h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: "ETH", TransactionHash: tx.Hash().Hex(),
			BuyerWallet: e.buyerAddr().Hex()})
	}
	tx := e.fromContract(paid.DepositAddress(), big.NewInt(1e16))
	if out, err := hint(paid.Receipt.ReceiptID, tx); err != nil || out.AttemptID != "" {
		t.Fatalf("the hint of a smart wallet's ETH payment: %+v %v, want accepted with no attempt", out, err)
	}
	var r *commands.Refusal
	if _, err := hint(other.Receipt.ReceiptID, tx); !errors.As(err, &r) || r.Code != "invalid_input" {
		t.Fatalf("the same transaction hinted for a receipt it did not pay: %v, want 400 invalid_input", err)
	}
	for range 3 {
		e.commit()
		e.step(d)
	}
	e.want(paid.Receipt.ReceiptID, receipt.StatusPaid, "0.01")
}
