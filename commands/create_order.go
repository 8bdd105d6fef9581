package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/tax"
)

// CreateOrder is an order priced from the merchant's inventory: it becomes an itemized receipt
// with tax and the processing fee.
type CreateOrder struct {
	Merchant         string
	Lines            []OrderLine
	Currency         string       // USD, EUR, or "" for the items' currency
	JurisdictionCode string       // a tax catalog jurisdiction
	TaxRate          *json.Number // an explicit rate from 0 to 1; wins over the catalog's
	TaxComponents    []string     // the catalog components that apply ("" all)
	Details          receipt.Generated
	Issue            Issue
}

// OrderLine is one requested line: an inventory id or SKU and a quantity.
type OrderLine struct {
	ID  string
	SKU string
	Qty json.Number
}

// CatalogItem is an inventory item as an order prices it (receipt.CatalogItem, the value the
// read model behind the Catalog answers).
type CatalogItem = receipt.CatalogItem

// Catalog finds a merchant's items by ids and SKUs (missing ones are absent from the answer).
type Catalog interface {
	Find(ctx context.Context, merchant string, ids []uuid.UUID, skus []string) ([]CatalogItem, error)
}

// MerchantPricing is what pricing reads of the platform and the merchant's shop
// (receipt.MerchantPricing).
type MerchantPricing = receipt.MerchantPricing

// PricingSource reads a merchant's pricing.
type PricingSource interface {
	Pricing(ctx context.Context, merchant string) (MerchantPricing, error)
}

// CreateOrderHandler creates orders.
type CreateOrderHandler struct {
	splits            *Splits
	catalog           Catalog
	pricing           PricingSource
	issuer            *Issuer
	platformRecipient string
	now               func() time.Time
}

// NewCreateOrderHandler returns the handler; platformRecipient is PLATFORM_RECIPIENT ("" refuses
// every order). It panics on a nil dependency.
func NewCreateOrderHandler(splits *Splits, catalog Catalog, pricing PricingSource, issuer *Issuer, platformRecipient string, now func() time.Time) *CreateOrderHandler {
	if splits == nil || catalog == nil || pricing == nil || issuer == nil || now == nil {
		panic("commands.NewCreateOrderHandler: nil dependency")
	}
	return &CreateOrderHandler{splits: splits, catalog: catalog, pricing: pricing, issuer: issuer, platformRecipient: platformRecipient, now: now}
}

// Handle checks the order in the spec's order (shape, items_required, split_required,
// platform_recipient_not_configured, inventory_item_not_found), prices it and issues its
// receipt. A request refused by a check of the merchant's state that an earlier request under
// the same Idempotency-Key (and body) passed gets that request's receipt (Issuer.Replayed).
// Errors: Invalid, ErrItemsRequired, ErrSplitRequired, ErrPlatformRecipient,
// ErrInventoryNotFound, the Issuer's.
func (h *CreateOrderHandler) Handle(ctx context.Context, cmd CreateOrder) (Issued, error) {
	qtys, err := checkLines(cmd.Lines)
	if err != nil {
		return Issued{}, err
	}
	currency := strings.ToUpper(strings.TrimSpace(cmd.Currency))
	if currency != "" && currency != "USD" && currency != "EUR" {
		return Issued{}, Invalid("currency must be USD or EUR")
	}
	rate, jurisdiction, components, err := selectTax(cmd.TaxRate, cmd.JurisdictionCode, cmd.TaxComponents)
	if err != nil {
		return Issued{}, err
	}
	if len(cmd.Lines) == 0 {
		return Issued{}, ErrItemsRequired
	}
	g, err := h.price(ctx, &cmd, qtys, currency, rate, jurisdiction, components)
	if err != nil {
		// The checks above depend on the request alone; these read the merchant's split, items
		// and pricing, which may have changed since an earlier request under the same key stored
		// its receipt (the item sold out, deleted): that request's answer, not a refusal.
		if issued, ok := h.issuer.Replayed(ctx, cmd.Merchant, cmd.Issue); ok {
			return issued, nil
		}
		return Issued{}, err
	}
	return h.issuer.Issue(ctx, g, cmd.Issue)
}

