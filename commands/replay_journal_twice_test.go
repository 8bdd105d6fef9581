package commands_test

import (
	"errors"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
)

// TestAReceiptIDChosenTwiceWhileDownIsJournaledOnce: with the datastore down, POST /api/receipts
// with an id the caller chose (journaled in degraded mode) and then the same id again, for
// another total: the second was acknowledged too, the status read answered its total, and the
// replay stored the first receipt (the second failed for ever as an id taken by another). The
// second is refused now as the id of a receipt that exists (409 conflict, as when the datastore
// answers), and the journaled receipt read back is the first.
func TestAReceiptIDChosenTwiceWhileDownIsJournaledOnce(t *testing.T) {
	t.Parallel()
	probe := newPayEnv(t)
	e := newOrderEnv(t, downStore{probe.store}, payPlatform)
	small := []commands.ReceiptLine{{Label: "Coffee", PriceUSD: amount("3.50")}}
	large := []commands.ReceiptLine{{Label: "Dinner", PriceUSD: amount("80.00")}}
	first, err := e.direct.Handle(e.ctx, commands.CreateReceipt{Merchant: payMerchant, ID: "inv-9", Lines: &small, TotalUSD: amount("3.50")})
	if err != nil || !first.Degraded {
		t.Fatalf("the first receipt while down: %+v %v", first, err)
	}
	second, err := e.direct.Handle(e.ctx, commands.CreateReceipt{Merchant: payMerchant, ID: "inv-9", Lines: &large, TotalUSD: amount("80.00")})
	if !errors.Is(err, commands.ErrReceiptExists) || second.Degraded {
		t.Fatalf("the same id again while down: %+v %v, want it refused as a receipt that exists (409)", second, err)
	}
	if p, _ := e.journal.Pending(); len(p) != 1 {
		t.Fatalf("the journal holds %d entries, want the first receipt's alone", len(p))
	}
	if got, ok := journaledTotal(e, "inv-9"); !ok || got != money.Cents(350) {
		t.Fatalf("the journaled receipt's total: %v (%v), want the first's 3.50", got, ok)
	}
}

// journaledTotal is the total of merchant payMerchant's receipt id as its journal entry holds it.
func journaledTotal(e *orderEnv, id string) (money.Cents, bool) {
	issuer := commands.NewIssuer(e.payEnv.store, &claims{m: map[string][2]string{}}, e.keys, e.journal, isEOF, e.now)
	st, ok := issuer.Journaled(commands.MerchantReceiptID(payMerchant, id))
	return st.Receipt.Total, ok
}
