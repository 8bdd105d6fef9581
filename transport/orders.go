package transport

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/domain/tax"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/readmodels"
)

// orderItem is one requested line: an inventory id or SKU and a quantity.
type orderItem struct {
	ID  string      `json:"id"`
	SKU string      `json:"sku"`
	Qty json.Number `json:"qty"`
}

// optionalFields are the optional order and receipt fields; snake_case aliases are accepted.
type optionalFields struct {
	RedirectURL        string          `json:"redirect_url"`
	RedirectURLAlias   string          `json:"redirectUrl"`
	SuccessURL         string          `json:"successUrl"`
	SuccessURLAlias    string          `json:"success_url"`
	PostPaymentAction  string          `json:"postPaymentAction"`
	PostPaymentAlias   string          `json:"post_payment_action"`
	BuyerEmail         string          `json:"buyerEmail"`
	BuyerEmailAlias    string          `json:"buyer_email"`
	BuyerFirstName     string          `json:"buyerFirstName"`
	BuyerFirstAlias    string          `json:"buyer_first_name"`
	BuyerLastName      string          `json:"buyerLastName"`
	BuyerLastAlias     string          `json:"buyer_last_name"`
	BillingEmail       string          `json:"billingEmail"`
	BillingEmailAlias  string          `json:"billing_email"`
	Phone              string          `json:"phone"`
	AddressLine1       string          `json:"addressLine1"`
	AddressLine1Alias  string          `json:"address_line1"`
	AddressLine2       string          `json:"addressLine2"`
	AddressLine2Alias  string          `json:"address_line2"`
	City               string          `json:"city"`
	State              string          `json:"state"`
	PostalCode         string          `json:"postalCode"`
	PostalCodeAlias    string          `json:"postal_code"`
	Country            string          `json:"country"`
	TransactionID      string          `json:"transactionId"`
	TransactionIDAlias string          `json:"transaction_id"`
	Metadata           json.RawMessage `json:"metadata"`
	WebhookURL         string          `json:"webhook_url"`
	WebhookURLAlias    string          `json:"webhookUrl"`
}

type orderRequest struct {
	Items            *[]orderItem `json:"items"`
	Currency         string       `json:"currency"`
	JurisdictionCode string       `json:"jurisdictionCode"`
	TaxRate          *json.Number `json:"taxRate"`
	TaxComponents    []string     `json:"taxComponents"`
	optionalFields
}

