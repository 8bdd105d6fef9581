package commands_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// The hint follower read the oldest 100 waiting hints on every pass. Hints of transactions that
// are never mined (random well-formed hashes: anyone can post them on a receipt's page, 20 an
// hour per receipt, and they wait a day) kept the payer's own hint behind them from ever being
// checked: its receipt never went pending from it (the page said "waiting" until the deposit
// follower caught up), and a reverted payment was never reported. Passes now page through the
// waiting hints and wrap around after the last page. And a hint whose receipt cannot be loaded
// (its stream holds an event this build does not know) ended every pass at once: the others are
// now checked and the first error is returned after the pass.
func TestHintFollowerPagesPastHintsThatNeverMine(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	chainTx := &memChain{txs: map[string]commands.MinedTransaction{}}
	owners := &memOwners{credited: map[string][]string{}, deposits: map[string]string{}}
	hints := hintStore(t)
	now := e.at.Add(time.Minute)
	follow := commands.NewCheckPaymentHintsHandler(e.store, hints, owners, chainTx, func() time.Time { return now })
	keep := func(id, hash string, at time.Time) {
		t.Helper()
		h := commands.PaymentHint{ReceiptID: id, TransactionHash: hash, Token: "USDC", BuyerWallet: "0x" + strings.Repeat("ab", 20), SubmittedAt: at}
		if _, err := hints.Keep(e.ctx, h, 1000); err != nil {
			t.Fatal(err)
		}
	}
	// First in line: a receipt whose stream holds an event of a newer build.
	newer := e.depositReceipt(900, depositOf(80))
	if _, err := e.store.Append(context.Background(), receipt.Stream(newer), eventstore.Exact(1),
		eventstore.EventData{ID: uuid.New(), Type: "ReceiptFrozen", Data: json.RawMessage(`{"at":2000}`)}); err != nil {
		t.Fatal(err)
	}
	keep(newer, "0x"+strings.Repeat("0e", 32), e.at.Add(-time.Second))
	// Then 100 hints that never mine, on a receipt of the spammer's.
	spam := e.depositReceipt(900, depositOf(81))
	for n := range 100 {
		keep(spam, fmt.Sprintf("0x%064x", 0x5bad000+n), e.at.Add(time.Duration(n)*time.Millisecond))
	}
	// Last, the payer's hint, posted before its transaction was mined; then it is.
	payer := e.depositReceipt(900, depositOf(82))
	owners.deposits[strings.ToLower(depositOf(82))] = payer
	hash := "0x" + strings.Repeat("9a", 32)
	keep(payer, hash, e.at.Add(time.Second))
	chainTx.txs[hash] = commands.MinedTransaction{Mined: true, BlockNumber: 7,
		Credits: []commands.ChainCredit{{To: strings.ToLower(depositOf(82)), Token: "USDC", AmountUnits: "9000000"}}}

	if _, err := follow.Handle(e.ctx, commands.CheckPaymentHints{}); err == nil || !strings.Contains(err.Error(), newer) {
		t.Fatalf("first pass: %v, want the error of the receipt that cannot be loaded", err)
	}
	for range 2 {
		_, _ = follow.Handle(e.ctx, commands.CheckPaymentHints{}) // a pass over the newer receipt's hint fails again
	}
	if st := e.state(payer); st.Status != receipt.StatusPending {
		t.Fatalf("after 3 passes the payer's receipt is %s (history %s): its hint, behind 100 that never mine, was never checked",
			st.Status, e.history(payer))
	}
	if h := e.history(spam); h != receipt.EventGenerated {
		t.Fatalf("the hints that never mined reached their receipt's stream: %s", h)
	}
}
