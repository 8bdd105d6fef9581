package receipt

import (
	"errors"
	"testing"
)

// TestChainWithdrawal is the rule "a paid receipt whose paying transaction a reorg past the
// confirmation depth took off the chain is not reconciled until the chain confirms the same
// transaction again" as a table over the decisions that meet the flag.
func TestChainWithdrawal(t *testing.T) {
	t.Parallel()
	pending := then(t, started(generated(), "a"))(Submit(started(generated(), "a"), PaymentSubmitted{AttemptID: "a", Source: "wallet", TransactionHash: "0xAbc", At: 3}))
	onChain := PaymentConfirmed{AttemptID: "a", TransactionHash: "0xabc", VerifiedBy: "chain", BlockNumber: 7, BlockHash: "0xb7", At: 8}
	paid := then(t, pending)(Confirm(pending, onChain))
	withdrawal := PaymentFailed{AttemptID: "a", Code: CodeChainWithdrawn, Category: "blockchain", Reason: "gone", At: 9}
	flagged := then(t, paid)(Fail(paid, withdrawal))
	if flagged.Status != StatusPaid || flagged.ChainWithdrawnTx != "0xabc" {
		t.Fatalf("flagged: status %s, withdrawn %q; want paid and 0xabc", flagged.Status, flagged.ChainWithdrawnTx)
	}
	again := onChain
	again.BlockNumber, again.BlockHash, again.At = 9, "0xb9", 12
	restored := then(t, flagged)(Confirm(flagged, again))
	if restored.ChainWithdrawnTx != "" || restored.Status != StatusPaid {
		t.Fatalf("restored: %+v", restored)
	}
	otherTx := again
	otherTx.TransactionHash = "0xdef"
	byProcessor := again
	byProcessor.VerifiedBy = "processor"
	d := SplitDistributed{TransactionHashes: []string{"0x1"}, Token: "USDC", At: 20}

	cases := []struct {
		name    string
		decide  func() ([]Event, error)
		want    string // the one event's type, "" for none
		wantErr error
	}{
		{"paid, not flagged: reconciled", func() ([]Event, error) { return DistributeSplit(paid, d) }, EventSplitDistributed, nil},
		{"flagged: not reconciled", func() ([]Event, error) { return DistributeSplit(flagged, d) }, "", ErrWithdrawn},
		{"flagged is an ErrState", func() ([]Event, error) { return DistributeSplit(flagged, d) }, "", ErrState},
		{"restored: reconciled", func() ([]Event, error) { return DistributeSplit(restored, d) }, EventSplitDistributed, nil},
		{"paid, withdrawn: flagged", func() ([]Event, error) { return Fail(paid, withdrawal) }, EventFailureIgnored, nil},
		{"flagged, withdrawn again: nothing", func() ([]Event, error) { return Fail(flagged, withdrawal) }, "", nil},
		{"flagged, mined again but reverted: nothing", func() ([]Event, error) { return Fail(flagged, fail("a")) }, "", nil},
		{"flagged, a late failure of another attempt: ignored, for auditors", func() ([]Event, error) { return Fail(flagged, fail("b")) }, EventFailureIgnored, nil},
		{"flagged, the same transaction at depth: restored", func() ([]Event, error) { return Confirm(flagged, again) }, EventPaymentRestored, nil},
		{"flagged, another transaction: nothing", func() ([]Event, error) { return Confirm(flagged, otherTx) }, "", nil},
		{"flagged, a processor's word: nothing", func() ([]Event, error) { return Confirm(flagged, byProcessor) }, "", nil},
		{"restored, confirmed again: nothing", func() ([]Event, error) { return Confirm(restored, again) }, "", nil},
		{"restored, withdrawn again: flagged", func() ([]Event, error) { return Fail(restored, withdrawal) }, EventFailureIgnored, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := c.decide()
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			switch {
			case c.want == "" && len(evs) != 0:
				t.Fatalf("events = %+v, want none", evs)
			case c.want != "" && (len(evs) != 1 || TypeOf(evs[0]) != c.want):
				t.Fatalf("events = %+v, want one %s", evs, c.want)
			}
		})
	}
}