func first(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

var countryRE = regexp.MustCompile(`^[A-Z]{2}$`)

// parseOptional validates the optional fields and fills them into g.
func (s *Server) parseOptional(o optionalFields, g *receipt.Generated) error {
	g.RedirectURL = first(o.RedirectURL, o.RedirectURLAlias)
	g.SuccessURL = first(o.SuccessURL, o.SuccessURLAlias)
	g.PostPaymentAction = first(o.PostPaymentAction, o.PostPaymentAlias)
	for name, u := range map[string]string{"redirect_url": g.RedirectURL, "successUrl": g.SuccessURL} {
		if u != "" && !httpURL(u) {
			return InvalidInput(name + " must be an http(s) URL")
		}
	}
	if len(g.PostPaymentAction) > 2000 {
		return InvalidInput("postPaymentAction must be at most 2000 characters")
	}
	b := receipt.Buyer{
		Email: first(o.BuyerEmail, o.BuyerEmailAlias), FirstName: first(o.BuyerFirstName, o.BuyerFirstAlias),
		LastName: first(o.BuyerLastName, o.BuyerLastAlias), BillingEmail: first(o.BillingEmail, o.BillingEmailAlias),
		Phone: first(o.Phone), AddressLine1: first(o.AddressLine1, o.AddressLine1Alias), AddressLine2: first(o.AddressLine2, o.AddressLine2Alias),
		City: first(o.City), State: first(o.State), PostalCode: first(o.PostalCode, o.PostalCodeAlias), Country: strings.ToUpper(first(o.Country)),
	}
	for name, e := range map[string]string{"buyerEmail": b.Email, "billingEmail": b.BillingEmail} {
		if e != "" {
			if a, err := mail.ParseAddress(e); err != nil || a.Address != e {
				return InvalidInput(name + " must be an email address")
			}
		}
	}
	if b.Country != "" && !countryRE.MatchString(b.Country) {
		return InvalidInput("country must be an ISO 3166-1 alpha-2 code such as US")
	}
	for name, v := range map[string]string{"buyerFirstName": b.FirstName, "buyerLastName": b.LastName, "phone": b.Phone, "addressLine1": b.AddressLine1,
		"addressLine2": b.AddressLine2, "city": b.City, "state": b.State, "postalCode": b.PostalCode} {
		if len(v) > 200 {
			return InvalidInput(name + " must be at most 200 characters")
		}
	}
	g.Buyer = b
	g.TransactionID = first(o.TransactionID, o.TransactionIDAlias)
	if len(g.TransactionID) > 200 {
		return InvalidInput("transactionId must be at most 200 characters")
	}
	if o.Metadata != nil && !isNull(o.Metadata) {
		var raw map[string]json.RawMessage
		if json.Unmarshal(o.Metadata, &raw) != nil {
			return InvalidInput("metadata must be an object of string values")
		}
		if len(raw) > 50 {
			return InvalidInput("metadata may hold at most 50 keys")
		}
		g.Metadata = make(map[string]string, len(raw))
		for k, v := range raw {
			var sv string
			if json.Unmarshal(v, &sv) != nil || len(sv) > 500 || k == "" || len(k) > 100 {
				return InvalidInput("metadata." + k + " must be a string of at most 500 characters")
			}
			g.Metadata[k] = sv
		}
	}
	g.WebhookURL = first(o.WebhookURL, o.WebhookURLAlias)
	if g.WebhookURL != "" {
		if err := s.checkWebhookURL(g.WebhookURL); err != nil {
			return err
		}
	}
	return nil
}

// checkWebhookURL enforces https and no local or private hosts in production; development
// allows http and localhost.
func (s *Server) checkWebhookURL(raw string) error {
	if !httpURL(raw) {
		return InvalidInput("webhook_url must be an http(s) URL")
	}
	if !s.cfg.Production {
		return nil
	}
	if !strings.HasPrefix(strings.ToLower(raw), "https://") {
		return InvalidInput("webhook_url must use https in production")
	}
	if privateHost(raw) {
		return InvalidInput("webhook_url must not point at localhost or a private address in production")
	}
	return nil
}

// newReceiptID is "rcpt_", the creation time in Unix milliseconds as 12 hex digits, and 64 random
// bits as 16: unguessable, and new receipts' keys (and streams) sort after older ones, so the
// indexes on them grow at their right edge instead of on random pages.
func newReceiptID(now time.Time) string {
	var b [14]byte
	ms := uint64(now.UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i], ms = byte(ms), ms>>8
	}
	_, _ = rand.Read(b[6:])
	return "rcpt_" + hex.EncodeToString(b[:])
}

// merchantPricing is what order creation reads of the platform and the merchant's shop.
type merchantPricing struct {
	platform, addOn     money.Rate
	brandName, brandKey string
}

// pricingFor returns the platform base rate (the site's replaces 0.5%), the merchant's add-on
// and brand.
func (s *Server) pricingFor(ctx context.Context, wallet string) (merchantPricing, error) {
	return s.caches.pricing.Load(wallet, func() (merchantPricing, bool, error) {
		mp, err := s.readPricing(ctx, wallet)
		return mp, true, err
	})
}

func (s *Server) readPricing(ctx context.Context, wallet string) (merchantPricing, error) {
	mp := merchantPricing{platform: receipt.PlatformBaseRate}
	shop, found, site, err := s.shops.PricingSettings(ctx, wallet)
	if unavailable(err) {
		if cached, ok := s.known.pricingOf(wallet); ok {
			return cached, nil
		}
	}
	if err != nil {
		return mp, err
	}
	defer func() { s.known.rememberPricing(wallet, mp) }()
	if site.ProcessingFeePct != nil {
		if r, err := money.ParseRate(site.ProcessingFeePct.String()); err == nil {
			mp.platform = money.Percent(r)
		}
	}
	if !found {
		return mp, nil
	}
	if shop.ProcessingFeePct != "" {
		if r, err := money.ParseRate(shop.ProcessingFeePct.String()); err == nil {
			mp.addOn = money.Percent(r)
		}
	}
	mp.brandName, mp.brandKey = shop.Name, shop.BrandKey
	return mp, nil
}

// split returns the merchant's split. A configured split never changes, so it is remembered.
func (s *Server) split(ctx context.Context, wallet string) (split.State, error) {
	if st, ok := s.splits.Load(wallet); ok {
		return st.(split.State), nil
	}
	st, err := commands.LoadSplit(ctx, s.events, wallet)
	if err == nil && st.Configured {
		s.splits.Store(wallet, st)
	}
	return st, err
}

