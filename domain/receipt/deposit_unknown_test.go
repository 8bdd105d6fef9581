package receipt

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// TestObserveUnknownToken: a Transfer log of a token not configured is recorded once with what
// it reports, at most MaxUnknownTokens per receipt, and counts for nothing: no credit, no status,
// no payer, nothing refundable.
func TestObserveUnknownToken(t *testing.T) {
	s := depositReceipt()
	u := DepositUnknownToken{TransactionHash: "0xU", LogIndex: 2, BlockNumber: 7, BlockHash: "0xb7", TokenAddress: "0xDAI",
		Sender: "0xCust", AmountUnits: "5000000000000000000", At: 9}
	evs, err := ObserveUnknownToken(s, u)
	if err != nil || types(evs) != EventDepositUnknownToken {
		t.Fatalf("first: %v %v", evs, err)
	}
	s = apply(t, s, evs, err)
	if got := s.UnknownTokens; len(got) != 1 || got[0].TokenAddress != "0xdai" || got[0].Sender != "0xcust" || got[0].AmountUnits != u.AmountUnits {
		t.Fatalf("recorded: %+v", got)
	}
	if s.Status != StatusGenerated || len(s.Credits) != 0 || s.AmountReceived() != "" || len(s.RefundRecipients()) != 0 || CanClaimRefund(s) {
		t.Fatalf("it counted: %s credits %v", s.Status, s.Credits)
	}
	if evs, err := ObserveUnknownToken(s, u); err != nil || len(evs) != 0 {
		t.Fatalf("again: %v %v", evs, err)
	}
	for i := range MaxUnknownTokens + 3 {
		u.LogIndex = 10 + i
		evs, err := ObserveUnknownToken(s, u)
		s = apply(t, s, evs, err)
	}
	if len(s.UnknownTokens) != MaxUnknownTokens {
		t.Fatalf("%d recorded, want at most %d", len(s.UnknownTokens), MaxUnknownTokens)
	}
	if _, err := ObserveUnknownToken(generated(), u); err == nil {
		t.Fatal("a receipt without a deposit address took it")
	}
	raw, _ := json.Marshal(u)
	back, err := Decode(EventDepositUnknownToken, raw)
	if err != nil || !reflect.DeepEqual(back, u) {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	raw, _ = json.Marshal(s)
	var st State
	if err := json.Unmarshal(raw, &st); err != nil || !reflect.DeepEqual(st.UnknownTokens, s.UnknownTokens) {
		t.Fatal(fmt.Sprint("state round trip: ", err))
	}
}
