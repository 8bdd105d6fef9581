package commands_test

import (
	"context"
	"errors"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// priceTable is a Prices with fixed prices.
type priceTable map[string]string

func (p priceTable) USDPrices(context.Context) (map[string]string, error) { return p, nil }

// failingPrices is a price source that cannot be read.
type failingPrices struct{}

var errPricesDown = errors.New("prices: connection refused")

func (failingPrices) USDPrices(context.Context) (map[string]string, error) { return nil, errPricesDown }

// TestQuoteOfAnUnknownReceipt (stop 62): a receipt that does not exist is receipt.ErrNotFound
// whatever the price source's state: no price for the token, no prices at all, or unreadable.
// It was price_unavailable (503) when the token had no price: the price was checked first.
func TestQuoteOfAnUnknownReceipt(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	for name, prices := range map[string]commands.Prices{"no ETH price": priceTable{"EUR": "1.1"}, "none": priceTable{}, "unreadable": failingPrices{}} {
		for _, token := range []string{"ETH", "USDC"} {
			_, err := commands.NewQuoteTokenHandler(e.store, prices, e.now).Handle(e.ctx, commands.QuoteToken{ReceiptID: "rcpt_nobody", Token: token})
			if !errors.Is(err, receipt.ErrNotFound) {
				t.Fatalf("%s, %s: %v, want receipt.ErrNotFound", name, token, err)
			}
		}
	}
	// A known receipt still needs the price, and an unreadable source is its error.
	usd := e.receipt(payMerchant, "USD", 100)
	if _, err := commands.NewQuoteTokenHandler(e.store, failingPrices{}, e.now).Handle(e.ctx, commands.QuoteToken{ReceiptID: usd, Token: "ETH"}); !errors.Is(err, errPricesDown) {
		t.Fatalf("quote with an unreadable price source: %v", err)
	}
}

func TestQuoteToken(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	usd := e.receipt(payMerchant, "USD", 5001)
	eur := e.receipt(payMerchant, "EUR", 1000)
	quote := func(prices priceTable, id, token string) (commands.TokenQuoted, error) {
		return commands.NewQuoteTokenHandler(e.store, prices, e.now).Handle(e.ctx, commands.QuoteToken{ReceiptID: id, Token: token})
	}

	_, err := quote(priceTable{}, usd, "DOGE")
	wantRefusal(t, err, "invalid_input", "token must be one of ETH, USDC, USDT, cbBTC, cbXRP")
	_, err = quote(priceTable{"ETH": "2500"}, usd, "cbXRP")
	wantRefusal(t, err, "price_unavailable", "No USD price is set for cbXRP")
	if !errors.Is(err, commands.ErrPriceUnavailable) {
		t.Fatal("a missing price is not ErrPriceUnavailable")
	}
	_, err = quote(priceTable{}, eur, "USDC")
	wantRefusal(t, err, "price_unavailable", "No EUR/USD rate is set")
	if _, err := quote(priceTable{}, "rcpt_nobody", "USDC"); !errors.Is(err, receipt.ErrNotFound) {
		t.Fatalf("unknown receipt: %v", err)
	}

	q, err := quote(priceTable{"ETH": "2500.5"}, usd, "ETH")
	if err != nil || q.ReceiptID != usd || q.Quote.Amount != "0.02000000" || q.Quote.TokenUSDPrice != "2500.5" || q.Quote.AmountUSD != "50.01" || q.Quote.EURUSDRate != "" {
		t.Fatalf("ETH quote %+v %v", q, err)
	}
	q, err = quote(priceTable{"EUR": "1.1"}, eur, "USDC")
	if err != nil || q.Quote.Amount != "11.00000000" || q.Quote.TokenUSDPrice != "1" || q.Quote.EURUSDRate != "1.1" || q.Quote.AmountUSD != "11.00" {
		t.Fatalf("EUR quote in a stablecoin %+v %v", q, err)
	}
	// Quotes are recorded for auditors and never change the status.
	if h, st := e.history(usd), e.state(usd); h != "ReceiptGenerated,TokenQuoted" || st.Status != receipt.StatusGenerated {
		t.Fatalf("history %s, status %s", h, st.Status)
	}
	e.paid(usd)
	if _, err := quote(priceTable{}, usd, "USDC"); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("quote of a paid receipt: %v", err)
	}
}
