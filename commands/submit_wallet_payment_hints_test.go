package commands_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// Issue 36 finding 4: 30 hints with random well-formed hashes grew the receipt's own stream from
// 1 to 61 events. Hints are kept outside the stream: at most 20 per receipt per hour (then
// ErrHintsLimited, 429), the stream keeps its one event, and an hour later hints are taken again.
func TestHintsStayOutOfTheReceiptsStream(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	var mu sync.Mutex
	now := e.at
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	chainTx := &memChain{txs: map[string]commands.MinedTransaction{}} // nothing mined
	h := commands.NewSubmitWalletPaymentHandler(e.store, hintStore(t), &memOwners{}, chainTx, clock)
	id := e.depositReceipt(900, depositOf(50))
	hint := func(n int) error {
		_, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: "USDC",
			TransactionHash: fmt.Sprintf("0x%064x", 0xabc000+n), BuyerWallet: "0x" + strings.Repeat("cd", 20)})
		return err
	}
	taken, limited := 0, 0
	for n := range 30 {
		switch err := hint(n); {
		case err == nil:
			taken++
		case errors.Is(err, commands.ErrHintsLimited):
			limited++
			// The hour slides: the limit lifts when the first hint (at now) leaves it.
			if l, ok := errors.AsType[*receipt.Limited](err); !ok || l.ResetAt() != now.Add(time.Hour).UnixMilli() {
				t.Fatalf("hint %d: %v (%T), want a reset at %d", n, err, err, now.Add(time.Hour).UnixMilli())
			}
		default:
			t.Fatalf("hint %d: %v", n, err)
		}
	}
	if taken != commands.MaxHintsPerHour || limited != 30-commands.MaxHintsPerHour {
		t.Fatalf("%d taken, %d limited; want 20 and 10", taken, limited)
	}
	if h := e.history(id); h != receipt.EventGenerated {
		t.Fatalf("the receipt's stream grew: %s", h)
	}
	// A repeat of a kept hash stores nothing and is answered as before.
	if err := hint(3); err != nil {
		t.Fatalf("a repeat of a kept hint: %v", err)
	}
	mu.Lock()
	now = now.Add(time.Hour + time.Second)
	mu.Unlock()
	if err := hint(100); err != nil {
		t.Fatalf("a hint an hour later: %v", err)
	}
}

// Issue 36 finding 5: a hash posted for receipt X before its transaction (a transfer to receipt
// Y's deposit) is mined must not block Y's own hint, nor set X's buyer wallet. Both hints wait;
// once the transaction is mined, the follower (CheckPaymentHints) records Y's attempt with the
// payer's wallet and refuses X's, which stays untouched; X's hint posted again is then a
// conflict (the transfer is credited to another receipt).
func TestFrontRunHintDoesNotBlockThePayer(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	chainTx, owners, submit, follow := e.hintHandlers(t)
	x, y := e.depositReceipt(900, depositOf(60)), e.depositReceipt(900, depositOf(61))
	owners.deposits[strings.ToLower(depositOf(60))], owners.deposits[strings.ToLower(depositOf(61))] = x, y
	hash := "0x" + strings.Repeat("5e", 32)
	attacker, payer := "0x"+strings.Repeat("aa", 20), "0x"+strings.Repeat("bb", 20)

	if out, err := submit.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: x, Token: "USDC", TransactionHash: hash, BuyerWallet: attacker}); err != nil || !out.Waiting {
		t.Fatalf("the front-runner's hint: %+v, %v", out, err)
	}
	if out, err := submit.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: y, Token: "USDC", TransactionHash: hash, BuyerWallet: payer}); err != nil || !out.Waiting {
		t.Fatalf("the payer's own hint after a front-run: %+v, %v (want it kept, not 409)", out, err)
	}
	if e.history(x) != receipt.EventGenerated || e.history(y) != receipt.EventGenerated {
		t.Fatalf("waiting hints reached the streams: %s / %s", e.history(x), e.history(y))
	}

	chainTx.txs[hash] = commands.MinedTransaction{Mined: true, BlockNumber: 9,
		Credits: []commands.ChainCredit{{To: strings.ToLower(depositOf(61)), Token: "USDC", AmountUnits: "9000000", From: payer}}}
	done, err := follow.Handle(e.ctx, commands.CheckPaymentHints{})
	if err != nil || done.Checked != 2 || done.Credited != 1 {
		t.Fatalf("the follower's pass: %+v, %v", done, err)
	}
	if a, _ := e.state(y).Current(); e.state(y).Status != receipt.StatusPending || a.BuyerWallet != payer || a.TransactionHash != hash {
		t.Fatalf("the payer's receipt: %s, attempt %+v", e.state(y).Status, a)
	}
	if st := e.state(x); e.history(x) != receipt.EventGenerated || len(st.Attempts) != 0 {
		t.Fatalf("the front-run receipt changed: %s %+v", e.history(x), st.Attempts)
	}
	if again, err := follow.Handle(e.ctx, commands.CheckPaymentHints{}); err != nil || again.Checked != 0 {
		t.Fatalf("decided hints were checked again: %+v, %v", again, err)
	}
	_, err = submit.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: x, Token: "USDC", TransactionHash: hash, BuyerWallet: attacker})
	wantRefusal(t, err, "conflict", "This transaction pays another receipt")
	// The payer's page reporting again adds nothing: one attempt per hash.
	if _, err := submit.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: y, Token: "USDC", TransactionHash: hash, BuyerWallet: payer}); err != nil {
		t.Fatal(err)
	}
	if h := e.history(y); h != "ReceiptGenerated,PaymentAttemptStarted,PaymentSubmitted" {
		t.Fatalf("the payer's history: %s", h)
	}
}

// hintHandlers are a hint's submit command and the hint follower over one hint store, with the
// chain and the deposit owners they read, both empty for the test to fill.
func (e *payEnv) hintHandlers(t testing.TB) (*memChain, *memOwners, *commands.SubmitWalletPaymentHandler, *commands.CheckPaymentHintsHandler) {
	chainTx := &memChain{txs: map[string]commands.MinedTransaction{}}
	owners := &memOwners{credited: map[string][]string{}, deposits: map[string]string{}}
	hints := hintStore(t)
	return chainTx, owners, commands.NewSubmitWalletPaymentHandler(e.store, hints, owners, chainTx, e.now),
		commands.NewCheckPaymentHintsHandler(e.store, hints, owners, chainTx, e.now)
}
