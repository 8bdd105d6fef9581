package receipt

import "testing"

// Issue 20, item 5: the state keeps the latest quoted token (the payload's token before a payment
// names one), whatever else happens to the receipt in between.
func TestEvolveKeepsTheLatestQuotedToken(t *testing.T) {
	t.Parallel()
	gen := Generated{ReceiptID: "r", Merchant: "m", Total: 1000, LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 1000}}, CreatedAt: 1}
	for _, c := range []struct {
		name   string
		events []Event
		want   string
	}{
		{"no quote", nil, ""},
		{"one quote", []Event{TokenQuoted{Token: "ETH", At: 2}}, "ETH"},
		{"the latest quote", []Event{TokenQuoted{Token: "ETH", At: 2}, TokenQuoted{Token: "cbBTC", At: 3}}, "cbBTC"},
		{"a quote without a token leaves none", []Event{TokenQuoted{At: 2}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Evolve(State{}, gen)
			for _, e := range c.events {
				s = Evolve(s, e)
			}
			if s.QuotedToken != c.want {
				t.Fatalf("QuotedToken %q, want %q", s.QuotedToken, c.want)
			}
			if s.Status != StatusGenerated {
				t.Fatalf("status %s after quotes, want %s", s.Status, StatusGenerated)
			}
		})
	}
}
