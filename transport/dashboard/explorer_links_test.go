package dashboard

import (
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/transport"
)

// TestReceiptPageLinksEveryTransactionToOneExplorer: transfers linked to EXPLORER_URL while the
// refunds of the same receipt linked to a built-in explorer chosen by chain id, so with
// EXPLORER_URL set on Base a refund went to basescan.org and a transfer elsewhere; on a chain
// without a built-in one (Optimism) refunds had no link at all; and on Base without EXPLORER_URL
// only refunds were linked. Every transaction of the page now links to one explorer: EXPLORER_URL
// when set, else the chain's public one, else none.
func TestReceiptPageLinksEveryTransactionToOneExplorer(t *testing.T) {
	transfer, refund := "0x"+strings.Repeat("a", 64), "0x"+strings.Repeat("b", 64)
	st := receipt.State{Status: receipt.StatusRefunded, Receipt: receipt.Generated{ReceiptID: "rcpt_x", Currency: "USD", Total: 500},
		Credits: []receipt.Credit{{TransactionHash: transfer, Sender: "0x" + strings.Repeat("1", 40), Token: "USDC", AmountUnits: "5000000", Decimals: 6, Confirmed: true}}}
	st.Refunds = []receipt.RefundRecord{{AmountCents: 500, TransactionHash: refund, State: receipt.RefundStateProcessed, Proof: receipt.ProofChain}}
	for _, tc := range []struct {
		name     string
		chain    int64
		explorer string
		want     string
	}{
		{"EXPLORER_URL on Base", 8453, "https://base.blockscout.com/", "https://base.blockscout.com/tx/"},
		{"EXPLORER_URL on a chain without a built-in explorer", 10, "https://optimistic.etherscan.io", "https://optimistic.etherscan.io/tx/"},
		{"Base without EXPLORER_URL", 8453, "", "https://basescan.org/tx/"},
		{"the development chain", 1337, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &dash{cfg: transport.Config{PaymentChain: transport.PaymentChain{ChainID: tc.chain, ExplorerURL: tc.explorer}}}
			var v dashReceiptView
			v.Transfers = dashTransfers(st, s.explorer())
			s.dashRefundsOf(&v, st)
			if len(v.Transfers) != 1 || len(v.Refunds) != 1 {
				t.Fatalf("%d transfers, %d refunds", len(v.Transfers), len(v.Refunds))
			}
			wantTransfer, wantRefund := "", ""
			if tc.want != "" {
				wantTransfer, wantRefund = tc.want+transfer, tc.want+refund
			}
			if v.Transfers[0].URL != wantTransfer || v.Refunds[0].TxURL != wantRefund {
				t.Fatalf("transfer links to %q, refund to %q; want %q and %q", v.Transfers[0].URL, v.Refunds[0].TxURL, wantTransfer, wantRefund)
			}
		})
	}
}
