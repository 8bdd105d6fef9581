// Package inventory holds the rules of a merchant's catalog item (POST /api/inventory; out of
// the HTTP handler since issue 39): which SKUs, names, prices, stock counts and thumbnails an
// item may have. Pure: no I/O.
package inventory

import (
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/payledger/payledger/domain/money"
)

// ErrInvalid is a broken item rule; the error's text is the rule alone, naming the field (the
// API's invalid_input message).
var ErrInvalid = errors.New("invalid inventory item")

type rule string

func (e rule) Error() string        { return string(e) }
func (e rule) Is(target error) bool { return target == ErrInvalid }

var (
	skuRE   = regexp.MustCompile(`^[A-Za-z0-9._:/-]{1,64}$`)
	thumbRE = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/]+=*$`)
)

// MaxThumbBytes bounds a thumbnail's data URI.
const MaxThumbBytes = 64 << 10

// Draft is an item write as the merchant sent it: nil is a field not given; the numbers are
// their JSON text.
type Draft struct {
	SKU, Name                 *string
	PriceUSD, Price, StockQty *string
	Currency, Thumb           *string
	Taxable                   *bool
}

// Item is a checked write. StockQty is -1 (unlimited) unless given; the Has fields say which of
// the optional fields were given, so that an update keeps the others.
type Item struct {
	SKU, Name, Currency, Thumb     string
	PriceCents, StockQty           int64
	Taxable                        bool
	HasStock, HasTaxable, HasThumb bool
}

// Check checks a write against the rules, in the order the API reports them.
func Check(d Draft) (Item, error) {
	it := Item{StockQty: -1}
	if d.SKU == nil || !skuRE.MatchString(*d.SKU) {
		return it, rule("sku is required: 1-64 characters of letters, digits and . _ : / -")
	}
	if d.Name == nil || strings.TrimSpace(*d.Name) == "" || utf8.RuneCountInString(*d.Name) > 200 { // characters, as the message says
		return it, rule("name is required (up to 200 characters)")
	}
	it.SKU, it.Name = *d.SKU, strings.TrimSpace(*d.Name)
	var err error
	if it.PriceCents, it.Currency, err = price(d); err != nil {
		return it, err
	}
	if d.StockQty != nil {
		n, err := money.WholeNumber(*d.StockQty)
		if err != nil || n < -1 {
			return it, rule("stockQty must be an integer >= -1 (-1 = unlimited)")
		}
		it.StockQty, it.HasStock = n, true
	}
	if d.Taxable != nil {
		it.Taxable, it.HasTaxable = *d.Taxable, true
	}
	it.HasThumb = d.Thumb != nil
	if d.Thumb != nil && *d.Thumb != "" {
		if len(*d.Thumb) > MaxThumbBytes || !thumbRE.MatchString(*d.Thumb) {
			return it, rule("thumb must be a base64 data-URI image up to 64 KiB")
		}
		it.Thumb = *d.Thumb
	}
	return it, nil
}

// price is the item's price and currency: priceUsd, or price with currency (USD or EUR).
func price(d Draft) (int64, string, error) {
	switch {
	case d.PriceUSD != nil && d.Price != nil:
		return 0, "", rule("give priceUsd, or price with currency, not both")
	case d.PriceUSD != nil:
		if d.Currency != nil && !strings.EqualFold(*d.Currency, "USD") {
			return 0, "", rule("priceUsd is a USD price; use price with currency for " + *d.Currency)
		}
		c, err := money.ParseCents(*d.PriceUSD)
		if err != nil {
			return 0, "", rule("priceUsd must be a number >= 0 with at most 2 decimals")
		}
		return int64(c), "USD", nil
	case d.Price != nil:
		if d.Currency == nil {
			return 0, "", rule("currency is required with price (USD or EUR)")
		}
		cur := strings.ToUpper(*d.Currency)
		if cur != "USD" && cur != "EUR" {
			return 0, "", rule("currency must be USD or EUR")
		}
		c, err := money.ParseCents(*d.Price)
		if err != nil {
			return 0, "", rule("price must be a number >= 0 with at most 2 decimals")
		}
		return int64(c), cur, nil
	default:
		return 0, "", rule("priceUsd, or price with currency, is required")
	}
}
