package transport

import (
	"net/http"
	"testing"
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
}
