package commands_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
)

// catalog is a merchant's inventory in memory.
type catalog []commands.CatalogItem

func (c catalog) Find(_ context.Context, _ string, ids []uuid.UUID, skus []string) ([]commands.CatalogItem, error) {
	var out []commands.CatalogItem
	for _, it := range c {
		for _, id := range ids {
			if it.ID == id.String() {
				out = append(out, it)
			}
		}
		for _, sku := range skus {
			if it.SKU == sku {
				out = append(out, it)
			}
		}
	}
	return out, nil
}

type pricing struct{ mp commands.MerchantPricing }

func (p pricing) Pricing(context.Context, string) (commands.MerchantPricing, error) { return p.mp, nil }

// claims is an Idempotency-Key table in memory.
type claims struct {
	mu sync.Mutex
	m  map[string][2]string
}

func (c *claims) Claim(_ context.Context, wallet, key, hash, id string) (string, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, ok := c.m[wallet+key]; ok {
		return got[0], got[1], nil
	}
	c.m[wallet+key] = [2]string{hash, id}
	return hash, id, nil
}

func (c *claims) Bound(_ context.Context, wallet, key string) (string, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.m[wallet+key]
	return got[0], got[1], nil
}

func (c *claims) Release(_ context.Context, wallet, key, hash, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[wallet+key] == [2]string{hash, id} {
		delete(c.m, wallet+key)
	}
	return nil
}

// vault keeps webhook keys in memory.
type vault struct{ saved map[string]string }

func (v *vault) Save(_ context.Context, id, secret string) error { v.saved[id] = secret; return nil }
func (v *vault) Seal(id, secret string) ([]byte, []byte, error) {
	return []byte("n"), []byte("sealed:" + secret), nil
}

// downStore answers every append as a datastore that went away.
type downStore struct{ commands.Store }

func (downStore) Append(context.Context, string, eventstore.ExpectedVersion, ...eventstore.EventData) (eventstore.AppendResult, error) {
	return eventstore.AppendResult{}, io.ErrUnexpectedEOF
}

func isEOF(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }

var (
	mugID = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	shop  = catalog{
		{ID: mugID.String(), SKU: "mug", Name: "Mug", Currency: "USD", PriceCents: 1250, Taxable: true, StockQty: -1},
		{ID: uuid.NewString(), SKU: "tea", Name: "Tea", Currency: "USD", PriceCents: 400, StockQty: -1},
		{ID: uuid.NewString(), SKU: "wine", Name: "Wine", Currency: "EUR", PriceCents: 900, StockQty: -1},
	}
)

type orderEnv struct {
	*payEnv
	orders  *commands.CreateOrderHandler
	direct  *commands.CreateReceiptHandler
	keys    *vault
	journal *journal.Journal
}

