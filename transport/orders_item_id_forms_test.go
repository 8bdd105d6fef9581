package transport

import (
	"net/http"
	"strings"
	"testing"
)

// TestOrderFindsAnItemByEveryFormOfItsID: an order line's id is read as a UUID, in every form
// the parser takes (upper case, braces, urn:uuid:, no hyphens) as DELETE /api/inventory reads it;
// the item was looked up by that UUID and then matched by the line's text, so an item that exists
// was refused 400 inventory_item_not_found ("Product not found") for all but the plain forms.
func TestOrderFindsAnItemByEveryFormOfItsID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4}`)["id"].(string)
	for _, form := range []string{id, strings.ToUpper(id), "{" + id + "}", "urn:uuid:" + id, strings.ReplaceAll(id, "-", "")} {
		rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"id":"`+form+`","qty":1}]}`)
		if rec.Code != http.StatusOK {
			t.Errorf("id %s: %d %s", form, rec.Code, rec.Body)
			continue
		}
		lines := decode(t, rec)["receipt"].(map[string]any)["lineItems"].([]any)
		if got := lines[0].(map[string]any)["itemId"]; got != id {
			t.Errorf("id %s: line of item %v, want %s", form, got, id)
		}
	}
}
