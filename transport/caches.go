package transport

import (
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/internal/cache"
	"github.com/payledger/payledger/readmodels"
)

// caches are the instance's read caches for the hot paths (status reads, order pricing). Each is
// emptied by the NOTIFY that a change sends at commit, in every instance, and is off while the
// instance is not listening (cache.Cache). This instance also forgets at once after its own
// writes, so its next read never waits for its own notification. All nil without Invalidations.
type caches struct {
	status    *cache.Cache[cachedStatus]
	pricing   *cache.Cache[commands.MerchantPricing]
	inventory *cache.Cache[readmodels.Item] // key: wallet|id:<uuid> or wallet|sku:<sku>
}

// statusCacheSize bounds the status cache: a rendered status is about 1 KB.
const statusCacheSize = 50_000

// newCaches makes the status cache and keeps the order sources' caches, which the composition
// root made and registered, for forgetting.
func newCaches(inv *cache.Invalidations, pricing *cache.Cache[commands.MerchantPricing], inventory *cache.Cache[readmodels.Item]) caches {
	c := caches{status: cache.NewCache[cachedStatus](statusCacheSize, false), pricing: pricing, inventory: inventory}
	inv.Register(readmodels.ReceiptsChangedChannel, c.status)
	return c
}

// cachedStatus is a rendered status read and the merchant that may see it.
type cachedStatus struct {
	merchant string
	body     []byte
}

func (c caches) forgetStatus(id string) { c.status.Forget(id) }

// forgetPricing forgets the wallets' pricing, or every merchant's without wallets.
func (c caches) forgetPricing(wallets ...string) { c.pricing.Forget(wallets...) }

func (c caches) forgetInventory(wallet string) {
	c.inventory.Forget(readmodels.InventoryCacheKey(wallet))
}
