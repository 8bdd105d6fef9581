package commands_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

func TestSubmitWalletPayment(t *testing.T) {
	e := newPayEnv(t)
	h := commands.NewSubmitWalletPaymentHandler(e.store, e.now)
	id := e.receipt(payMerchant, "USD", 900)
	hash, wallet := "0x"+strings.Repeat("AB", 32), "0x"+strings.Repeat("Cd", 20)
	for _, c := range []struct {
		name                string
		token, hash, wallet string
		message             string
	}{
		{"unknown token", "DOGE", hash, wallet, "token must be one of ETH, USDC, USDT, cbBTC, cbXRP"},
		{"short hash", "USDC", "0x1234", wallet, "transactionHash must be 0x followed by 64 hex characters"},
		{"bad wallet", "USDC", hash, "0x12", "buyerWallet must be 0x followed by 40 hex characters"},
		{"nothing", "", "", "", "token must be one of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: c.token, TransactionHash: c.hash, BuyerWallet: c.wallet})
			wantRefusal(t, err, "invalid_input", c.message)
		})
	}
	if h := e.history(id); h != receipt.EventGenerated {
		t.Fatalf("refused submissions appended events: %s", h)
	}

	out, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: "USDT", TransactionHash: hash, BuyerWallet: wallet})
	if err != nil {
		t.Fatal(err)
	}
	st := e.state(id)
	a, _ := st.Current()
	if out.Status != receipt.StatusPending || st.Status != receipt.StatusPending || a.ID != out.AttemptID || a.Kind != "wallet" ||
		a.TransactionHash != strings.ToLower(hash) || a.BuyerWallet != strings.ToLower(wallet) || a.Token != "USDT" {
		t.Fatalf("answer %+v, attempt %+v, status %s", out, a, st.Status)
	}
	// The attempt and its submission are one append: no one sees an attempt without its transaction.
	if h := e.history(id); h != "ReceiptGenerated,PaymentAttemptStarted,PaymentSubmitted" || out.Result.Version != 3 {
		t.Fatalf("history %s, version %d", h, out.Result.Version)
	}

	paid := e.receipt(payMerchant, "USD", 100)
	e.paid(paid)
	if _, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: paid, Token: "USDC", TransactionHash: hash, BuyerWallet: wallet}); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("submission for a paid receipt: %v", err)
	}
	if _, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: "rcpt_nobody", Token: "USDC", TransactionHash: hash, BuyerWallet: wallet}); !errors.Is(err, receipt.ErrNotFound) {
		t.Fatalf("unknown receipt: %v", err)
	}
}
