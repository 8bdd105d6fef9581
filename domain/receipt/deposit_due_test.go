package receipt

import (
	"errors"
	"fmt"
	"math/big"
	"testing"
)

// credited is s with a transfer of units to the deposit address, confirmed or only seen.
func credited(s State, tx, token, units string, dec uint8, confirmed bool) State {
	s = Evolve(s, transfer(tx, token, units, dec, "0xb1"))
	if confirmed {
		li := 0
		if token == "ETH" {
			li = ETHLogIndex
		}
		s = Evolve(s, DepositTransferConfirmed{TransactionHash: tx, LogIndex: li, BlockNumber: 5, BlockHash: "0xb1"})
	}
	return s
}

// What a payment must still bring (DueUnits) as a table: the 12.31 USD receipt, an ETH quote of
// 0.005 (threshold 0.00495 with the 1% tolerance), and an EUR receipt whose rate leaves a
// fraction of a base unit. Each due amount, paid exactly, covers the receipt; for a token
// without tolerance one base unit less does not (the rounding is up, not half up).
func TestAmountDue(t *testing.T) {
	t.Parallel()
	quoted := func(s State) State { return Evolve(s, TokenQuoted{Token: "ETH", Amount: "0.005", At: 2}) }
	eur := Evolve(State{}, Generated{ReceiptID: "e", Merchant: "m", Currency: "EUR", Total: 1000,
		LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 1000}}, DepositAddress: "0xD", DepositSplit: "0xS", CreatedAt: 1})
	eur = Evolve(eur, TokenQuoted{Token: "USDC", Amount: "10.8374563", EURUSDRate: "1.08374563", At: 2}) // 10.8374563 USD
	for _, c := range []struct {
		name  string
		state State
		token string
		dec   uint8
		want  string
		err   error
	}{
		{"nothing received: the whole amount", depositReceipt(), "USDC", 6, "12310000", nil},
		{"part received in the same token", credited(depositReceipt(), "0x1", "USDC", "10000000", 6, true), "USDC", 6, "2310000", nil},
		{"two parts add up", credited(credited(depositReceipt(), "0x1", "USDC", "10000000", 6, true), "0x2", "USDC", "300000", 6, true),
			"USDC", 6, "2010000", nil},
		{"USDT part of a USDC request", credited(depositReceipt(), "0x1", "USDT", "5000000", 6, true), "USDC", 6, "7310000", nil},
		{"USDT part, the rest in USDT", credited(depositReceipt(), "0x1", "USDT", "5000000", 6, true), "USDT", 6, "7310000", nil},
		{"an unconfirmed transfer reduces nothing", credited(depositReceipt(), "0x1", "USDC", "10000000", 6, false), "USDC", 6, "12310000", nil},
		{"quoted token, nothing received: the quote", quoted(depositReceipt()), "ETH", 18, "5000000000000000", nil},
		// 0.00297 ETH is 0.6 of the 0.00495 threshold: 0.4 of the 0.005 quote is left.
		{"quoted token with tolerance", credited(quoted(depositReceipt()), "0xe", "ETH", "2970000000000000", 18, true), "ETH", 18, "2000000000000000", nil},
		{"ETH part of a USDC request", credited(quoted(depositReceipt()), "0xe", "ETH", "2970000000000000", 18, true), "USDC", 6, "4924000", nil},
		{"USDC part, the rest in ETH", credited(quoted(depositReceipt()), "0x1", "USDC", "6155000", 6, true), "ETH", 18, "2500000000000000", nil},
		{"EUR rate: rounded up, not half up", eur, "USDC", 6, "10837457", nil},
		{"overpaid: nothing", credited(depositReceipt(), "0x1", "USDC", "20000000", 6, true), "USDC", 6, "0", nil},
		{"paid exactly: nothing", credited(depositReceipt(), "0x1", "USDT", "12310000", 6, true), "USDC", 6, "0", nil},
		{"ETH without a quote", depositReceipt(), "ETH", 18, "", ErrNoQuote},
	} {
		t.Run(c.name, func(t *testing.T) {
			due, err := amountDue(c.state, c.token, c.dec)
			if !errors.Is(err, c.err) || err == nil && due.String() != c.want {
				t.Fatalf("due %v (%v), want %s (%v)", due, err, c.want, c.err)
			}
			if err != nil || due.Sign() == 0 {
				return
			}
			if s := credited(c.state, "0xrest", c.token, due.String(), c.dec, true); !s.Covered() {
				t.Errorf("paying the due %s %s does not cover the receipt", due, c.token)
			}
			short := new(big.Int).Sub(due, big.NewInt(1))
			if s := credited(c.state, "0xrest", c.token, short.String(), c.dec, true); IsStable(c.token) && s.Covered() {
				t.Errorf("one base unit less (%s) also covers: the due is not the least", short)
			}
		})
	}
}

// The due amount pays in every token however the parts are split: random partial USDC payments of
// an ETH-quoted receipt, each followed by the due in ETH, always cover it.
func TestAmountDueCoversAfterAnyPart(t *testing.T) {
	t.Parallel()
	s := Evolve(depositReceipt(), TokenQuoted{Token: "ETH", Amount: "0.00411333", At: 2})
	for i, part := range []string{"1", "999999", "3333333", "6155000", "12309999"} {
		st := credited(s, fmt.Sprintf("0x%d", i), "USDC", part, 6, true)
		due, err := amountDue(st, "ETH", 18)
		if err != nil {
			t.Fatal(err)
		}
		if !credited(st, "0xrest", "ETH", due.String(), 18, true).Covered() {
			t.Errorf("after %s USDC units, the due %s wei does not cover", part, due)
		}
	}
}

// amountDue is DueUnits with the state's own requirement in token (its recorded quotes).
func amountDue(s State, token string, decimals uint8) (*big.Int, error) {
	r, err := s.requiredIn(token)
	if err != nil {
		return nil, err
	}
	return s.DueUnits(r, decimals), nil
}
