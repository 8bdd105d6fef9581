package receipt

import (
	"strings"
	"testing"
)

// TestTheBuyerIsWhoPaidMost: a receipt's chain payment names as its buyer the sender who covered
// the most of it, not the sender of the transfer that completed it. The 12.31 USD receipt: the
// customer sends 12.00 USDC (an exchange kept a fee), a stranger who watches the deposit address
// sends the missing 0.31 and completes it. Before, the stranger was the buyer (its XP, the
// payer the merchant's webhook names).
func TestTheBuyerIsWhoPaidMost(t *testing.T) {
	t.Parallel()
	from := func(sender, tx, token, units string, dec uint8) DepositObservation {
		tr := transfer(tx, token, units, dec, "0xb1")
		tr.Sender = sender
		return DepositObservation{Transfer: tr, Confirmed: true, At: 10}
	}
	quoted := Evolve(depositReceipt(), TokenQuoted{Token: "ETH", Amount: "0.005", At: 2})
	for _, c := range []struct {
		name      string
		transfers []DepositObservation
		want      string
	}{
		{"a stranger completes the customer's underpayment", []DepositObservation{
			from("0xCustomer", "0x1", "USDC", "12000000", 6), from("0xStranger", "0x2", "USDC", "310000", 6)}, "0xCustomer"},
		{"the customer completes what a stranger's dust began", []DepositObservation{
			from("0xStranger", "0x1", "USDC", "1", 6), from("0xCustomer", "0x2", "USDC", "12309999", 6)}, "0xCustomer"},
		{"two transfers of the customer outweigh one larger of another", []DepositObservation{
			from("0xCustomer", "0x1", "USDC", "4000000", 6), from("0xOther", "0x2", "USDT", "4300000", 6),
			from("0xcustomer", "0x3", "USDC", "4010000", 6)}, "0xCustomer"},
		{"a quoted token counts by its own threshold", []DepositObservation{
			from("0xCustomer", "0x1", "ETH", "4000000000000000", 18), from("0xStranger", "0x2", "USDC", "2500000", 6)}, "0xCustomer"},
		{"a tie goes to the completing sender", []DepositObservation{
			from("0xFirst", "0x1", "USDC", "6155000", 6), from("0xSecond", "0x2", "USDC", "6155000", 6)}, "0xSecond"},
		{"one sender", []DepositObservation{from("0xCustomer", "0x1", "USDC", "12310000", 6)}, "0xCustomer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := quoted
			for _, o := range c.transfers {
				s, _ = observe(t, s, o)
			}
			if s.Status != StatusPaid || s.Payment == nil {
				t.Fatalf("status %s, payment %+v", s.Status, s.Payment)
			}
			if !strings.EqualFold(s.Payment.BuyerWallet, c.want) {
				t.Fatalf("buyer %s, want %s", s.Payment.BuyerWallet, c.want)
			}
			last := c.transfers[len(c.transfers)-1].Transfer
			if s.Payment.TransactionHash != last.TransactionHash {
				t.Fatalf("the payment's transaction %s, want the completing %s", s.Payment.TransactionHash, last.TransactionHash)
			}
		})
	}
}

// payer's short cut for one sender names the wallet weighing the shares would name: the
// completing transfer's sender, as it wrote it, whatever the case of the others and whatever
// transfers that do not count (unconfirmed, dropped) others sent.
func TestPayerOfOneSenderIsWhomTheSharesName(t *testing.T) {
	credit := func(sender, units string, confirmed, dropped bool) Credit {
		return Credit{TransactionHash: "0x" + sender + units, Sender: sender, Token: "USDC", AmountUnits: units, Decimals: 6,
			Confirmed: confirmed, Dropped: dropped}
	}
	cases := []struct {
		name       string
		credits    []Credit
		completing string
		sole       bool
		want       string
	}{
		{"one transfer", []Credit{credit("0xAb", "12310000", true, false)}, "0xAb", true, "0xAb"},
		{"two of one wallet in two cases", []Credit{credit("0xab", "10000000", true, false), credit("0xAB", "2310000", true, false)}, "0xAB", true, "0xAB"},
		{"another's unconfirmed", []Credit{credit("0xab", "12310000", true, false), credit("0xcd", "99000000", false, false)}, "0xab", true, "0xab"},
		{"another's dropped", []Credit{credit("0xab", "12310000", true, false), credit("0xcd", "99000000", true, true)}, "0xab", true, "0xab"},
		{"another's unpriced token", []Credit{credit("0xab", "12310000", true, false), {TransactionHash: "0x1", Sender: "0xcd", Token: "NOPE",
			AmountUnits: "5", Decimals: 6, Confirmed: true}}, "0xab", false, "0xab"},
		{"a stranger completes", []Credit{credit("0xab", "12000000", true, false), credit("0xcd", "310000", true, false)}, "0xcd", false, "0xab"},
		{"the larger share completes", []Credit{credit("0xab", "310000", true, false), credit("0xcd", "12000000", true, false)}, "0xcd", false, "0xcd"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := depositReceipt()
			s.Credits = c.credits
			completing := Credit{Sender: c.completing}
			if got := s.soleSender(c.completing); got != c.sole {
				t.Errorf("soleSender = %v, want %v", got, c.sole)
			}
			if got, shares := s.payer(completing), s.payerByShares(completing); got != c.want || shares != c.want {
				t.Errorf("payer = %q, by shares %q, want %q", got, shares, c.want)
			}
		})
	}
}
