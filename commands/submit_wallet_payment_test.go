package commands_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

func TestSubmitWalletPayment(t *testing.T) {
	e := newPayEnv(t)
	h := commands.NewSubmitWalletPaymentHandler(e.store, &memClaims{}, e.now)
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

	// One transaction pays one receipt: the same hash (any case) for another receipt is a conflict
	// and appends nothing; for the same receipt it is a new attempt.
	other := e.receipt(payMerchant, "USD", 900)
	_, err = h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: other, Token: "USDT", TransactionHash: strings.ToLower(hash), BuyerWallet: wallet})
	if wantRefusal(t, err, "conflict", "This transaction was already submitted for another receipt"); !errors.Is(err, commands.ErrTransactionUsed) || e.history(other) != receipt.EventGenerated {
		t.Fatalf("reused hash: %v, history %s", err, e.history(other))
	}
	if _, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: "USDT", TransactionHash: hash, BuyerWallet: wallet}); err != nil {
		t.Fatalf("the same hash again for its own receipt: %v", err)
	}

	paid := e.receipt(payMerchant, "USD", 100)
	e.paid(paid)
	if _, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: paid, Token: "USDC", TransactionHash: "0x" + strings.Repeat("ef", 32), BuyerWallet: wallet}); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("submission for a paid receipt: %v", err)
	}
	if _, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: "rcpt_nobody", Token: "USDC", TransactionHash: hash, BuyerWallet: wallet}); !errors.Is(err, receipt.ErrNotFound) {
		t.Fatalf("unknown receipt: %v", err)
	}
}

// memClaims is commands.TransactionClaims in memory (readmodels.Receipts in PostgreSQL).
type memClaims struct {
	mu sync.Mutex
	by map[string]string
}

func (m *memClaims) ClaimTransaction(_ context.Context, hash, receiptID string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.by == nil {
		m.by = map[string]string{}
	}
	hash = strings.ToLower(hash)
	if held, ok := m.by[hash]; ok {
		return held, nil
	}
	m.by[hash] = receiptID
	return receiptID, nil
}
