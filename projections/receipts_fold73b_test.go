package projections

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/receipt/receipttest"
	"github.com/payledger/payledger/readmodels"
)

// TestPaymentDetectedIsTheStates (stop 73): at every transfer seen of the credit stream (token
// transfers, ETH, balance credits, drops and reorgs that lower the amount, a sweep and a payment
// between them) and of a stream of dust in two stable tokens and ETH, the payload the projector
// renders from its folder's running sums is readmodels.PaymentDetectedOf of Evolve's state after
// the event, field for field; also across the projector's batches (a folder started from the
// state the last one stored).
func TestPaymentDetectedIsTheStates(t *testing.T) {
	t.Parallel()
	for name, evs := range map[string][]receipt.Event{"credits": receipttest.CreditStream("r", 600), "dust": dustStream("r", 300)} {
		fo, want, sightings := receipt.NewFolder(receipt.State{}), receipt.State{}, 0
		for i, e := range evs {
			if i%250 == 249 {
				fo = receipt.NewFolder(fo.State()) // the next batch folds onto the stored state
			}
			fo.Apply(e)
			want = receipttest.Evolved(want, e)
			d, ok := e.(receipt.DepositTransferSeen)
			if !ok {
				continue
			}
			sightings++
			if got, ref := paymentDetectedOf(fo, d), readmodels.PaymentDetectedOf(want, d); !reflect.DeepEqual(got, ref) {
				t.Fatalf("%s, event %d: payload\n got %+v\nwant %+v", name, i, show(got), show(ref))
			}
		}
		if sightings < 300 {
			t.Fatalf("%s: %d sightings", name, sightings)
		}
	}
}

// dustStream is receipt id paid in n dust transfers seen and confirmed, in USDC, USDT and ETH in
// turn (ETH by transaction), with a quote of ETH between them.
func dustStream(id string, n int) []receipt.Event {
	evs := receipttest.CreditStream(id, 0)
	for i := range n {
		s := receipt.DepositTransferSeen{TransactionHash: "0x" + string(rune('a'+i%26)) + strconv.Itoa(i), LogIndex: 0, BlockNumber: uint64(10 + i),
			BlockHash: "0xb" + strconv.Itoa(i), Sender: "0xB", Token: []string{"USDC", "USDT", "ETH"}[i%3], AmountUnits: "7" + strconv.Itoa(i), Decimals: 6, At: int64(i)}
		if s.Token == "ETH" {
			s.LogIndex, s.Decimals = receipt.ETHLogIndex, 18
		}
		evs = append(evs, s, receipt.DepositTransferConfirmed{TransactionHash: s.TransactionHash, LogIndex: s.LogIndex, BlockNumber: s.BlockNumber, BlockHash: s.BlockHash})
		if i == n/2 {
			evs = append(evs, receipt.TokenQuoted{Token: "ETH", Amount: "0.0049", At: int64(i)})
		}
	}
	return evs
}

// show is p with its amounts dereferenced, for a failure's message.
func show(p readmodels.PaymentDetected) []any {
	deref := func(s *string) any {
		if s == nil {
			return nil
		}
		return *s
	}
	return []any{p.ReceiptID, p.Status, deref(p.DepositAddress), p.TransactionHash, p.LogIndex, deref(p.AmountRequired), deref(p.AmountReceived)}
}

// DustStream is dustStream, for the package's external tests.
var DustStream = dustStream
