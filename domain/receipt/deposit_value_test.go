package receipt

import (
	"testing"
)

// eurDepositReceipt is a 100.50 EUR receipt with a deposit address and a payment window.
func eurDepositReceipt() State {
	return Evolve(State{}, Generated{ReceiptID: "r", Merchant: "m", Currency: "EUR", Total: 10050,
		LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 10050}}, DepositAddress: "0xD", DepositSplit: "0xS",
		CreatedAt: 1, ExpiresAt: winEnd})
}

// TestTransferBeforeAQuote is issue 36 item 1 as a table: 0.0042 ETH sent to a 12.31 USD
// receipt's deposit before anyone quoted ETH, at ETH = 3,000 USD (0.00410333 ETH due).
func TestTransferBeforeAQuote(t *testing.T) {
	t.Parallel()
	eth := func(units string, confirmed bool) DepositObservation {
		return DepositObservation{Transfer: transfer("0x1", "ETH", units, 18, "0xb1"), Confirmed: confirmed, At: 3}
	}
	priced := func(o DepositObservation) DepositObservation { o.Prices = map[string]string{"ETH": "3000"}; return o }
	for _, c := range []struct {
		name     string
		obs      []DepositObservation
		status   Status
		quoted   string // the ETH quote recorded ("" none)
		required string
	}{
		{"seen with a price: valued at first sight", []DepositObservation{priced(eth("4200000000000000", false))}, StatusPending, "0.00410333", "0.00410333"},
		{"confirmed with a price: paid", []DepositObservation{priced(eth("4200000000000000", true))}, StatusPaid, "0.00410333", "0.00410333"},
		{"seen, then confirmed at another price: the first sight's quote", []DepositObservation{priced(eth("4200000000000000", false)),
			{Transfer: transfer("0x1", "ETH", "4200000000000000", 18, "0xb1"), Confirmed: true, Prices: map[string]string{"ETH": "1000"}, At: 4}},
			StatusPaid, "0.00410333", "0.00410333"},
		{"too little at that price: pending", []DepositObservation{priced(eth("3000000000000000", true))}, StatusPending, "0.00410333", "0.00410333"},
		{"no price source: pending, not valued", []DepositObservation{eth("4200000000000000", true)}, StatusPending, "", "12.31"},
		{"no price, then a price: the next observation values it", []DepositObservation{eth("4200000000000000", true),
			priced(eth("4200000000000000", true))}, StatusPaid, "0.00410333", "0.00410333"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := depositReceipt()
			for _, o := range c.obs {
				s, _ = observe(t, s, o)
			}
			if s.Status != c.status || s.Quotes["ETH"] != c.quoted || s.AmountRequired() != c.required {
				t.Fatalf("status %s, ETH quote %q, required %q; want %s, %q, %q", s.Status, s.Quotes["ETH"], s.AmountRequired(), c.status, c.quoted, c.required)
			}
		})
	}
}

// TestQuoteAfterAnUnpricedTransferPays: the portal's quote in the token of funds already
// confirmed (no price source when they arrived) records the payment with the quote, instead of
// asking for 0 more and leaving the receipt pending (issue 36 item 1).
func TestQuoteAfterAnUnpricedTransferPays(t *testing.T) {
	t.Parallel()
	s, _ := observe(t, depositReceipt(), DepositObservation{Transfer: transfer("0x1", "ETH", "4200000000000000", 18, "0xb1"), Confirmed: true, At: 3})
	if s.Status != StatusPending {
		t.Fatalf("status %s before the quote", s.Status)
	}
	evs, q, err := QuoteInWindow(s, "ETH", "3000", "", 4)
	s = apply(t, s, evs, err)
	if q.Amount != "0.00410333" || s.Status != StatusPaid || s.Payment == nil || s.Payment.TransactionHash != "0x1" {
		t.Fatalf("quote %s, status %s, payment %+v: the quote must pay the covered receipt", q.Amount, s.Status, s.Payment)
	}
	// Too little for the quote: the quote alone, the receipt stays pending.
	s, _ = observe(t, depositReceipt(), DepositObservation{Transfer: transfer("0x1", "ETH", "1000000000000000", 18, "0xb1"), Confirmed: true, At: 3})
	evs, _, err = QuoteInWindow(s, "ETH", "3000", "", 4)
	if s = apply(t, s, evs, err); len(evs) != 1 || s.Status != StatusPending {
		t.Fatalf("%d events, status %s for funds short of the quote", len(evs), s.Status)
	}
}

// TestRateOfTheFirstQuoteHolds is issue 36 item 2: a 100.50 EUR receipt quoted in USDC at
// EUR/USD 1.1 (110.55 USDC); the rate then set to 0.5 and USDT quoted. The USDT quote uses 1.1,
// USDC still asks 110.55, and 51 USDC does not pay the receipt.
func TestRateOfTheFirstQuoteHolds(t *testing.T) {
	t.Parallel()
	s := eurDepositReceipt()
	evs, usdc, err := QuoteInWindow(s, "USDC", "1", "1.1", 2)
	s = apply(t, s, evs, err)
	evs, usdt, err := QuoteInWindow(s, "USDT", "1", "0.5", 3)
	s = apply(t, s, evs, err)
	evs, eth, err := QuoteInWindow(s, "ETH", "2000", "0.5", 4)
	s = apply(t, s, evs, err)
	if usdc.Amount != "110.55000000" || usdt.Amount != "110.55000000" || usdt.EURUSDRate != "1.1" || eth.AmountUSD != "110.55" {
		t.Fatalf("quotes USDC %s, USDT %s at %s, ETH %s USD: the first quote's rate must hold", usdc.Amount, usdt.Amount, usdt.EURUSDRate, eth.AmountUSD)
	}
	for _, token := range []string{"USDC", "USDT"} {
		req, err := RequiredAmount(s, token, "")
		if err != nil || req.Amount.FloatString(2) != "110.55" {
			t.Fatalf("%s due %v (%v), want 110.55", token, req.Amount, err)
		}
	}
	s, _ = observe(t, s, DepositObservation{Transfer: transfer("0x1", "USDC", "51000000", 6, "0xb1"), Confirmed: true, Prices: map[string]string{"EUR": "0.5"}, At: 5})
	if s.Status != StatusPending {
		t.Fatalf("51 USDC made a 110.55 USDC receipt %s", s.Status)
	}
	// A transfer valued before any quote records the rate of now, and it holds the same way.
	s, _ = observe(t, eurDepositReceipt(), DepositObservation{Transfer: transfer("0x1", "USDC", "51000000", 6, "0xb1"), Confirmed: true,
		Prices: map[string]string{"EUR": "1.1"}, At: 2})
	evs, q, err := QuoteInWindow(s, "USDT", "1", "0.5", 3)
	if s = apply(t, s, evs, err); q.Amount != "110.55000000" || s.Status != StatusPending {
		t.Fatalf("after a valued transfer, USDT at a lower rate: %s, status %s", q.Amount, s.Status)
	}
}