var errItemsRequired = NewError(http.StatusBadRequest, "items_required", "At least one the service is required")

func (s *Server) createOrder(c echo.Context) error {
	raw, err := readBody(c)
	if err != nil {
		return err
	}
	var req orderRequest
	if err := decodeBytes(raw, &req); err != nil {
		return err
	}
	p, _ := PrincipalFrom(c)
	ctx := c.Request().Context()

	// 1. Shape (invalid_input).
	var items []orderItem
	if req.Items != nil {
		items = *req.Items
	}
	qtys := make([]int64, len(items))
	for i, it := range items {
		n, err := it.Qty.Int64()
		if err != nil || n < 1 || n > 1_000_000 {
			return InvalidInput(fmt.Sprintf("items[%d].qty must be a whole number >= 1", i))
		}
		if it.ID == "" && it.SKU == "" {
			return InvalidInput(fmt.Sprintf("items[%d] needs an id or a sku", i))
		}
		qtys[i] = n
	}
	currency := strings.ToUpper(strings.TrimSpace(req.Currency))
	if currency != "" && currency != "USD" && currency != "EUR" {
		return InvalidInput("currency must be USD or EUR")
	}
	var rate money.Rate
	var jurisdiction string
	var components []string
	switch {
	case req.TaxRate != nil:
		r, err := money.ParseRate(req.TaxRate.String())
		if err != nil || r.Sign() < 0 || r.Cmp(money.MustRate("1")) > 0 {
			return InvalidInput("taxRate must be a number from 0 to 1")
		}
		rate, jurisdiction, components = r, strings.ToUpper(req.JurisdictionCode), req.TaxComponents
		if jurisdiction != "" {
			if _, err := tax.Lookup(jurisdiction); err != nil {
				return InvalidInput("jurisdictionCode " + req.JurisdictionCode + " is not in the tax catalog")
			}
		}
	case req.JurisdictionCode != "":
		j, err := tax.Lookup(req.JurisdictionCode)
		if err != nil {
			return InvalidInput("jurisdictionCode " + req.JurisdictionCode + " is not in the tax catalog")
		}
		if j, err = tax.Select(j, req.TaxComponents); err != nil {
			return InvalidInput(err.Error())
		}
		rate, jurisdiction = j.Total(), j.Code
		for _, comp := range j.Components {
			components = append(components, comp.Name)
		}
	case len(req.TaxComponents) > 0:
		return InvalidInput("taxComponents needs a jurisdictionCode")
	}
	g := receipt.Generated{Merchant: p.Wallet, Source: "order", JurisdictionCode: jurisdiction, TaxRate: rate.String(), TaxComponents: components}
	if err := s.parseOptional(req.optionalFields, &g); err != nil {
		return err
	}
	// 2. items_required.
	if len(items) == 0 {
		return errItemsRequired
	}
	// 3. split_required, 4. platform_recipient_not_configured.
	sp, err := s.split(ctx, p.Wallet)
	if err != nil {
		return err
	}
	if !sp.Configured {
		return NewError(http.StatusForbidden, "split_required", "Split contract not configured for this merchant")
	}
	if s.cfg.PlatformRecipient == "" {
		return NewError(http.StatusBadRequest, "platform_recipient_not_configured", "Platform recipient address not set up")
	}
	// 5. inventory_item_not_found.
	priced, err := s.resolveItems(ctx, p.Wallet, items, qtys, &currency)
	if err != nil {
		return err
	}
	mp, err := s.pricingFor(ctx, p.Wallet)
	if err != nil {
		return err
	}
	pr := receipt.Price(receipt.PriceInput{Items: priced, TaxRate: rate, PlatformRate: mp.platform, MerchantAddOn: mp.addOn})
	g.Currency, g.BrandName, g.BrandKey = currency, mp.brandName, mp.brandKey
	g.LineItems, g.Subtotal, g.Tax, g.Fee, g.PlatformFee, g.MerchantFee, g.Total = pr.LineItems, pr.Subtotal, pr.Tax, pr.Fee, pr.PlatformFee, pr.MerchantFee, pr.Total
	g.FeeRate = pr.FeeRate.String()
	return s.storeReceipt(c, raw, g, http.StatusOK)
}

