package pgstore

import (
	"reflect"
	"testing"

	"github.com/payledger/payledger/settlement"
)

// TestWithFacts: the deposits read without facts keep their order; each one asked for is as the
// read with facts found it (a newer version, its facts), or left out when that read no longer
// finds it open; the others stay as they were read.
func TestWithFacts(t *testing.T) {
	lean := []settlement.OpenDeposit{
		{ReceiptID: "known", Version: 3, Known: true},
		{ReceiptID: "changed", Version: 4},
		{ReceiptID: "bare", Version: 1},
		{ReceiptID: "closed", Version: 2},
	}
	full := []settlement.OpenDeposit{
		{ReceiptID: "changed", Version: 5, Settled: true, Paid: &settlement.PaidTransfer{TransactionHash: "0xab"}},
	}
	got := withFacts(lean, []string{"changed", "closed"}, full)
	want := []settlement.OpenDeposit{
		{ReceiptID: "known", Version: 3, Known: true},
		{ReceiptID: "changed", Version: 5, Settled: true, Paid: &settlement.PaidTransfer{TransactionHash: "0xab"}},
		{ReceiptID: "bare", Version: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("withFacts:\n got %+v\nwant %+v", got, want)
	}
}
