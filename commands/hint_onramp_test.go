package commands_test

import (
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// TestHintKeepsAnOpenCardSessionsHold: a card or bank session holds the payment window while
// the processor decides it, but only as the receipt's current attempt. A wallet hint (the
// customer's earlier partial transfer, mined while the card pays the rest, or anyone's dust
// transfer to the deposit) opened a wallet attempt over it: the window then failed the receipt
// under the card payment in flight, and the processor's success after that paid nothing. A hint
// now leaves an open session current; the transfer is the deposit follower's.
func TestHintKeepsAnOpenCardSessionsHold(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	chainTx, _, submit, follow := e.hintHandlers(t)
	payer := "0x" + strings.Repeat("bb", 20)
	for i, posted := range []string{"mined when posted", "mined later"} {
		t.Run(posted, func(t *testing.T) {
			deposit := depositOf(90 + i)
			id := e.depositReceipt(900, deposit)
			if _, _, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
				return receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: "att_card", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", At: 1})
			}); err != nil {
				t.Fatal(err)
			}
			hash := "0x" + strings.Repeat(string(rune('a'+i)), 64)
			mined := commands.MinedTransaction{Mined: true, BlockNumber: 9,
				Credits: []commands.ChainCredit{{To: strings.ToLower(deposit), Token: "USDC", AmountUnits: "4000000", From: payer}}}
			if i == 0 {
				chainTx.txs[hash] = mined
			}
			if _, err := submit.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: "USDC", TransactionHash: hash, BuyerWallet: payer}); err != nil {
				t.Fatalf("the hint: %v", err)
			}
			if i == 1 {
				chainTx.txs[hash] = mined
				if _, err := follow.Handle(e.ctx, commands.CheckPaymentHints{}); err != nil {
					t.Fatal(err)
				}
			}
			st := e.state(id)
			if !st.OnrampOpen() || st.CurrentAttempt != "att_card" || st.WindowDue(st.Receipt.ExpiresAt+1) {
				t.Fatalf("after the hint: current attempt %s, onramp open %v, window due at its end %v; want the card session to hold it",
					st.CurrentAttempt, st.OnrampOpen(), st.WindowDue(st.Receipt.ExpiresAt+1))
			}
		})
	}
}