// resolveItems looks the order's items up in the merchant's inventory and fixes the currency.
func (s *Server) resolveItems(ctx context.Context, wallet string, items []orderItem, qtys []int64, currency *string) ([]receipt.Item, error) {
	var ids []uuid.UUID
	var skus []string
	for _, it := range items {
		if id, err := uuid.Parse(it.ID); it.ID != "" && err == nil {
			ids = append(ids, id)
		} else if it.ID == "" {
			skus = append(skus, it.SKU)
		}
	}
	found, err := s.findItems(ctx, wallet, ids, skus)
	switch {
	case unavailable(err):
		found = nil
		for _, it := range items {
			ref := "sku:" + it.SKU
			if it.ID != "" {
				ref = "id:" + strings.ToLower(it.ID)
			}
			cached, ok := s.known.item(wallet, ref)
			if !ok {
				return nil, err // not seen before: cannot price it without the datastore
			}
			found = append(found, cached)
		}
	case err != nil:
		return nil, err
	default:
		s.known.rememberItems(wallet, found)
	}
	byID, bySKU := map[string]readmodels.Item{}, map[string]readmodels.Item{}
	for _, it := range found {
		byID[it.ID.String()], bySKU[it.SKU] = it, it
	}
	out := make([]receipt.Item, len(items))
	for i, req := range items {
		it, ok := bySKU[req.SKU], req.ID == ""
		if req.ID != "" {
			it, ok = byID[strings.ToLower(req.ID)]
		}
		if !ok || (req.ID == "" && it.SKU != req.SKU) {
			ref := "sku " + req.SKU
			if req.ID != "" {
				ref = "id " + req.ID
			}
			return nil, NewError(http.StatusBadRequest, "inventory_item_not_found", "Product not found in inventory: "+ref)
		}
		if *currency == "" {
			*currency = it.Currency
		}
		if it.Currency != *currency {
			return nil, InvalidInput(fmt.Sprintf("items[%d] (%s) is priced in %s, the order is in %s", i, it.SKU, it.Currency, *currency))
		}
		// An item without a picture gets its placeholder when the receipt is shown (viewReceipt).
		out[i] = receipt.Item{ItemID: it.ID.String(), SKU: it.SKU, Label: it.Name, Thumb: it.Thumb, Unit: money.Cents(it.PriceCents), Qty: qtys[i], Taxable: it.Taxable}
	}
	return out, nil
}

// findItems looks items up by id and SKU, in the inventory cache when it holds them all.
func (s *Server) findItems(ctx context.Context, wallet string, ids []uuid.UUID, skus []string) ([]readmodels.Item, error) {
	if s.caches.inventory == nil {
		return s.inventory.Find(ctx, wallet, ids, skus)
	}
	prefix := inventoryPrefix(wallet)
	refs := make([]string, 0, len(ids)+len(skus))
	for _, id := range ids {
		refs = append(refs, prefix+"id:"+id.String())
	}
	for _, sku := range skus {
		refs = append(refs, prefix+"sku:"+sku)
	}
	var gen uint64
	hits := make([]readmodels.Item, 0, len(refs))
	for i, ref := range refs {
		it, g, ok := s.caches.inventory.Get(ref)
		if i == 0 {
			gen = g // the generation before any database read
		}
		if !ok {
			break
		}
		hits = append(hits, it)
	}
	if len(hits) == len(refs) && len(refs) > 0 {
		return hits, nil
	}
	found, err := s.inventory.Find(ctx, wallet, ids, skus)
	if err != nil {
		return nil, err
	}
	for _, it := range found {
		s.caches.inventory.Put(prefix+"id:"+it.ID.String(), it, gen)
		s.caches.inventory.Put(prefix+"sku:"+it.SKU, it, gen)
	}
	return found, nil
}

