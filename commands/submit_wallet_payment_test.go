package commands_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/settlement/pgstore"
)

// hintStore is the PostgreSQL hint store on a fresh database.
func hintStore(t testing.TB) *pgstore.PaymentHints {
	t.Helper()
	return pgstore.NewPaymentHints(pgtest.Pool(t))
}

func TestSubmitWalletPayment(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	h := commands.NewSubmitWalletPaymentHandler(e.store, hintStore(t), &memOwners{}, nil, e.now)
	id := e.depositReceipt(900, depositOf(1))
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
	// Without a chain nothing can be checked: the hint is kept waiting, outside the stream.
	out, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: "USDT", TransactionHash: hash, BuyerWallet: wallet})
	if err != nil || !out.Waiting || out.Status != receipt.StatusGenerated || out.AttemptID != "" {
		t.Fatalf("a hint without a chain: %+v, %v", out, err)
	}
	if h := e.history(id); h != receipt.EventGenerated {
		t.Fatalf("a hint appended to the receipt's stream: %s", h)
	}

	paid := e.depositReceipt(100, depositOf(3))
	e.paid(paid)
	if _, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: paid, Token: "USDC", TransactionHash: "0x" + strings.Repeat("ef", 32), BuyerWallet: wallet}); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("submission for a paid receipt: %v", err)
	}
	if _, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: "rcpt_nobody", Token: "USDC", TransactionHash: hash, BuyerWallet: wallet}); !errors.Is(err, receipt.ErrNotFound) {
		t.Fatalf("unknown receipt: %v", err)
	}
	// A receipt without a deposit address (no split at generation) takes no hint.
	bare := e.receipt(payMerchant, "USD", 100)
	if _, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: bare, Token: "USDC", TransactionHash: "0x" + strings.Repeat("ee", 32), BuyerWallet: wallet}); !errors.Is(err, commands.ErrSplitRequired) || e.history(bare) != receipt.EventGenerated {
		t.Fatalf("a receipt without a deposit address: %v, history %s", err, e.history(bare))
	}
}

// TestSubmittedHashIsAHint: DESIGN 9's rules of a submitted hash, against what the chain shows of
// its transaction. Only a transfer to the receipt's own deposit address is taken (pending, never
// paid); one to the split or to nobody is refused (400), one to another receipt's deposit or
// already credited to another receipt is a conflict (409), and a revert changes no status but is
// recorded as telemetry.
func TestSubmittedHashIsAHint(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	chainTx, owners := &memChain{txs: map[string]commands.MinedTransaction{}}, &memOwners{credited: map[string][]string{}, deposits: map[string]string{}}
	h := commands.NewSubmitWalletPaymentHandler(e.store, hintStore(t), owners, chainTx, e.now)
	wallet, split := "0x"+strings.Repeat("cd", 20), strings.ToLower(payContract)
	mined := func(n int, to string) string {
		hash := "0x" + strings.Repeat(fmt.Sprintf("%02x", n), 32)
		chainTx.txs[hash] = commands.MinedTransaction{Mined: true, BlockNumber: 7, Credits: []commands.ChainCredit{{To: strings.ToLower(to), Token: "USDC", LogIndex: 0, AmountUnits: "9000000", From: wallet}}}
		return hash
	}
	otherDeposit := depositOf(20)
	owners.deposits[strings.ToLower(otherDeposit)] = "rcpt_other"
	credited := mined(5, depositOf(21))
	owners.credited[credited] = []string{"rcpt_other"}
	reverted := "0x" + strings.Repeat("06", 32)
	chainTx.txs[reverted] = commands.MinedTransaction{Mined: true, Reverted: true, BlockNumber: 7}

	for _, c := range []struct {
		name, hash, code string
		kind             string // "" taken; else the refusal's code
	}{
		{"to the split", mined(1, split), "", "invalid_input"},
		{"to nobody's address", mined(2, "0x"+strings.Repeat("77", 20)), "", "invalid_input"},
		{"to another receipt's deposit", mined(3, otherDeposit), "", "conflict"},
		{"credited to another receipt", credited, "", "conflict"},
		{"reverted", reverted, commands.CodeTxReverted, ""},
		{"not mined yet", "0x" + strings.Repeat("08", 32), "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := e.depositReceipt(900, depositOf(40))
			out, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: "USDC", TransactionHash: c.hash, BuyerWallet: wallet})
			switch {
			case c.kind != "":
				wantRefusal(t, err, c.kind, "")
				if h := e.history(id); h != receipt.EventGenerated {
					t.Fatalf("refused, yet appended: %s", h)
				}
			case c.code != "":
				if err != nil || !out.Reverted || out.Status != receipt.StatusGenerated || e.history(id) != receipt.EventGenerated {
					t.Fatalf("reverted: %+v, %v, history %s", out, err, e.history(id))
				}
				if tel := e.telemetry(id); len(tel) != 1 || tel[0].Code != commands.CodeTxReverted || tel[0].Event != "error" {
					t.Fatalf("telemetry of the revert: %+v", tel)
				}
			default: // not mined: kept waiting, outside the stream
				if err != nil || !out.Waiting || out.Status != receipt.StatusGenerated || e.history(id) != receipt.EventGenerated {
					t.Fatalf("a hint not mined yet: %+v, %v, history %s", out, err, e.history(id))
				}
			}
		})
	}

	// The transfer to the receipt's own deposit: pending, and never paid by the hint itself.
	id := e.depositReceipt(900, depositOf(41))
	out, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: "USDC", TransactionHash: mined(9, depositOf(41)), BuyerWallet: wallet})
	if err != nil || out.Status != receipt.StatusPending || e.state(id).Payment != nil || out.AttemptID == "" {
		t.Fatalf("a hint to the deposit: %+v, %v", out, err)
	}
	if a, _ := e.state(id).Current(); a.BuyerWallet != wallet || e.history(id) != "ReceiptGenerated,PaymentAttemptStarted,PaymentSubmitted" {
		t.Fatalf("the paying hint's attempt %+v, history %s", a, e.history(id))
	}
	// A failed receipt takes the hint but stays failed: only confirmed funds on chain move it.
	failed := e.depositReceipt(900, depositOf(42))
	e.failed(failed)
	out, err = h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: failed, Token: "USDC", TransactionHash: mined(10, depositOf(42)), BuyerWallet: wallet})
	if err != nil || out.Status != receipt.StatusFailed || e.state(failed).Status != receipt.StatusFailed {
		t.Fatalf("a hint on a failed receipt: %+v, %v, %s", out, err, e.state(failed).Status)
	}
	// The deposit follower was faster than the page: the paid receipt's own credited transfer is
	// answered as is; another hash for a paid receipt is still refused.
	paid := e.depositReceipt(900, depositOf(43))
	e.paid(paid)
	credit := mined(11, depositOf(43))
	owners.credited[credit] = []string{paid}
	if out, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: paid, Token: "USDC", TransactionHash: credit, BuyerWallet: wallet}); err != nil || out.Status != receipt.StatusPaid {
		t.Fatalf("a late hint of the paying transfer: %+v, %v", out, err)
	}
	if out, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: paid, Token: "USDC", TransactionHash: mined(12, depositOf(43)), BuyerWallet: wallet}); err != nil || out.Status != receipt.StatusPaid {
		t.Fatalf("a late hint of a transfer to the deposit not credited yet: %+v, %v", out, err)
	}
	if _, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: paid, Token: "USDC", TransactionHash: mined(13, split), BuyerWallet: wallet}); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("another hash for a paid receipt: %v", err)
	}
}

