package readmodels

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// itemsByID is an inventory whose every id and SKU names an item with a 64 KiB picture.
type itemsByID struct{ thumb string }

func (f itemsByID) Find(_ context.Context, wallet string, ids []uuid.UUID, skus []string) ([]Item, error) {
	var out []Item
	for _, id := range ids {
		out = append(out, Item{ID: id, Wallet: wallet, SKU: "sku-" + id.String(), Name: "Item", Currency: "USD", StockQty: -1, Thumb: f.thumb})
	}
	return out, nil
}

// TestOrderCatalogLastKnownIsBounded: the items an instance keeps to price orders while the
// datastore does not answer are bounded by their size, not only by the number of merchants. One
// merchant ordering item after item (deleted and added again under a new id, or just many of its
// 100,000) grew the map without end: 2,000 items with 64 KiB pictures held 256 MiB here.
func TestOrderCatalogLastKnownIsBounded(t *testing.T) {
	t.Parallel()
	thumb := "data:image/png;base64," + strings.Repeat("A", 64<<10-22)
	c := NewOrderCatalog(itemsByID{thumb: thumb}, nil)
	ctx := context.Background()
	wallet := "0x" + strings.Repeat("b", 40)
	var last uuid.UUID
	for range 2000 {
		last = uuid.New()
		if _, err := c.Find(ctx, wallet, []uuid.UUID{last}, nil); err != nil {
			t.Fatal(err)
		}
	}
	held := 0
	for _, m := range c.known {
		for _, it := range m {
			held += len(it.Thumb)
		}
	}
	if held > 64<<20 {
		t.Fatalf("the last-known items hold %d bytes of pictures, want at most %d", held, 64<<20)
	}
	// The item read last is still known, for an order while the datastore does not answer.
	if got, err := c.lastKnown(wallet, []uuid.UUID{last}, nil, context.DeadlineExceeded); err != nil || len(got) != 1 || got[0].ID != last {
		t.Fatalf("the last item read is not known: %v %v", got, err)
	}
}