func newOrderEnv(t *testing.T, store commands.Store, platform string) *orderEnv {
	e := &orderEnv{payEnv: newPayEnv(t), keys: &vault{saved: map[string]string{}}}
	if store == nil {
		store = e.payEnv.store
	}
	j, err := journal.Open(filepath.Join(t.TempDir(), "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	e.journal = j
	issuer := commands.NewIssuer(store, &claims{m: map[string][2]string{}}, e.keys, j, isEOF, e.now)
	mp := pricing{commands.MerchantPricing{Platform: receipt.PlatformBaseRate, BrandName: "Cafe"}}
	e.orders = commands.NewCreateOrderHandler(commands.NewSplits(e.payEnv.store), shop, mp, issuer, platform, e.now)
	e.direct = commands.NewCreateReceiptHandler(mp, issuer)
	return e
}

func qty(n string) json.Number { return json.Number(n) }

func TestCreateOrderRulesInTheSpecsOrder(t *testing.T) {
	t.Parallel()
	e := newOrderEnv(t, nil, payPlatform)
	unsplit := "0x" + strings.Repeat("d", 40)
	e.configureSplit(payMerchant)
	rate := func(s string) *json.Number { n := json.Number(s); return &n }
	for _, c := range []struct {
		name    string
		cmd     commands.CreateOrder
		code    string
		message string
	}{
		{"qty zero", commands.CreateOrder{Lines: []commands.OrderLine{{SKU: "mug", Qty: qty("0")}}}, "invalid_input", "items[0].qty"},
		{"no ref", commands.CreateOrder{Lines: []commands.OrderLine{{Qty: qty("1")}}}, "invalid_input", "items[0] needs an id or a sku"},
		{"currency", commands.CreateOrder{Currency: "GBP"}, "invalid_input", "currency must be USD or EUR"},
		{"tax rate above 1", commands.CreateOrder{TaxRate: rate("1.5")}, "invalid_input", "taxRate must be a number from 0 to 1"},
		{"unknown jurisdiction", commands.CreateOrder{JurisdictionCode: "ZZ-NOPE"}, "invalid_input", "jurisdictionCode ZZ-NOPE is not in the tax catalog"},
		{"components alone", commands.CreateOrder{TaxComponents: []string{"state"}}, "invalid_input", "taxComponents needs a jurisdictionCode"},
		{"no items", commands.CreateOrder{}, "items_required", ""},
		{"no split", commands.CreateOrder{Merchant: unsplit, Lines: []commands.OrderLine{{SKU: "mug", Qty: qty("1")}}}, "split_required", ""},
		{"unknown sku", commands.CreateOrder{Lines: []commands.OrderLine{{SKU: "cake", Qty: qty("1")}}}, "inventory_item_not_found", "Product not found in inventory: sku cake"},
		{"mixed currencies", commands.CreateOrder{Lines: []commands.OrderLine{{SKU: "mug", Qty: qty("1")}, {SKU: "wine", Qty: qty("1")}}}, "invalid_input", "items[1] (wine) is priced in EUR"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.cmd.Merchant == "" {
				c.cmd.Merchant = payMerchant
			}
			_, err := e.orders.Handle(e.ctx, c.cmd)
			wantRefusal(t, err, c.code, c.message)
		})
	}
	noPlatform := newOrderEnv(t, nil, "")
	noPlatform.configureSplit(payMerchant)
	_, err := noPlatform.orders.Handle(e.ctx, commands.CreateOrder{Merchant: payMerchant, Lines: []commands.OrderLine{{SKU: "mug", Qty: qty("1")}}})
	wantRefusal(t, err, "platform_recipient_not_configured", "")
}

// An order is priced from the inventory with the explicit tax rate on taxable lines and the fee,
// branded, and its webhook key kept outside the event.
func TestCreateOrderPricesAndIssues(t *testing.T) {
	t.Parallel()
	e := newOrderEnv(t, nil, payPlatform)
	e.configureSplit(payMerchant)
	rate := json.Number("0.1")
	issued, err := e.orders.Handle(e.ctx, commands.CreateOrder{Merchant: payMerchant, TaxRate: &rate,
		Lines: []commands.OrderLine{{ID: mugID.String(), Qty: qty("2")}, {SKU: "tea", Qty: qty("1")}}, Issue: commands.Issue{SigningKey: "sk_test"}})
	if err != nil {
		t.Fatal(err)
	}
	g := issued.State.Receipt
	if g.Subtotal != 2900 || g.Tax != 250 || g.Currency != "USD" || g.BrandName != "Cafe" || g.Total != g.Subtotal+g.Tax+g.Fee {
		t.Fatalf("priced %+v", g)
	}
	if e.keys.saved[g.ReceiptID] != "sk_test" || strings.Contains(e.history(g.ReceiptID), "sk_test") {
		t.Fatalf("webhook key: %v", e.keys.saved)
	}
	if st := e.state(g.ReceiptID); st.Status != receipt.StatusGenerated || st.Receipt.Total != g.Total {
		t.Fatalf("stored %+v", st)
	}
}

// The same Idempotency-Key and request answers the first receipt; another request under the key
// is a conflict.
func TestCreateReceiptIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := newOrderEnv(t, nil, payPlatform)
	lines := []commands.ReceiptLine{{Label: "Coffee", PriceUSD: amount("3.50")}}
	cmd := commands.CreateReceipt{Merchant: payMerchant, Lines: &lines, TotalUSD: amount("3.50"), Issue: commands.Issue{IdempotencyKey: "k1", RequestHash: "h1"}}
	first, err := e.direct.Handle(e.ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.direct.Handle(e.ctx, cmd)
	if err != nil || again.State.Receipt.ReceiptID != first.State.Receipt.ReceiptID {
		t.Fatalf("replay: %v %v", again.State.Receipt.ReceiptID, err)
	}
	// A retry after the upgrade of stop 60 hashes the request anew; the binding (and the receipt)
	// hold the hash of before, which the retry carries as its legacy hash: the same request.
	upgraded := cmd
	upgraded.Issue.RequestHash, upgraded.Issue.LegacyRequestHash = "h1-new", "h1"
	if again, err := e.direct.Handle(e.ctx, upgraded); err != nil || again.State.Receipt.ReceiptID != first.State.Receipt.ReceiptID {
		t.Fatalf("a retry hashed anew: %v %v, want the first receipt", again.State.Receipt.ReceiptID, err)
	}
	cmd.Issue.RequestHash = "h2"
	if _, err := e.direct.Handle(e.ctx, cmd); !errors.Is(err, commands.ErrIdempotencyConflict) {
		t.Fatalf("other request under the key: %v", err)
	}
	for name, c := range map[string]commands.CreateReceipt{
		"bad id":        {ID: "a b", Lines: &lines, TotalUSD: amount("3.50")},
		"wrong total":   {Lines: &lines, TotalUSD: amount("3.51")},
		"no lines":      {TotalUSD: amount("1")},
		"long key":      {Lines: &lines, TotalUSD: amount("3.50"), Issue: commands.Issue{IdempotencyKey: strings.Repeat("k", 256)}},
		"euro currency": {Lines: &lines, TotalUSD: amount("3.50"), Currency: "GBP"},
	} {
		c.Merchant = payMerchant
		if _, err := e.direct.Handle(e.ctx, c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	own := commands.CreateReceipt{Merchant: payMerchant, ID: "inv-7", Lines: &lines, TotalUSD: amount("3.50")}
	made, err := e.direct.Handle(e.ctx, own)
	if err != nil || made.State.Receipt.ReceiptID != commands.MerchantReceiptID(payMerchant, "inv-7") {
		t.Fatalf("own id: %v %v", made.State.Receipt.ReceiptID, err)
	}
	if _, err := e.direct.Handle(e.ctx, own); !errors.Is(err, commands.ErrReceiptExists) {
		t.Fatalf("taken id: %v", err)
	}
	// Another merchant's "inv-7" is its own receipt (DESIGN 9: ids are namespaced per merchant).
	own.Merchant = "0x" + strings.Repeat("e", 40)
	if other, err := e.direct.Handle(e.ctx, own); err != nil || other.State.Receipt.ReceiptID == made.State.Receipt.ReceiptID {
		t.Fatalf("another merchant's same id: %v %v", other.State.Receipt.ReceiptID, err)
	}
}

// With the datastore down, an order without Idempotency-Key is journaled (sealed key, the event
// that was sent) and looked up there; one with a key is refused.
func TestCreateOrderJournaledWhileTheDatastoreIsDown(t *testing.T) {
	t.Parallel()
	probe := newPayEnv(t)
	e := newOrderEnv(t, downStore{probe.store}, payPlatform)
	e.configureSplit(payMerchant)
	cmd := commands.CreateOrder{Merchant: payMerchant, Lines: []commands.OrderLine{{SKU: "tea", Qty: qty("3")}}, Issue: commands.Issue{SigningKey: "sk"}}
	issued, err := e.orders.Handle(e.ctx, cmd)
	if err != nil || !issued.Degraded || issued.State.Receipt.Total < money.Cents(1200) {
		t.Fatalf("degraded order: %+v %v", issued, err)
	}
	entry, ok := e.journal.Lookup(receipt.Stream(issued.State.Receipt.ReceiptID))
	if !ok || len(entry.Events) != 1 || entry.Side[journal.SideWebhookKey] == nil || strings.Contains(string(entry.Events[0].Data), `"sk"`) {
		t.Fatalf("journal entry %+v", entry)
	}
	cmd.Issue = commands.Issue{IdempotencyKey: "k", RequestHash: "h"}
	if _, err := e.orders.Handle(e.ctx, cmd); !isEOF(err) {
		t.Fatalf("an order with Idempotency-Key while down: %v", err)
	}
}