// depositOf is a distinct deposit address per n (upper-case hex: compared without case).
func depositOf(n int) string {
	return fmt.Sprintf("0x%040X", 0xde9000+n)
}

// depositReceipt generates a receipt of payMerchant paid at deposit.
func (e *payEnv) depositReceipt(total money.Cents, deposit string) string {
	e.t.Helper()
	id := commands.NewReceiptID(e.at)
	g := receipt.Generated{ReceiptID: id, Merchant: payMerchant, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}}, Subtotal: total, Total: total,
		DepositAddress: deposit, DepositSplit: payContract, ExpiresAt: e.at.Add(time.Hour).UnixMilli()}
	if _, _, err := commands.GenerateReceipt(e.ctx, e.store, e.at, eventstore.Metadata{}, g); err != nil {
		e.t.Fatalf("generate: %v", err)
	}
	return id
}

// failed fails receipt id through a wallet attempt of its own.
func (e *payEnv) failed(id string) {
	e.t.Helper()
	if _, _, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
		evs, err := receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: "att_f", Kind: "onramp", At: 1})
		return receipt.Then(st, evs, err, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.Fail(st, receipt.PaymentFailed{AttemptID: "att_f", Code: "PORTAL_SESSION_EXPIRED", Category: "session", At: 2})
		})
	}); err != nil {
		e.t.Fatal(err)
	}
}

// telemetry is receipt id's telemetry of this hour.
func (e *payEnv) telemetry(id string) []receipt.TelemetryRecorded {
	e.t.Helper()
	evs, err := e.store.ReadStream(e.ctx, commands.TelemetryStream(id, e.at), 1, 100)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []receipt.TelemetryRecorded
	for _, re := range evs {
		ev, err := receipt.Decode(re.Type, re.Data)
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, ev.(receipt.TelemetryRecorded))
	}
	return out
}

// memChain is commands.ChainTransactions over a map (chain.TransactionCredits on a node).
type memChain struct {
	txs map[string]commands.MinedTransaction
}

func (m *memChain) Transaction(_ context.Context, hash string) (commands.MinedTransaction, error) {
	return m.txs[strings.ToLower(hash)], nil
}

// memOwners is commands.DepositOwners over maps (readmodels.Receipts in PostgreSQL).
type memOwners struct {
	credited map[string][]string
	deposits map[string]string
}

func (m *memOwners) CreditedReceipts(_ context.Context, hash string) ([]string, error) {
	return m.credited[strings.ToLower(hash)], nil
}

func (m *memOwners) DepositOwner(_ context.Context, address string) (string, error) {
	return m.deposits[strings.ToLower(address)], nil
}
