package receipt

import (
	"errors"
	"strings"
	"testing"
)

// paidWithUnknown is paidOnChain with 5e18 raw units of an unconfigured token (contract 0xdai)
// sent to its deposit by 0xcust.
func paidWithUnknown(t *testing.T) (State, UnknownTransferRef) {
	t.Helper()
	s := paidOnChain(t)
	evs, err := ObserveUnknownToken(s, DepositUnknownToken{TransactionHash: "0xunk", LogIndex: 3, BlockNumber: 6, BlockHash: "0xb6",
		TokenAddress: "0xDAI", Sender: "0xCust", AmountUnits: "5000000000000000000", At: 5})
	return apply(t, s, evs, err), UnknownTransferRef{TransactionHash: "0xunk", LogIndex: 3}
}

// TestRefundOfAnUnknownToken: the claim names the unknown transfer, is judged against that
// contract, its sender and the raw amount received, and never changes the receipt's amounts or
// status (claimed, processed, reverted, refused); one counted refund per transfer and per hash.
func TestRefundOfAnUnknownToken(t *testing.T) {
	t.Parallel()
	s, ref := paidWithUnknown(t)
	order := RefundOrder{Reason: "not ours", TransactionHash: hashA, Unknown: &ref, By: "m", At: 20}
	if _, err := RequestRefund(s, RefundOrder{Reason: "r", TransactionHash: hashA, Unknown: &UnknownTransferRef{TransactionHash: "0xunk", LogIndex: 4}}); !errors.Is(err, ErrState) {
		t.Fatalf("another log: %v", err)
	}
	if _, err := RequestRefund(s, RefundOrder{Reason: "r", Unknown: &ref}); !errors.Is(err, ErrState) {
		t.Fatalf("without a hash: %v", err)
	}
	if _, err := RequestRefund(s, RefundOrder{Reason: "r", AmountCents: 100, TransactionHash: hashA, Unknown: &ref}); !errors.Is(err, ErrAmount) {
		t.Fatalf("with an amount: %v", err)
	}
	evs, err := RequestRefund(s, order)
	claimed := apply(t, s, evs, err)
	unchanged := func(step string, st State, state string) {
		t.Helper()
		r, _ := st.CountedRefund(hashA)
		if state == RefundStateRefused {
			r = st.Refunds[len(st.Refunds)-1]
		}
		if st.Status != StatusPaid || st.RefundedCents != 0 || st.RequestedCents != 0 || st.Unrefunded() != 1000 || r.State != state || r.AmountCents != 0 {
			t.Fatalf("%s: status %s refunded %d requested %d record %+v", step, st.Status, st.RefundedCents, st.RequestedCents, r)
		}
	}
	unchanged("claimed", claimed, RefundStateClaimed)
	if r, _ := claimed.CountedRefund(hashA); r.Token != "0xdai" || r.TokenAmount() != "5000000000000000000" {
		t.Fatalf("claim record: %+v", r)
	}
	if _, err := RequestRefund(claimed, RefundOrder{Reason: "r", TransactionHash: hashB, Unknown: &ref}); !errors.Is(err, ErrState) {
		t.Fatalf("the transfer refunded twice: %v", err)
	}
	if _, err := RequestRefund(claimed, RefundOrder{Reason: "r", TransactionHash: hashA}); !errors.Is(err, ErrRefundHashUsed) {
		t.Fatalf("hash reused for a USD refund: %v", err)
	}
	judge := func(transfers ...ChainTransfer) (RefundProcessed, string, bool) {
		return JudgeRefund(claimed, RefundEvidence{TransactionHash: hashA, Succeeded: true, Transfers: transfers, BlockNumber: 9, BlockHash: "0xb9", At: 30})
	}
	usdc := ChainTransfer{Token: "USDC", Contract: "0xusdc", Decimals: 6, To: "0xcust", AmountUnits: "5000000000000000000"}
	if _, reason, ok := judge(usdc); ok || !strings.Contains(reason, "no token of contract 0xdai") {
		t.Fatalf("the wrong token: %v %q", ok, reason)
	}
	if _, reason, ok := judge(ChainTransfer{Contract: "0xdai", To: "0xother", AmountUnits: "5000000000000000000"}); ok || !strings.Contains(reason, "sender 0xcust") {
		t.Fatalf("the wrong recipient: %v %q", ok, reason)
	}
	if _, reason, ok := judge(ChainTransfer{Contract: "0xdai", To: "0xcust", AmountUnits: "4999999999999999999"}); ok || !strings.Contains(reason, "less than") {
		t.Fatalf("short: %v %q", ok, reason)
	}
	p, _, ok := judge(ChainTransfer{Contract: "0xDAI", To: "0xCUST", AmountUnits: "5000000000000000000"})
	if !ok || p.Token != "0xdai" || p.Recipient != "0xcust" {
		t.Fatalf("the right transfer: %v %+v", ok, p)
	}
	evs, err = ProcessRefund(claimed, p)
	processed := apply(t, claimed, evs, err)
	unchanged("processed", processed, RefundStateProcessed)
	if r, _ := processed.CountedRefund(hashA); r.Proof != ProofChain || r.Recipient != "0xcust" || r.BlockNumber != 9 {
		t.Fatalf("processed record: %+v", r)
	}
	evs, err = RevertRefund(processed, hashA, 40)
	unchanged("reverted", apply(t, processed, evs, err), RefundStateClaimed)
	evs, err = RefuseRefund(claimed, hashA, "no such transfer", 31)
	refused := apply(t, claimed, evs, err)
	unchanged("refused", refused, RefundStateRefused)
	if _, err := RequestRefund(refused, RefundOrder{Reason: "again", TransactionHash: hashB, Unknown: &ref}); err != nil {
		t.Fatalf("a refused claim still holds the transfer: %v", err)
	}
}