// price checks what the order needs of the merchant's state (a split, the platform recipient,
// its items and their stock) and prices it into the receipt's generation. Errors: Invalid,
// ErrSplitRequired, ErrPlatformRecipient, ErrInventoryNotFound, the stores'.
func (h *CreateOrderHandler) price(ctx context.Context, cmd *CreateOrder, qtys []int64, currency string, rate money.Rate, jurisdiction string, components []string) (receipt.Generated, error) {
	if _, err := h.splits.Require(ctx, cmd.Merchant); err != nil {
		return receipt.Generated{}, err
	}
	if h.platformRecipient == "" {
		return receipt.Generated{}, ErrPlatformRecipient
	}
	items, err := h.resolve(ctx, cmd.Merchant, cmd.Lines, qtys, &currency)
	if err != nil {
		return receipt.Generated{}, err
	}
	mp, err := h.pricing.Pricing(ctx, cmd.Merchant)
	if err != nil {
		return receipt.Generated{}, err
	}
	g := cmd.Details
	g.Merchant, g.Source, g.Currency = cmd.Merchant, "order", currency
	g.JurisdictionCode, g.TaxRate, g.TaxComponents = jurisdiction, rate.String(), components
	g.BrandName, g.BrandKey, g.DefaultToken = mp.BrandName, mp.BrandKey, mp.DefaultToken
	// The fee rates applied are the rates as the receipt records them (Rate.String: 12 decimals),
	// as the tax rate's are (selectTax): a processingFeePct of 0.49999999996 (%) was applied as
	// 0.0049999999996, which charged no fee on $1.00 where the recorded feeRate 0.005 gives $0.01.
	platform, addOn := mp.Platform.Recorded(), mp.AddOn.Recorded()
	pr, err := receipt.Price(receipt.PriceInput{Items: items, TaxRate: rate, PlatformRate: platform, MerchantAddOn: addOn})
	if err != nil { // receipt.ErrAmountTooLarge: its text names the amount and the bound
		return receipt.Generated{}, Invalid(err.Error())
	}
	g.LineItems, g.Subtotal, g.Tax, g.Fee, g.PlatformFee, g.MerchantFee, g.Total = pr.LineItems, pr.Subtotal, pr.Tax, pr.Fee, pr.PlatformFee, pr.MerchantFee, pr.Total
	g.FeeRate = pr.FeeRate.String()
	return g, nil
}

// checkLines returns each line's quantity, or the first line's fault.
func checkLines(lines []OrderLine) ([]int64, error) {
	qtys := make([]int64, len(lines))
	for i, l := range lines {
		n, err := money.WholeNumber(l.Qty.String())
		if err != nil || n < 1 || n > 1_000_000 {
			return nil, Invalidf("items[%d].qty must be a whole number >= 1", i)
		}
		if l.ID == "" && l.SKU == "" {
			return nil, Invalidf("items[%d] needs an id or a sku", i)
		}
		qtys[i] = n
	}
	return qtys, nil
}

// selectTax is the order's tax: an explicit rate (with an optional catalog jurisdiction for the
// record), else the catalog jurisdiction's rate for the components that apply, else none. The
// components are always the jurisdiction's own (an explicit rate's too: they are what the
// receipt says the rate stands for), so that an order never records names the catalog does not
// have, nor any number of them.
func selectTax(explicit *json.Number, code string, comps []string) (money.Rate, string, []string, error) {
	if code == "" && len(comps) > 0 {
		return money.Rate{}, "", nil, Invalid("taxComponents needs a jurisdictionCode")
	}
	if explicit == nil && code == "" {
		return money.Rate{}, "", nil, nil
	}
	var r money.Rate
	if explicit != nil {
		var err error
		if r, err = money.ParseRate(explicit.String()); err != nil || r.Sign() < 0 || r.Cmp(money.MustRate("1")) > 0 {
			return money.Rate{}, "", nil, Invalid("taxRate must be a number from 0 to 1")
		}
		// The rate the receipt records (Rate.String: 12 decimals) is the rate applied, so that its
		// tax is what its taxRate says: 0.07249999999999999 (a float's sum) recorded as 0.0725
		// but applied as given made $2.00 of tax $0.14 where the receipt's own rate gives $0.15.
		r = money.MustRate(r.String())
		if code == "" {
			return r, "", nil, nil
		}
	}
	j, err := tax.Lookup(code)
	if err != nil {
		return money.Rate{}, "", nil, Invalid("jurisdictionCode " + code + " is not in the tax catalog")
	}
	if explicit != nil && len(comps) == 0 {
		return r, j.Code, nil, nil // the rate replaces the catalog's, which names no component
	}
	if j, err = tax.Select(j, comps); err != nil {
		return money.Rate{}, "", nil, Invalid(err.Error())
	}
	var names []string
	for _, c := range j.Components {
		names = append(names, c.Name)
	}
	if explicit != nil {
		return r, j.Code, names, nil
	}
	return j.Total(), j.Code, names, nil
}

