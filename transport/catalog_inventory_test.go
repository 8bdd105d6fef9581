package transport

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/payledger/payledger/readmodels"
)

// An item's name becomes a receipt line's label: control characters (a terminal escape, a bell, a
// line break) and bidi overrides (which show "Tip 001%" for a line labelled otherwise) are
// 400 invalid_input naming the field, and nothing is stored.
func TestCatalogInventoryNameWithoutControlCharacters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	for _, name := range []string{`Latte\u0007`, `Latte\u001b[2J`, `Latte\nLarge`, `Tip \u202e%001`, `La\u0085tte`} {
		rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"latte","name":"`+name+`","priceUsd":4.5}`)
		env := decode(t, rec)
		if msg, _ := env["message"].(string); rec.Code != 400 || env["error"] != "invalid_input" || msg != "name must not contain control characters" {
			t.Errorf("%s: %d %v", name, rec.Code, env)
		}
	}
	if n := e.count("inventory_items"); n != 0 {
		t.Fatalf("refused items stored: %d", n)
	}
	if it := e.item(m, `{"sku":"latte","name":"Café Crème – grand","priceUsd":4.5}`); it["name"] != "Café Crème – grand" {
		t.Fatalf("stored %v", it)
	}
	// Direction marks (LRM, RLM, the Arabic letter mark) are how real Hebrew and Arabic names are
	// written beside Latin digits; unlike the overrides and isolates they reorder nothing else.
	for i, name := range []string{"קפה 2‏", "‎Latte 2 שקל", "قهوة؜ 2"} {
		if it := e.item(m, fmt.Sprintf(`{"sku":"mark-%d","name":%q,"priceUsd":4.5}`, i, name)); it["name"] != name {
			t.Errorf("%q stored as %v", name, it)
		}
	}
}

// A merchant's catalog is bounded: a new SKU past the bound is 400 invalid_input and stores
// nothing, also when the creates race; an update of an item already there still passes, and a
// deletion makes room. (The bound is readmodels.MaxItems; lowered here to 3.)
func TestCatalogInventoryIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Inventory.(*readmodels.Inventory).MaxItems = 3 })
	m := e.merchant(false)
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			e.dev(m, http.MethodPost, "/api/inventory", fmt.Sprintf(`{"sku":"race-%d","name":"R","priceUsd":1}`, i))
		})
	}
	wg.Wait()
	if n := e.count("inventory_items"); n != 3 {
		t.Fatalf("concurrent creates stored %d items, want the bound 3", n)
	}
	rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"one-more","name":"M","priceUsd":1}`)
	if env := decode(t, rec); rec.Code != 400 || env["error"] != "invalid_input" {
		t.Fatalf("a fourth item: %d %v", rec.Code, env)
	}
	items := decode(t, e.dev(m, http.MethodGet, "/api/inventory", ""))["items"].([]any)
	first := items[0].(map[string]any)
	if it := e.item(m, `{"sku":"`+first["sku"].(string)+`","name":"Renamed","priceUsd":2}`); it["name"] != "Renamed" {
		t.Fatalf("an update at the bound: %v", it)
	}
	other := e.merchant(false) // the bound is each merchant's
	e.item(other, `{"sku":"own","name":"O","priceUsd":1}`)
	if rec := e.dev(m, http.MethodDelete, "/api/inventory?id="+first["id"].(string), ""); rec.Code != 200 {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	e.item(m, `{"sku":"one-more","name":"M","priceUsd":1}`)
}
