package transport

import (
	"net/http"
	"strings"
	"testing"
)

// Conformance with the interface specification's error table: a missing or malformed input is
// invalid_input naming it, never an answer that looks like an empty result or an unknown item.

// TestSplitTransactionsRefuseAMalformedAddress: a filter that is no address (a typo, a pasted
// name) was answered [] as if the merchant had no transactions; it is 400 invalid_input now. A
// well-formed address that is not the split's or a payee's still answers [].
func TestSplitTransactionsRefuseAMalformedAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	for _, addr := range []string{"bad", "0x123", "0x" + strings.Repeat("g", 40), m.wallet + "0"} {
		rec := e.dev(m, http.MethodGet, "/api/split/transactions?address="+addr, "")
		if rec.Code != http.StatusBadRequest || decode(t, rec)["error"] != "invalid_input" {
			t.Errorf("address %q: %d %s", addr, rec.Code, rec.Body)
		}
	}
	if l := decodeArray(t, e.dev(m, http.MethodGet, "/api/split/transactions?address=0x"+strings.Repeat("9", 40), "")); len(l) != 0 {
		t.Fatalf("a stranger's address: %v", l)
	}
	if l := decodeArray(t, e.dev(m, http.MethodGet, "/api/split/transactions?address=0x"+strings.ToUpper(m.wallet[2:]), "")); len(l) != 0 {
		t.Fatalf("the merchant's own address in upper case: %v", l) // valid, no transactions yet
	}
}

// TestInventoryDeleteWithoutAnIDIsInvalidInput: DELETE /api/inventory without its required id is
// a missing field (400 invalid_input), where it answered inventory_item_not_found as for an id
// that names no item; a malformed or unknown id keeps inventory_item_not_found.
func TestInventoryDeleteWithoutAnIDIsInvalidInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	for _, path := range []string{"/api/inventory", "/api/inventory?id="} {
		rec := e.dev(m, http.MethodDelete, path, "")
		if body := decode(t, rec); rec.Code != http.StatusBadRequest || body["error"] != "invalid_input" || !strings.Contains(body["message"].(string), "id is required") {
			t.Errorf("%s: %d %v", path, rec.Code, body)
		}
	}
	for _, id := range []string{"nope", "00000000-0000-0000-0000-000000000000"} {
		rec := e.dev(m, http.MethodDelete, "/api/inventory?id="+id, "")
		if rec.Code != http.StatusBadRequest || decode(t, rec)["error"] != "inventory_item_not_found" {
			t.Errorf("id %q: %d %s", id, rec.Code, rec.Body)
		}
	}
}

// TestMetadataRefusalNamesTheFirstBadKeyEveryTime: the metadata object was checked in map order,
// which Go randomises, so one request with several bad values was told about a different key from
// one try to the next; keys are checked in order now. An empty or over-long key is named as a
// key problem (it read "metadata. must be a string…", about its value).
func TestMetadataRefusalNamesTheFirstBadKeyEveryTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	body := `{"lineItems":[{"label":"A","priceUsd":5}],"totalUsd":5,"metadata":{"e":1,"d":true,"c":null,"b":[],"a":{}}}`
	for i := range 20 {
		rec := e.dev(m, http.MethodPost, "/api/receipts", body)
		if got := decode(t, rec); rec.Code != http.StatusBadRequest || got["message"] != "metadata.a must be a string of at most 500 characters" {
			t.Fatalf("try %d: %d %v", i, rec.Code, got)
		}
	}
	for _, md := range []string{`{"":"v"}`, `{"` + strings.Repeat("k", 101) + `":"v"}`} {
		rec := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"A","priceUsd":5}],"totalUsd":5,"metadata":`+md+`}`)
		if got := decode(t, rec); rec.Code != http.StatusBadRequest || got["message"] != "metadata keys must be 1 to 100 characters" {
			t.Errorf("metadata %.20s: %d %v", md, rec.Code, got)
		}
	}
	if e.count("events") != 0 {
		t.Fatal("a refused receipt was stored")
	}
}