// storeReceipt captures the webhook key, honours Idempotency-Key, appends the generation and
// waits until the receipt is readable; it answers {ok, receipt}.
func (s *Server) storeReceipt(c echo.Context, rawBody []byte, g receipt.Generated, status int) error {
	ctx := c.Request().Context()
	p, _ := PrincipalFrom(c)
	if g.ReceiptID == "" {
		g.ReceiptID = newReceiptID(s.now())
	}
	replay := false
	if key := c.Request().Header.Get("Idempotency-Key"); key != "" {
		if len(key) > 255 {
			return InvalidInput("Idempotency-Key must be at most 255 characters")
		}
		sum := sha256.Sum256(append([]byte(c.Request().Method+" "+c.Path()+"\n"), rawBody...))
		g.RequestHash = hex.EncodeToString(sum[:])
		hash, id, err := s.idempotency.Claim(ctx, p.Wallet, key, g.RequestHash, g.ReceiptID)
		if err != nil {
			return err
		}
		if hash != g.RequestHash {
			return NewError(http.StatusConflict, "idempotency_conflict", "This Idempotency-Key was used with a different request")
		}
		replay = id != g.ReceiptID
		g.ReceiptID = id
	}
	// The event is decided once: if the append's answer is lost (the datastore went away during
	// the commit), the journal keeps this very event, and its replay finds it stored or stores it.
	ev, state, err := commands.GenerationEvent(g, s.now(), s.metadata(c, p.Wallet))
	if errors.Is(err, receipt.ErrTotal) {
		return InvalidInput(err.Error())
	}
	if err != nil {
		return err
	}
	secret := s.signingKey(c, p)
	if secret != "" {
		// The key commits with the receipt's first event where the event store can (same
		// database), else just before it.
		if cw, ok := s.events.(eventstore.CompanionWriter); ok && cw.RunsCompanions() {
			comp, err := s.webhookKeys.Companion(g.ReceiptID, secret)
			if err != nil {
				return err
			}
			ctx = eventstore.WithCompanion(ctx, comp)
		} else if err := s.webhookKeys.Save(ctx, g.ReceiptID, secret); unavailable(err) && g.RequestHash == "" {
			return s.journalReceipt(c, ev, state, secret)
		} else if err != nil {
			return err
		}
	}
	res, err := commands.AppendGeneration(ctx, s.events, ev, state)
	if unavailable(err) && g.RequestHash == "" {
		return s.journalReceipt(c, ev, state, secret)
	}
	if errors.Is(err, receipt.ErrExists) {
		if !replay && g.RequestHash == "" {
			return NewError(http.StatusConflict, "conflict", "A receipt with this id already exists")
		}
		// The same request again (or at the same time): answer the receipt it created.
		loaded, lerr := commands.LoadReceipt(ctx, s.events, g.ReceiptID)
		if lerr != nil {
			return lerr
		}
		if loaded.State.Receipt.RequestHash != g.RequestHash || loaded.State.Receipt.Merchant != p.Wallet {
			return NewError(http.StatusConflict, "conflict", "A receipt with this id already exists")
		}
		return c.JSON(status, map[string]any{"ok": true, "receipt": viewReceipt(loaded.State)})
	}
	if err != nil {
		return err
	}
	if err := s.waitReadable(ctx, g.ReceiptID, res); err != nil {
		return err
	}
	return c.JSON(status, map[string]any{"ok": true, "receipt": viewReceipt(state)})
}

// signingKey is the API key the request was made with: it signs the receipt's webhooks.
func (s *Server) signingKey(c echo.Context, p Principal) string {
	if p.Secret != "" {
		return p.Secret
	}
	return presentedKey(c.Request())
}

// journalReceipt accepts a receipt while the datastore is down: its generation event ev (and
// sealed webhook key) is written durably to the local journal, replayed into the event store with
// the same ids when the datastore is back, and the spec's degraded body is answered. Without a
// journal, or if the journal cannot be written, the answer is 503.
func (s *Server) journalReceipt(c echo.Context, ev eventstore.EventData, state receipt.State, secret string) error {
	if s.journal == nil {
		return errUnavailable
	}
	id := state.Receipt.ReceiptID
	entry := journal.Entry{Stream: commands.ReceiptStream(id), Events: []eventstore.EventData{ev}, At: s.now().UnixMilli()}
	if secret != "" {
		nonce, sealed, err := s.webhookKeys.Seal(id, secret)
		if err != nil {
			return err
		}
		entry = entry.WithSealedKey(journal.SealedKey{ReceiptID: id, Nonce: nonce, Sealed: sealed})
	}
	if err := s.journal.Append(entry); err != nil {
		zerolog.Ctx(c.Request().Context()).Error().Err(err).Msg("degraded mode: journal write failed")
		return errUnavailable
	}
	zerolog.Ctx(c.Request().Context()).Warn().Str("receipt_id", id).Msg("degraded mode: receipt journaled")
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "degraded": true, "reason": "datastore_unavailable", "receipt": viewReceipt(state)})
}
