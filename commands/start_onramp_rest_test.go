package commands_test

import (
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// The payment page offers the card or bank button for the rest of an underpaid receipt, but the
// session asked the processor for the whole total (and only a success of the whole total paid
// it): a customer who had sent 10.00 of 12.31 USDC paid 12.31 again by card. The session now
// asks for what is still due (receipt.OnrampDue), 2.31.
func TestStartOnrampAsksForWhatIsStillDue(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	id := e.depositReceipt(1231, depositOf(7))
	if _, _, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveDeposit(st, receipt.DepositObservation{Transfer: receipt.DepositTransferSeen{TransactionHash: "0x" + "a1",
			BlockNumber: 5, BlockHash: "0xb1", Sender: "0xb", Token: "USDC", AmountUnits: "10000000", Decimals: 6}, Confirmed: true, At: 2})
	}); err != nil {
		t.Fatal(err)
	}
	if st := e.state(id); st.Status != receipt.StatusPending || st.AmountReceived() != "10.00" {
		t.Fatalf("status %s, received %s: want pending, 10.00 received", st.Status, st.AmountReceived())
	}
	f := newFakeProcessor()
	out, err := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, noPrices{}, e.now).Handle(e.ctx, commands.StartOnramp{ReceiptID: id})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.created[0].AmountUSD; got != "2.31" || out.AmountUSD != 231 {
		t.Fatalf("the session asked for %s USD (answered %s), want the rest, 2.31", got, out.AmountUSD)
	}
}
