package receipt

import (
	"errors"
	"fmt"

	"github.com/payledger/payledger/domain/money"
)

// MaxAmount is the largest amount a receipt's line, subtotal, tax, fee or total may reach:
// 10^13 USD in cents, the bound money.ParseCents puts on an amount a caller gives. It keeps every
// sum of priced amounts far inside int64 (a unit price up to MaxAmount times a quantity up to 10^6
// is not), so a receipt never wraps to a negative total.
const MaxAmount money.Cents = 1_000_000_000_000_000

// ErrAmountTooLarge is an order whose line, subtotal, tax, fee or total would pass MaxAmount.
var ErrAmountTooLarge = errors.New("amount too large")

// PlatformBaseRate is the platform's processing fee (0.5%) unless the site configuration
// replaces it.
var PlatformBaseRate = money.MustRate("0.005")

// Item is one service line of an order, priced from the inventory.
type Item struct {
	ItemID, SKU, Label, Thumb string
	Unit                      money.Cents
	Qty                       int64
	Taxable                   bool
}

// CatalogItem is an inventory item as an order prices it (what the catalog port of order
// creation answers); ID is the item's UUID in its canonical lower-case text.
type CatalogItem struct {
	ID         string
	SKU        string
	Name       string
	Thumb      string
	Currency   string
	PriceCents int64
	Taxable    bool
	StockQty   int64 // the merchant's count in stock; -1: not counted (unlimited)
}

// MerchantPricing is what pricing reads of the platform and the merchant's shop.
type MerchantPricing struct {
	Platform  money.Rate // the platform base fee rate (the site's, else 0.5%)
	AddOn     money.Rate // the merchant's add-on
	BrandName string
	BrandKey  string
	// DefaultToken is the site's default payment token, recorded on the receipt: the payload's
	// token until a payment or a quote names one.
	DefaultToken string
}

// PriceInput is everything pricing needs; it is resolved by the caller (catalog lookups, shop
// and site settings) so that pricing itself is pure.
type PriceInput struct {
	Items         []Item
	TaxRate       money.Rate // the rate applied to taxable items
	PlatformRate  money.Rate // base fee rate (0.005 unless the site replaces it)
	MerchantAddOn money.Rate // the merchant's add-on rate (percent / 100)
}

// Priced is a priced order.
type Priced struct {
	LineItems   []LineItem
	Subtotal    money.Cents
	Taxable     money.Cents
	Tax         money.Cents
	Fee         money.Cents
	PlatformFee money.Cents
	MerchantFee money.Cents
	Total       money.Cents
	FeeRate     money.Rate
}

// Price computes the receipt's lines: the service lines, then Tax, then Processing Fee.
// Tax applies to taxable lines only, rounded half-up to the cent once; the fee (platform base plus
// merchant add-on) applies to subtotal + tax, rounded once. The platform's part of the fee is
// its own rate rounded the same way and never more than the fee; the merchant's part is the rest.
// Every amount is checked against MaxAmount before it is computed, so none overflows. Errors:
// ErrAmountTooLarge (its text names the amount and the bound).
func Price(in PriceInput) (Priced, error) {
	p := Priced{LineItems: make([]LineItem, 0, len(in.Items)+2)} // the items, tax and fee
	for i, it := range in.Items {
		if it.Unit < 0 || it.Qty < 0 || (it.Qty > 0 && it.Unit > MaxAmount/money.Cents(it.Qty)) {
			return Priced{}, tooLarge(fmt.Sprintf("items[%d] (%s x %d)", i, it.Unit, it.Qty))
		}
		line := it.Unit * money.Cents(it.Qty)
		if line > MaxAmount-p.Subtotal {
			return Priced{}, tooLarge("the subtotal")
		}
		p.Subtotal += line
		if it.Taxable {
			p.Taxable += line
		}
		p.LineItems = append(p.LineItems, LineItem{Kind: KindItem, Label: it.Label, Amount: line, Unit: it.Unit, Qty: it.Qty,
			Thumb: it.Thumb, ItemID: it.ItemID, SKU: it.SKU})
	}
	if p.Tax = in.TaxRate.Apply(p.Taxable); p.Tax < 0 || p.Tax > MaxAmount-p.Subtotal {
		return Priced{}, tooLarge("the subtotal plus tax")
	}
	p.FeeRate = in.PlatformRate.Add(in.MerchantAddOn)
	base := p.Subtotal + p.Tax
	if p.Fee = p.FeeRate.Apply(base); p.Fee < 0 || p.Fee > MaxAmount-base {
		return Priced{}, tooLarge("the total with the processing fee")
	}
	p.PlatformFee = min(in.PlatformRate.Apply(base), p.Fee)
	p.MerchantFee = p.Fee - p.PlatformFee
	p.LineItems = append(p.LineItems,
		LineItem{Kind: KindTax, Label: "Tax", Amount: p.Tax},
		LineItem{Kind: KindFee, Label: "Processing Fee", Amount: p.Fee})
	p.Total = base + p.Fee
	return p, nil
}

func tooLarge(what string) error {
	return fmt.Errorf("%w: %s would be more than %s, the most a receipt may hold", ErrAmountTooLarge, what, MaxAmount)
}
