package readmodels

import (
	"context"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/internal/cache"
)

// What order creation reads (commands.Catalog, commands.PricingSource): through the instance's
// caches, and, while the datastore does not answer, from what this instance last read, so an
// order can still be priced and journaled (degraded mode). A merchant or item never read before
// cannot be priced then: the read's error is returned.

// lastKnownLimit bounds each last-known map; past it the map starts over.
const lastKnownLimit = 10_000

// lastKnownBytes bounds the items the catalog's last-known map holds, by their size (knownSize):
// past it the map starts over. Counting merchants only, one merchant held every item it had ever
// ordered: up to 100,000 items with 64 KiB pictures (6.4 GB), and without end by deleting and
// adding items again (each new item id one more entry).
const lastKnownBytes = 64 << 20

// knownSize is what the last-known map counts for item it under ref: its texts and a fixed
// allowance for the rest of the entry.
func knownSize(ref string, it Item) int {
	return 128 + len(ref) + len(it.SKU) + len(it.Name) + len(it.Currency) + len(it.Thumb)
}

// itemFinder is the inventory query an order needs.
type itemFinder interface {
	Find(ctx context.Context, wallet string, ids []uuid.UUID, skus []string) ([]Item, error)
}

// OrderCatalog finds inventory items for orders.
type OrderCatalog struct {
	inventory itemFinder
	cache     *cache.Cache[Item] // key: wallet|id:<uuid> or wallet|sku:<sku>; nil: none
	mu        sync.Mutex
	known     map[string]map[string]Item // wallet -> ref -> item
	size      int                        // knownSize of known's entries (lastKnownBytes)
}

// NewOrderCatalog returns a catalog over inventory with cache (nil: no cache).
func NewOrderCatalog(inventory itemFinder, cache *cache.Cache[Item]) *OrderCatalog {
	return &OrderCatalog{inventory: inventory, cache: cache, known: map[string]map[string]Item{}}
}

// InventoryCacheKey is the prefix of a merchant's entries in the inventory cache.
func InventoryCacheKey(wallet string) string { return wallet + "|" }

// Find implements commands.Catalog.
func (c *OrderCatalog) Find(ctx context.Context, wallet string, ids []uuid.UUID, skus []string) ([]receipt.CatalogItem, error) {
	found, err := c.find(ctx, wallet, ids, skus)
	switch {
	case Unavailable(err):
		if found, err = c.lastKnown(wallet, ids, skus, err); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		c.remember(wallet, found)
	}
	out := make([]receipt.CatalogItem, len(found))
	for i, it := range found {
		out[i] = receipt.CatalogItem{ID: it.ID.String(), SKU: it.SKU, Name: it.Name, Thumb: it.Thumb, Currency: it.Currency, PriceCents: it.PriceCents, Taxable: it.Taxable, StockQty: it.StockQty}
	}
	return out, nil
}

// find reads items by id and SKU, from the cache when it holds them all.
func (c *OrderCatalog) find(ctx context.Context, wallet string, ids []uuid.UUID, skus []string) ([]Item, error) {
	if c.cache == nil {
		return c.inventory.Find(ctx, wallet, ids, skus)
	}
	prefix := InventoryCacheKey(wallet)
	refs := make([]string, 0, len(ids)+len(skus))
	for _, id := range ids {
		refs = append(refs, prefix+"id:"+id.String())
	}
	for _, sku := range skus {
		refs = append(refs, prefix+"sku:"+sku)
	}
	var gen uint64
	hits := make([]Item, 0, len(refs))
	for i, ref := range refs {
		it, g, ok := c.cache.Get(ref)
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
	found, err := c.inventory.Find(ctx, wallet, ids, skus)
	if err != nil {
		return nil, err
	}
	for _, it := range found {
		c.cache.Put(prefix+"id:"+it.ID.String(), it, gen)
		c.cache.Put(prefix+"sku:"+it.SKU, it, gen)
	}
	return found, nil
}

func (c *OrderCatalog) remember(wallet string, items []Item) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, it := range items {
		c.keep(wallet, "id:"+it.ID.String(), it)
		c.keep(wallet, "sku:"+it.SKU, it)
	}
}

