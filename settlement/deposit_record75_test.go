package settlement

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/receipt"
)

// The known receipts are held by pointer and shared between the detector's memory and each
// decision (deposit_known.go): a decision that changed the state it decided on in place would
// leave the memory holding a state no stream holds (an append refused, the receipt decided again
// on it). decideEncode must leave k as it was, and return the state after its events apart.
func TestDecideEncodeLeavesTheKnownStateAsItWas(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1_800_000_000_000)
	transfer := DepositTransfer{Deposit: "0x" + strings.Repeat("d", 40), TransactionHash: "0x" + strings.Repeat("1", 64), BlockNumber: 10,
		BlockHash: "0x" + strings.Repeat("b", 64), Sender: "0x" + strings.Repeat("5", 40), Token: "USDC", Decimals: 6, AmountUnits: "1000000"}
	seen := func() receipt.State { // built afresh each time: the state decided on, as it was
		g := receipt.Generated{ReceiptID: "r75", Merchant: "0x" + strings.Repeat("a", 40), Source: "direct", Currency: "USD", TaxRate: "0",
			TaxComponents: []string{}, LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 100}}, Subtotal: 100, Total: 100,
			DepositAddress: transfer.Deposit, DepositSplit: "0x" + strings.Repeat("e", 40), CreatedAt: now.Add(-time.Minute).UnixMilli()}
		st := receipt.Evolve(receipt.State{}, g)
		return receipt.Evolve(st, seenOf(transfer, now.Add(-time.Second).UnixMilli()))
	}
	k := &knownReceipt{st: seen(), version: 2}
	evs, after, err := decideEncode(k, []observation{{t: transfer, confirmed: true}}, nil, now, newEventIDs(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || after.version != 4 || after.st.Status != receipt.StatusPaid {
		t.Fatalf("%d events, after at version %d in status %s; want 2 events, version 4, paid", len(evs), after.version, after.st.Status)
	}
	if k.version != 2 || !reflect.DeepEqual(k.st, seen()) {
		t.Fatalf("the state decided on was changed: version %d, status %s, credits %+v", k.version, k.st.Status, k.st.Credits)
	}
	again, same, err := decideEncode(after, []observation{{t: transfer, confirmed: true}}, nil, now, newEventIDs(1))
	if err != nil || len(again) != 0 || same != after {
		t.Fatalf("nothing new decided: %d events, the same receipt back %v (%v)", len(again), same == after, err)
	}
}

// The events' ids come from one buffer of crypto/rand per chunk (eventIDs): distinct, version 7,
// and, drawn one after the other, in increasing order as uuid.NewV7's are.
func TestEventIDsAreDistinctOrderedVersion7(t *testing.T) {
	t.Parallel()
	ids := newEventIDs(1000)
	seen := make(map[uuid.UUID]bool, 5000)
	var last uuid.UUID
	for i := range 5000 { // past the buffer sized for 1,000 receipts: refilled
		id, err := ids.next()
		if err != nil {
			t.Fatal(err)
		}
		if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
			t.Fatalf("id %d %s: version %d variant %v", i, id, id.Version(), id.Variant())
		}
		if seen[id] || bytes.Compare(id[:], last[:]) <= 0 {
			t.Fatalf("id %d %s after %s: repeated or out of order", i, id, last)
		}
		seen[id], last = true, id
	}
}