// resolve looks the order's lines up in the merchant's inventory and fixes the currency: the
// order's, else the first item's; every item must be priced in it.
func (h *CreateOrderHandler) resolve(ctx context.Context, merchant string, lines []OrderLine, qtys []int64, currency *string) ([]receipt.Item, error) {
	var ids []uuid.UUID
	var skus []string
	for _, l := range lines {
		if id, err := uuid.Parse(l.ID); l.ID != "" && err == nil {
			ids = append(ids, id)
		} else if l.ID == "" {
			skus = append(skus, l.SKU)
		}
	}
	found, err := h.catalog.Find(ctx, merchant, ids, skus)
	if err != nil {
		return nil, err
	}
	byID, bySKU := map[string]CatalogItem{}, map[string]CatalogItem{}
	for _, it := range found {
		byID[it.ID], bySKU[it.SKU] = it, it
	}
	out := make([]receipt.Item, len(lines))
	var asked map[string]int64 // each counted item's quantity over the order's lines (made when one is)
	thumbBytes := 0            // the pictures copied so far (MaxReceiptThumbBytes)
	for i, l := range lines {
		it, ok := bySKU[l.SKU], l.ID == ""
		ref := "sku " + l.SKU
		if l.ID != "" {
			it, ok = byID[canonicalID(l.ID)]
			ref = "id " + l.ID
		}
		if !ok || (l.ID == "" && it.SKU != l.SKU) {
			return nil, &Refusal{Kind: ErrInventoryNotFound.Kind, Code: ErrInventoryNotFound.Code, Message: ErrInventoryNotFound.Message + ": " + ref}
		}
		if *currency == "" {
			*currency = it.Currency
		}
		if it.Currency != *currency {
			return nil, Invalid(fmt.Sprintf("items[%d] (%s) is priced in %s, the order is in %s", i, it.SKU, it.Currency, *currency))
		}
		if it.StockQty >= 0 { // -1: not counted, the usual item, which costs the order nothing here
			if asked == nil {
				asked = map[string]int64{}
			}
			// The merchant's count, not a reservation: an order is no sale until it is paid.
			if asked[it.ID] += qtys[i]; asked[it.ID] > it.StockQty {
				return nil, Invalid(fmt.Sprintf("items[%d] (%s): %d in stock, the order asks for %d", i, it.SKU, it.StockQty, asked[it.ID]))
			}
		}
		// An item without a picture gets its placeholder when the receipt is shown, and so does a
		// line past the receipt's picture budget.
		thumb := it.Thumb
		if thumbBytes+len(thumb) > MaxReceiptThumbBytes {
			thumb = ""
		}
		thumbBytes += len(thumb)
		out[i] = receipt.Item{ItemID: it.ID, SKU: it.SKU, Label: it.Name, Thumb: thumb, Unit: money.Cents(it.PriceCents), Qty: qtys[i], Taxable: it.Taxable}
	}
	return out, nil
}

// canonicalID is an order line's item id as the catalog answers it (CatalogItem.ID): the UUID it
// was looked up by, in whatever form the line wrote it (upper case, braces, urn:uuid:, no
// hyphens, as DELETE /api/inventory reads it). Matched by the line's own text, an item found by
// such an id was refused as not found.
func canonicalID(raw string) string {
	if id, err := uuid.Parse(raw); err == nil {
		return id.String()
	}
	return strings.ToLower(raw)
}

// MaxReceiptThumbBytes bounds the item pictures one receipt copies (each line carries its item's
// data URI): 500 lines of one item with a 64 KiB picture made, from a 10 KB order, a 32 MB event,
// and a 32 MB payment page served to anyone with the link. Lines past the budget show the
// placeholder, as an item without a picture does.
const MaxReceiptThumbBytes = 1 << 20
