package inventory

import (
	"errors"
	"strings"
	"testing"
)

func str(s string) *string { return &s }

// The item rules, in the order the API reports them: each broken rule is ErrInvalid with the
// rule (naming the field) as its whole text.
func TestCheck(t *testing.T) {
	base := func(change func(*Draft)) Draft {
		d := Draft{SKU: str("latte"), Name: str(" Latte "), PriceUSD: str("4.50")}
		if change != nil {
			change(&d)
		}
		return d
	}
	cases := []struct {
		name    string
		draft   Draft
		wantErr string
		want    Item
	}{
		{"a USD item", base(nil), "", Item{SKU: "latte", Name: "Latte", PriceCents: 450, Currency: "USD", StockQty: -1}},
		{"a EUR item with stock, tax and thumb", base(func(d *Draft) {
			d.PriceUSD, d.Price, d.Currency, d.StockQty, d.Taxable, d.Thumb = nil, str("3"), str("eur"), str("7"), new(bool), str("data:image/png;base64,AAAA")
		}), "", Item{SKU: "latte", Name: "Latte", PriceCents: 300, Currency: "EUR", StockQty: 7, HasStock: true, HasTaxable: true,
			Thumb: "data:image/png;base64,AAAA", HasThumb: true}},
		{"no sku", base(func(d *Draft) { d.SKU = nil }), "sku is required: 1-64 characters of letters, digits and . _ : / -", Item{}},
		{"a sku with a space", base(func(d *Draft) { d.SKU = str("a b") }), "sku is required: 1-64 characters of letters, digits and . _ : / -", Item{}},
		{"a blank name", base(func(d *Draft) { d.Name = str("  ") }), "name is required (up to 200 characters)", Item{}},
		{"201 bytes of name", base(func(d *Draft) { d.Name = str(strings.Repeat("n", 201)) }), "name is required (up to 200 characters)", Item{}},
		{"200 characters of three bytes each", base(func(d *Draft) { d.Name = str(strings.Repeat("茶", 200)) }), "",
			Item{SKU: "latte", Name: strings.Repeat("茶", 200), PriceCents: 450, Currency: "USD", StockQty: -1}},
		{"201 characters", base(func(d *Draft) { d.Name = str(strings.Repeat("茶", 201)) }), "name is required (up to 200 characters)", Item{}},
		{"both prices", base(func(d *Draft) { d.Price = str("1") }), "give priceUsd, or price with currency, not both", Item{}},
		{"priceUsd in EUR", base(func(d *Draft) { d.Currency = str("EUR") }), "priceUsd is a USD price; use price with currency for EUR", Item{}},
		{"three decimals", base(func(d *Draft) { d.PriceUSD = str("1.001") }), "priceUsd must be a number >= 0 with at most 2 decimals", Item{}},
		{"price without currency", base(func(d *Draft) { d.PriceUSD, d.Price = nil, str("1") }), "currency is required with price (USD or EUR)", Item{}},
		{"price in GBP", base(func(d *Draft) { d.PriceUSD, d.Price, d.Currency = nil, str("1"), str("GBP") }), "currency must be USD or EUR", Item{}},
		{"no price", base(func(d *Draft) { d.PriceUSD = nil }), "priceUsd, or price with currency, is required", Item{}},
		{"stock below -1", base(func(d *Draft) { d.StockQty = str("-2") }), "stockQty must be an integer >= -1 (-1 = unlimited)", Item{}},
		{"fractional stock", base(func(d *Draft) { d.StockQty = str("1.5") }), "stockQty must be an integer >= -1 (-1 = unlimited)", Item{}},
		// A whole count written as a client's float writes it is that count, as an order's qty is.
		{"stock written 5.0", base(func(d *Draft) { d.StockQty = str("5.0") }), "", Item{SKU: "latte", Name: "Latte", PriceCents: 450, Currency: "USD", StockQty: 5, HasStock: true}},
		{"stock written 1e2", base(func(d *Draft) { d.StockQty = str("1e2") }), "", Item{SKU: "latte", Name: "Latte", PriceCents: 450, Currency: "USD", StockQty: 100, HasStock: true}},
		{"stock written -1.0", base(func(d *Draft) { d.StockQty = str("-1.0") }), "", Item{SKU: "latte", Name: "Latte", PriceCents: 450, Currency: "USD", StockQty: -1, HasStock: true}},
		{"stock written -2.0", base(func(d *Draft) { d.StockQty = str("-2.0") }), "stockQty must be an integer >= -1 (-1 = unlimited)", Item{}},
		{"stock past int64", base(func(d *Draft) { d.StockQty = str("1e19") }), "stockQty must be an integer >= -1 (-1 = unlimited)", Item{}},
		{"stock as a fraction", base(func(d *Draft) { d.StockQty = str("10/2") }), "stockQty must be an integer >= -1 (-1 = unlimited)", Item{}},
		{"stock in hex", base(func(d *Draft) { d.StockQty = str("0x10") }), "stockQty must be an integer >= -1 (-1 = unlimited)", Item{}},
		{"a thumb that is a link", base(func(d *Draft) { d.Thumb = str("https://x.example/a.png") }), "thumb must be a base64 data-URI image up to 64 KiB", Item{}},
		{"a thumb over 64 KiB", base(func(d *Draft) { d.Thumb = str("data:image/png;base64," + strings.Repeat("A", MaxThumbBytes)) }),
			"thumb must be a base64 data-URI image up to 64 KiB", Item{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Check(c.draft)
			if c.wantErr != "" {
				if !errors.Is(err, ErrInvalid) || err.Error() != c.wantErr {
					t.Fatalf("error %v, want ErrInvalid %q", err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Check = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}