// keep holds it as wallet's item ref; past lastKnownLimit merchants or lastKnownBytes the map
// starts over. c.mu is held.
func (c *OrderCatalog) keep(wallet, ref string, it Item) {
	m := c.known[wallet]
	if old, ok := m[ref]; ok {
		c.size -= knownSize(ref, old)
	}
	size := knownSize(ref, it)
	if c.size+size > lastKnownBytes || m == nil && len(c.known) > lastKnownLimit {
		clear(c.known)
		c.size, m = 0, nil
	}
	if m == nil {
		m = map[string]Item{}
		c.known[wallet] = m
	}
	m[ref] = it
	c.size += size
}

// lastKnown answers from the items last read; one never read makes it return readErr.
func (c *OrderCatalog) lastKnown(wallet string, ids []uuid.UUID, skus []string, readErr error) ([]Item, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Item
	for _, id := range ids {
		it, ok := c.known[wallet]["id:"+strings.ToLower(id.String())]
		if !ok {
			return nil, readErr
		}
		out = append(out, it)
	}
	for _, sku := range skus {
		it, ok := c.known[wallet]["sku:"+sku]
		if !ok {
			return nil, readErr
		}
		out = append(out, it)
	}
	return out, nil
}

// pricingSettings is the query pricing needs.
type pricingSettings interface {
	PricingSettings(ctx context.Context, wallet string) (ShopConfig, bool, SiteConfig, error)
}

// OrderPricing reads merchants' fee rates and brand for orders.
type OrderPricing struct {
	shops pricingSettings
	cache *cache.Cache[receipt.MerchantPricing] // nil: none
	mu    sync.Mutex
	known map[string]receipt.MerchantPricing
}

// NewOrderPricing returns pricing over shops with cache (nil: no cache).
func NewOrderPricing(shops pricingSettings, cache *cache.Cache[receipt.MerchantPricing]) *OrderPricing {
	return &OrderPricing{shops: shops, cache: cache, known: map[string]receipt.MerchantPricing{}}
}

// Pricing implements commands.PricingSource: the platform base rate (the site's replaces 0.5%),
// the merchant's add-on and brand.
func (p *OrderPricing) Pricing(ctx context.Context, wallet string) (receipt.MerchantPricing, error) {
	return p.cache.Load(wallet, func() (receipt.MerchantPricing, bool, error) {
		mp, err := p.read(ctx, wallet)
		return mp, true, err
	})
}

func (p *OrderPricing) read(ctx context.Context, wallet string) (receipt.MerchantPricing, error) {
	mp := receipt.MerchantPricing{Platform: receipt.PlatformBaseRate}
	shop, found, site, err := p.shops.PricingSettings(ctx, wallet)
	if Unavailable(err) {
		p.mu.Lock()
		cached, ok := p.known[wallet]
		p.mu.Unlock()
		if ok {
			return cached, nil
		}
	}
	if err != nil {
		return mp, err
	}
	mp.DefaultToken = site.DefaultPaymentToken
	if site.ProcessingFeePct != nil {
		if r, err := money.ParseRate(site.ProcessingFeePct.String()); err == nil {
			mp.Platform = money.Percent(r)
		}
	}
	if found {
		if shop.ProcessingFeePct != "" {
			if r, err := money.ParseRate(shop.ProcessingFeePct.String()); err == nil {
				mp.AddOn = money.Percent(r)
			}
		}
		mp.BrandName, mp.BrandKey = shop.Name, shop.BrandKey
	}
	p.mu.Lock()
	if len(p.known) > lastKnownLimit {
		clear(p.known)
	}
	p.known[wallet] = mp
	p.mu.Unlock()
	return mp, nil
}
