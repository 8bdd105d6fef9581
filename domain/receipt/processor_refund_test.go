package receipt

import (
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/money"
)

// TestProcessorToRefundCents: each processor success the receipt does not count keeps its amount
// and kind, once per attempt: a short ACH completion (underpaid, 6.00), a second card payment
// (duplicate, 10.00), reported again with its hash (counted once), and one after the window
// (late, 4.00). The attempt that paid never counts; a stream recorded before stop 70 (no kind)
// reads the kind from its why; a success without an amount is counted as unknown.
func TestProcessorToRefundCents(t *testing.T) {
	t.Parallel()
	hash := func(c string) string { return "0x" + strings.Repeat(c, 64) }
	s := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_a", At: 2}, ACHAccepted{AttemptID: "a", At: 3})
	s = reported(t, s, ProcessorUpdate{SessionID: "cos_a", AttemptID: "a", Status: "fulfillment_complete", SourceAmountCents: cents(600), SourceAmountUSD: "6.00", TransactionHash: hash("1"), At: 10})
	s = withEvents(t, s, AttemptStarted{AttemptID: "b", Kind: "onramp", SessionID: "cos_b", At: 11}, AttemptStarted{AttemptID: "c", Kind: "onramp", SessionID: "cos_c", At: 12})
	s = reported(t, s, ProcessorUpdate{SessionID: "cos_b", AttemptID: "b", Status: "fulfillment_complete", SourceAmountCents: cents(1000), SourceAmountUSD: "10.00", TransactionHash: hash("2"), At: 13})
	if s.Status != StatusPaid {
		t.Fatalf("b's payment: %s", s.Status)
	}
	twice := ProcessorUpdate{SessionID: "cos_c", AttemptID: "c", Status: "fulfillment_complete", SourceAmountCents: cents(1000), SourceAmountUSD: "10.00", At: 14}
	s = reported(t, s, twice)
	twice.TransactionHash = hash("3")
	s = reported(t, s, twice)
	if got, unknown := s.ProcessorToRefundCents(); got != money.Cents(1600) || unknown != 0 {
		t.Fatalf("to refund: %d (%d unknown), want 1600", got, unknown)
	}
	kinds := map[string]string{}
	for _, p := range s.ProcessorIgnored {
		kinds[p.AttemptID] = p.Kind
	}
	if kinds["a"] != IgnoredKindUnderpaid || kinds["c"] != IgnoredKindDuplicate || len(kinds) != 2 {
		t.Fatalf("kinds %v", kinds)
	}

	late := expired(t, withEvents(t, windowed(), AttemptStarted{AttemptID: "l", Kind: "onramp", SessionID: "cos_l", At: 2},
		fail("l")))
	late = reported(t, late, ProcessorUpdate{SessionID: "cos_l", AttemptID: "l", Status: "fulfillment_complete", SourceAmountCents: cents(400), SourceAmountUSD: "4.00", TransactionHash: hash("4"), At: winEnd + 5})
	if got, _ := late.ProcessorToRefundCents(); got != 400 || late.ProcessorIgnored[0].Kind != IgnoredKindLate {
		t.Fatalf("late: %d %+v", got, late.ProcessorIgnored)
	}

	old, err := Decode(EventPaymentIgnored, []byte(`{"attemptId":"o","verifiedBy":"processor","why":"duplicate payment: the receipt is already paid; session cos_o reported a second payment of unknown USD, to be refunded","statusAtArrival":"paid","at":9}`))
	if err != nil {
		t.Fatal(err)
	}
	before := withEvents(t, windowed(), AttemptStarted{AttemptID: "o", Kind: "onramp", SessionID: "cos_o", At: 2}, old)
	if got, unknown := before.ProcessorToRefundCents(); got != 0 || unknown != 1 || before.ProcessorIgnored[0].Kind != IgnoredKindDuplicate {
		t.Fatalf("recorded before stop 70: %d (%d unknown) %+v", got, unknown, before.ProcessorIgnored)
	}
}

// reported is s after the processor's report u.
func reported(t *testing.T, s State, u ProcessorUpdate) State {
	t.Helper()
	evs, err := DecideProcessorUpdate(s, u)
	return apply(t, s, evs, err)
}
