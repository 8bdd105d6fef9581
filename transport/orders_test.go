package transport

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/commands"
)

// merchant is a signed-up merchant: wallet, a key with every scope, session, configured split.
type merchant struct {
	wallet  string
	key     string
	cookies []*http.Cookie
	csrf    string
	priv    *ecdsa.PrivateKey
}

func (e *env) merchant(withSplit bool) merchant {
	e.t.Helper()
	priv, _ := crypto.GenerateKey()
	m := merchant{wallet: walletOf(priv), priv: priv}
	m.key = e.key(m.wallet, Scopes...)
	m.cookies, m.csrf = e.login(priv)
	if withSplit {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/split/deploy", `{"splitAddress":"0x`+strings.Repeat("c", 40)+`"}`)
		if rec.Code == http.StatusConflict { // another merchant of this env has it: one of its own
			rec = e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/split/deploy", `{"splitAddress":"0xc`+m.wallet[3:]+`"}`)
		}
		if rec.Code != 200 {
			e.t.Fatalf("split: %d %s", rec.Code, rec.Body)
		}
	}
	return m
}

func (e *env) dev(m merchant, method, path, body string, extra ...string) *httptest.ResponseRecorder {
	h := map[string]string{"Ocp-Apim-Subscription-Key": m.key}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return e.do(req{method: method, path: path, body: body, header: h})
}

func (e *env) item(m merchant, body string) map[string]any {
	e.t.Helper()
	rec := e.dev(m, http.MethodPost, "/api/inventory", body)
	if rec.Code != 201 && rec.Code != 200 {
		e.t.Fatalf("inventory %s: %d %s", body, rec.Code, rec.Body)
	}
	return decode(e.t, rec)["item"].(map[string]any)
}

func (e *env) count(table string) int {
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func TestInventory(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	bad := map[string]string{
		"no sku":             `{"name":"Mug","priceUsd":5}`,
		"no name":            `{"sku":"mug","priceUsd":5}`,
		"blank name":         `{"sku":"mug","name":"  ","priceUsd":5}`,
		"no price":           `{"sku":"mug","name":"Mug"}`,
		"negative price":     `{"sku":"mug","name":"Mug","priceUsd":-1}`,
		"three decimals":     `{"sku":"mug","name":"Mug","priceUsd":1.234}`,
		"price w/o currency": `{"sku":"mug","name":"Mug","price":5}`,
		"unknown currency":   `{"sku":"mug","name":"Mug","price":5,"currency":"GBP"}`,
		"both prices":        `{"sku":"mug","name":"Mug","priceUsd":5,"price":5,"currency":"EUR"}`,
		"stock below -1":     `{"sku":"mug","name":"Mug","priceUsd":5,"stockQty":-2}`,
		"fractional stock":   `{"sku":"mug","name":"Mug","priceUsd":5,"stockQty":1.5}`,
		"taxable string":     `{"sku":"mug","name":"Mug","priceUsd":5,"taxable":"yes"}`,
		"bad thumb":          `{"sku":"mug","name":"Mug","priceUsd":5,"thumb":"http://x/y.png"}`,
		"bad sku":            `{"sku":"a b","name":"Mug","priceUsd":5}`,
		"unknown field":      `{"sku":"mug","name":"Mug","priceUsd":5,"colour":"red"}`,
		"malformed":          `{"sku":`,
	}
	for name, body := range bad {
		rec := e.dev(m, http.MethodPost, "/api/inventory", body)
		if env := decode(t, rec); rec.Code != 400 || env["error"] != "invalid_input" {
			t.Errorf("%s: %d %v", name, rec.Code, env)
		}
	}
	if n := e.count("inventory_items"); n != 0 {
		t.Fatalf("bad requests wrote %d items", n)
	}
	rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"mug","name":"Mug","priceUsd":5,"taxable":true}`)
	if rec.Code != 201 {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	first := decode(t, rec)["item"].(map[string]any)
	rec = e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"mug","name":"Big Mug","priceUsd":6.5,"stockQty":3}`)
	second := decode(t, rec)["item"].(map[string]any)
	if rec.Code != 200 || second["id"] != first["id"] || second["name"] != "Big Mug" || second["priceUsd"] != 6.5 || second["stockQty"] != 3.0 {
		t.Fatalf("same SKU again: %d %v", rec.Code, second)
	}
	if n := e.count("inventory_items"); n != 1 {
		t.Fatalf("%d items after an update by SKU", n)
	}
	e.item(m, `{"sku":"croissant","name":"Croissant","price":2.4,"currency":"eur","taxable":true}`)
	for i := range 30 {
		e.item(m, fmt.Sprintf(`{"sku":"tea-%02d","name":"Tea %02d","priceUsd":3}`, i, i))
	}
	list := func(q string) map[string]any {
		rec := e.dev(m, http.MethodGet, "/api/inventory"+q, "")
		if rec.Code != 200 {
			t.Fatalf("list %s: %d %s", q, rec.Code, rec.Body)
		}
		return decode(t, rec)
	}
	page := list("")
	if len(page["items"].([]any)) != 25 || page["next"] == nil {
		t.Fatalf("first page: %d items next %v", len(page["items"].([]any)), page["next"])
	}
	rest := list("?cursor=" + page["next"].(string))
	if len(rest["items"].([]any)) != 7 || rest["next"] != nil {
		t.Fatalf("second page: %d items next %v", len(rest["items"].([]any)), rest["next"])
	}
	if got := list("?q=TEA-0&limit=100")["items"].([]any); len(got) != 10 {
		t.Fatalf("q filter: %d", len(got))
	}
	if got := list("?currency=eur")["items"].([]any); len(got) != 1 || got[0].(map[string]any)["price"] != 2.4 {
		t.Fatalf("currency filter: %v", got)
	}
	if got := list("?taxable=true")["items"].([]any); len(got) != 2 {
		t.Fatalf("taxable filter: %d", len(got))
	}
	if got := list("?sku=mug")["items"].([]any); len(got) != 1 {
		t.Fatalf("sku filter: %d", len(got))
	}
	for _, q := range []string{"?limit=0", "?limit=101", "?cursor=garbage", "?taxable=maybe", "?currency=GBP"} {
		if rec := e.dev(m, http.MethodGet, "/api/inventory"+q, ""); rec.Code != 400 {
			t.Errorf("%s: %d", q, rec.Code)
		}
	}
	// Another merchant sees nothing and deletes nothing.
	other := e.merchant(false)
	if got := decode(t, e.dev(other, http.MethodGet, "/api/inventory", ""))["items"].([]any); len(got) != 0 {
		t.Fatalf("another merchant sees %d items", len(got))
	}
	id := first["id"].(string)
	if rec := e.dev(other, http.MethodDelete, "/api/inventory?id="+id, ""); rec.Code != 400 || decode(t, rec)["error"] != "inventory_item_not_found" {
		t.Fatalf("cross-merchant delete: %d %s", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodDelete, "/api/inventory?id="+id, ""); rec.Code != 200 || decode(t, rec)["ok"] != true {
		t.Fatalf("delete: %d", rec.Code)
	}
	if rec := e.dev(m, http.MethodDelete, "/api/inventory?id="+id, ""); rec.Code != 400 || decode(t, rec)["error"] != "inventory_item_not_found" {
		t.Fatalf("delete twice: %d %s", rec.Code, rec.Body)
	}
}

// TestCraftedCursorsAreInvalidInput: a list's cursor is opaque, but a client can forge one. A part
// PostgreSQL cannot take (an id that is not a uuid, a time outside timestamptz) was a 500, and the
// lowest int64 of µs silently paged from the far future: each is invalid_input.
func TestCraftedCursorsAreInvalidInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"mug","name":"Mug","priceUsd":5}`)
	cursor := func(raw string) string { return base64.RawURLEncoding.EncodeToString([]byte(raw)) }
	id := uuid.NewString()
	for _, tc := range []struct{ name, raw string }{
		{"id not a uuid", "1|not-a-uuid"},
		{"id a uuid with a tail", "1|" + id + "x"},
		{"time not a number", "soon|" + id},
		{"time with a tail", "1x|" + id},
		{"time beyond int64", "99999999999999999999|" + id},
		{"time before PostgreSQL's first timestamp", "-210866803200000001|" + id},
		{"time the lowest int64", "-9223372036854775808|" + id},
		{"no id", "1|"},
		{"position beyond int64", "p99999999999999999999.1"},
	} {
		for _, path := range []string{"/api/inventory", "/api/webhooks/deliveries", "/api/receipts"} {
			t.Run(tc.name+" "+path, func(t *testing.T) {
				rec := e.dev(m, http.MethodGet, path+"?cursor="+cursor(tc.raw), "")
				if body := decode(t, rec); rec.Code != 400 || body["error"] != "invalid_input" || body["message"] == "" {
					t.Fatalf("cursor %q: %d %s", tc.raw, rec.Code, rec.Body)
				}
			})
		}
	}
	// A well-formed cursor still pages: an upper-case id, the ends of the times PostgreSQL holds.
	for _, raw := range []string{"1|" + id, "1|" + strings.ToUpper(id), "-210866803200000000|" + id, "9223372036854775807|" + id} {
		for _, path := range []string{"/api/inventory", "/api/webhooks/deliveries"} {
			if rec := e.dev(m, http.MethodGet, path+"?cursor="+cursor(raw), ""); rec.Code != 200 {
				t.Errorf("%s cursor %q: %d %s", path, raw, rec.Code, rec.Body)
			}
		}
	}
}

func TestOrderCreation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/shop/config", `{"name":"Blue Bottle","processingFeePct":1.25}`)
	latte := e.item(m, `{"sku":"latte","name":"Latte","priceUsd":4.5,"taxable":true}`)
	e.item(m, `{"sku":"beans","name":"Beans","priceUsd":18}`)
	rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"id":"`+latte["id"].(string)+`","qty":2},{"sku":"beans","qty":1}],
		"jurisdictionCode":"US-CA","transactionId":"pos-1","metadata":{"table":"7"},"buyer_email":"a@b.example","country":"us"}`)
	if rec.Code != 200 {
		t.Fatalf("order: %d %s", rec.Code, rec.Body)
	}
	body := decode(t, rec)
	r := body["receipt"].(map[string]any)
	// 2 × 4.50 taxable + 18.00: tax 9.00 × 7.25% = 0.6525 -> 0.65; fee 1.75% of 27.65 = 0.483875 -> 0.48.
	if body["ok"] != true || r["status"] != "generated" || r["totalUsd"] != 28.13 || r["brandName"] != "Blue Bottle" ||
		r["jurisdictionCode"] != "US-CA" || r["taxRate"] != 0.0725 || r["transactionId"] != "pos-1" || r["currency"] != "USD" {
		t.Fatalf("receipt %v", r)
	}
	lines := r["lineItems"].([]any)
	if len(lines) != 4 || lines[0].(map[string]any)["priceUsd"] != 9.0 || lines[0].(map[string]any)["qty"] != 2.0 ||
		!strings.HasPrefix(lines[0].(map[string]any)["thumb"].(string), "data:image/") || lines[0].(map[string]any)["sku"] != "latte" ||
		lines[2].(map[string]any)["label"] != "Tax" || lines[2].(map[string]any)["priceUsd"] != 0.65 ||
		lines[3].(map[string]any)["label"] != "Processing Fee" || lines[3].(map[string]any)["priceUsd"] != 0.48 {
		t.Fatalf("lines %v", lines)
	}
	if _, ok := lines[2].(map[string]any)["qty"]; ok {
		t.Fatal("the tax line has a qty")
	}
	if comps := r["taxComponents"].([]any); len(comps) != 3 {
		t.Fatalf("components %v", comps)
	}
	// Components and override.
	r = decode(t, e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"latte","qty":1}],"jurisdictionCode":"us-ca","taxComponents":["state"]}`))["receipt"].(map[string]any)
	if r["taxRate"] != 0.06 || len(r["taxComponents"].([]any)) != 1 {
		t.Fatalf("components: %v", r)
	}
	r = decode(t, e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"latte","qty":1}],"jurisdictionCode":"US-CA","taxRate":0.1}`))["receipt"].(map[string]any)
	if r["taxRate"] != 0.1 || r["lineItems"].([]any)[1].(map[string]any)["priceUsd"] != 0.45 {
		t.Fatalf("override: %v", r)
	}
	// EUR.
	e.item(m, `{"sku":"croissant","name":"Croissant","price":2.4,"currency":"EUR","taxable":true}`)
	r = decode(t, e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"croissant","qty":5}],"jurisdictionCode":"DE"}`))["receipt"].(map[string]any)
	// 12.00 + 19% VAT 2.28 = 14.28; fee 1.75% = 0.2499 -> 0.25; total 14.53 EUR.
	if r["currency"] != "EUR" || r["totalUsd"] != 14.53 {
		t.Fatalf("EUR receipt %v", r)
	}
	if rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"croissant","qty":1},{"sku":"latte","qty":1}]}`); rec.Code != 400 {
		t.Fatalf("mixed currencies: %d", rec.Code)
	}
	if rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"latte","qty":1}],"currency":"eur"}`); rec.Code != 400 {
		t.Fatalf("USD item in a EUR order: %d", rec.Code)
	}
}

func TestOrderErrorsInOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	noSplit := e.merchant(false)
	m := e.merchant(true)
	e.item(m, `{"sku":"latte","name":"Latte","priceUsd":4.5}`)
	e.item(noSplit, `{"sku":"latte","name":"Latte","priceUsd":4.5}`)
	cases := []struct {
		name   string
		who    merchant
		body   string
		status int
		code   string
	}{
		{"qty 0", m, `{"items":[{"sku":"latte","qty":0}]}`, 400, "invalid_input"},
		{"fractional qty", m, `{"items":[{"sku":"latte","qty":1.5}]}`, 400, "invalid_input"},
		{"tax rate above 1", m, `{"items":[{"sku":"latte","qty":1}],"taxRate":1.01}`, 400, "invalid_input"},
		{"negative tax rate", m, `{"items":[{"sku":"latte","qty":1}],"taxRate":-0.1}`, 400, "invalid_input"},
		{"unknown currency", m, `{"items":[{"sku":"latte","qty":1}],"currency":"GBP"}`, 400, "invalid_input"},
		{"unknown jurisdiction", m, `{"items":[{"sku":"latte","qty":1}],"jurisdictionCode":"US-ZZ"}`, 400, "invalid_input"},
		{"unknown component", m, `{"items":[{"sku":"latte","qty":1}],"jurisdictionCode":"US-CA","taxComponents":["city"]}`, 400, "invalid_input"},
		{"metadata value not a string", m, `{"items":[{"sku":"latte","qty":1}],"metadata":{"n":1}}`, 400, "invalid_input"},
		{"metadata value too long", m, `{"items":[{"sku":"latte","qty":1}],"metadata":{"n":"` + strings.Repeat("x", 501) + `"}}`, 400, "invalid_input"},
		{"metadata too many keys", m, `{"items":[{"sku":"latte","qty":1}],"metadata":{` + manyKeys(51) + `}}`, 400, "invalid_input"},
		{"bad country", m, `{"items":[{"sku":"latte","qty":1}],"country":"USA"}`, 400, "invalid_input"},
		{"bad email", m, `{"items":[{"sku":"latte","qty":1}],"buyerEmail":"nope"}`, 400, "invalid_input"},
		{"items not an array", m, `{"items":{"sku":"latte"}}`, 400, "invalid_input"},
		{"invalid beats empty items", m, `{"items":[],"taxRate":2}`, 400, "invalid_input"},
		{"empty items", m, `{"items":[]}`, 400, "items_required"},
		{"missing items", m, `{}`, 400, "items_required"},
		{"empty items before split", noSplit, `{"items":[]}`, 400, "items_required"},
		{"no split", noSplit, `{"items":[{"sku":"latte","qty":1}]}`, 403, "split_required"},
		{"no split before unknown sku", noSplit, `{"items":[{"sku":"nope","qty":1}]}`, 403, "split_required"},
		{"unknown sku", m, `{"items":[{"sku":"nope","qty":1}]}`, 400, "inventory_item_not_found"},
		{"unknown id", m, `{"items":[{"id":"6c1c1e0e-0000-4000-8000-000000000000","qty":1}]}`, 400, "inventory_item_not_found"},
		{"another merchant's sku", e.merchant(true), `{"items":[{"sku":"latte","qty":1}]}`, 400, "inventory_item_not_found"},
	}
	for _, c := range cases {
		rec := e.dev(c.who, http.MethodPost, "/api/orders", c.body)
		env := decode(t, rec)
		if rec.Code != c.status || env["error"] != c.code || env["message"] == "" {
			t.Errorf("%s: %d %v, want %d %s", c.name, rec.Code, env, c.status, c.code)
		}
		if c.code == "inventory_item_not_found" && !strings.Contains(env["message"].(string), "nope") && !strings.Contains(env["message"].(string), "6c1c1e0e") && c.name != "another merchant's sku" {
			t.Errorf("%s: message does not name the item: %v", c.name, env["message"])
		}
	}
	if n := e.count("events WHERE stream_id LIKE 'receipt-%'"); n != 0 {
		t.Fatalf("rejected orders wrote %d receipt events", n)
	}
	noPlatform := newAppEnv(t, func(c *app.Config) { c.PlatformRecipient = "" }, nil, nil)
	pm := noPlatform.merchant(false)
	noPlatform.adminCall(pm.cookies, pm.csrf, http.MethodPost, "/api/split/deploy",
		`{"splitAddress":"0x`+strings.Repeat("c", 40)+`","recipients":[{"address":"`+pm.wallet+`","sharesBps":10000}]}`)
	noPlatform.item(pm, `{"sku":"latte","name":"Latte","priceUsd":4.5}`)
	rec := noPlatform.dev(pm, http.MethodPost, "/api/orders", `{"items":[{"sku":"nope","qty":1}]}`)
	if env := decode(t, rec); rec.Code != 400 || env["error"] != "platform_recipient_not_configured" {
		t.Fatalf("no platform recipient: %d %v", rec.Code, env)
	}
}

func manyKeys(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"k%d":"v"`, i)
	}
	return strings.Join(parts, ",")
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"latte","name":"Latte","priceUsd":4.5}`)
	body := `{"items":[{"sku":"latte","qty":2}]}`
	first := decode(t, e.dev(m, http.MethodPost, "/api/orders", body, "Idempotency-Key", "order-42"))["receipt"].(map[string]any)
	again := e.dev(m, http.MethodPost, "/api/orders", body, "Idempotency-Key", "order-42")
	if again.Code != 200 || decode(t, again)["receipt"].(map[string]any)["receiptId"] != first["receiptId"] {
		t.Fatalf("replay: %d %s", again.Code, again.Body)
	}
	conflict := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"latte","qty":3}]}`, "Idempotency-Key", "order-42")
	if env := decode(t, conflict); conflict.Code != 409 || env["error"] != "idempotency_conflict" {
		t.Fatalf("different body: %d %v", conflict.Code, env)
	}
	// Concurrent duplicates: one receipt.
	var wg sync.WaitGroup
	ids := make([]string, 8)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := e.dev(m, http.MethodPost, "/api/orders", body, "Idempotency-Key", "burst")
			if rec.Code == 200 {
				ids[i] = decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
			} else {
				t.Errorf("burst %d: %d %s", i, rec.Code, rec.Body)
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("concurrent duplicates made different receipts: %v", ids)
		}
	}
	if n := e.count("receipts"); n != 2 {
		t.Fatalf("%d receipts, want 2", n)
	}
	// Another merchant's same key is its own.
	other := e.merchant(true)
	e.item(other, `{"sku":"latte","name":"Latte","priceUsd":4.5}`)
	if r := decode(t, e.dev(other, http.MethodPost, "/api/orders", body, "Idempotency-Key", "order-42"))["receipt"].(map[string]any); r["receiptId"] == first["receiptId"] {
		t.Fatal("idempotency keys leak between merchants")
	}
	// Expired after 24 hours: a new receipt.
	if _, err := e.pool.Exec(context.Background(), `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'order-42'`); err != nil {
		t.Fatal(err)
	}
	if r := decode(t, e.dev(m, http.MethodPost, "/api/orders", body, "Idempotency-Key", "order-42"))["receipt"].(map[string]any); r["receiptId"] == first["receiptId"] {
		t.Fatal("an expired key replayed the old receipt")
	}
}

func TestDirectReceipts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(false)
	ok := `{"id":"inv-1001","lineItems":[{"label":"Consulting","priceUsd":100},{"label":"Travel","priceUsd":25.5}],"totalUsd":125.5,"webhook_url":"http://localhost:9999/hook"}`
	rec := e.dev(m, http.MethodPost, "/api/receipts", ok)
	if rec.Code != 201 {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	r := decode(t, rec)["receipt"].(map[string]any)
	if r["receiptId"] != commands.MerchantReceiptID(m.wallet, "inv-1001") || r["totalUsd"] != 125.5 || r["status"] != "generated" {
		t.Fatalf("receipt %v", r)
	}
	if rec := e.dev(m, http.MethodPost, "/api/receipts", ok); rec.Code != 409 || decode(t, rec)["error"] != "conflict" {
		t.Fatalf("existing id: %d %s", rec.Code, rec.Body)
	}
	for name, body := range map[string]string{
		"total mismatch": `{"lineItems":[{"label":"a","priceUsd":1}],"totalUsd":2}`,
		"no total":       `{"lineItems":[{"label":"a","priceUsd":1}]}`,
		"no lines":       `{"lineItems":[],"totalUsd":0}`,
		"negative line":  `{"lineItems":[{"label":"a","priceUsd":-1}],"totalUsd":-1}`,
		"bad id":         `{"id":"a b","lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1}`,
		"bad webhook":    `{"lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1,"webhook_url":"ftp://x"}`,
	} {
		if rec := e.dev(m, http.MethodPost, "/api/receipts", body); rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
			t.Errorf("%s: %d %s", name, rec.Code, rec.Body)
		}
	}
	// The webhook key is the request's API key, stored encrypted and never in an event.
	got, err := e.webhookKeys.Get(context.Background(), commands.MerchantReceiptID(m.wallet, "inv-1001"))
	if err != nil || got != m.key {
		t.Fatalf("captured key %q, %v", got, err)
	}
	if n := e.count(fmt.Sprintf("receipt_webhook_keys WHERE position('%s' in encode(ciphertext, 'escape')) > 0", m.key)); n != 0 {
		t.Fatal("webhook key stored in clear")
	}
	if n := e.count(fmt.Sprintf("events WHERE data::text LIKE '%%%s%%' OR metadata::text LIKE '%%%s%%'", m.key, m.key)); n != 0 {
		t.Fatal("an API key was written into an event")
	}
	prod := newEnv(t, func(d *testDeps) { d.Config.Production = true })
	pm := prod.merchant(false)
	for _, u := range []string{"http://hooks.example/x", "https://localhost/x", "https://127.0.0.1/x", "https://10.0.0.1/x", "https://[::1]/x", "https://169.254.169.254/x"} {
		body := `{"lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1,"webhook_url":"` + u + `"}`
		if rec := prod.dev(pm, http.MethodPost, "/api/receipts", body); rec.Code != 400 {
			t.Errorf("production webhook %s: %d", u, rec.Code)
		}
	}
	if rec := prod.dev(pm, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1,"webhook_url":"https://hooks.example/x"}`); rec.Code != 201 {
		t.Fatalf("production https webhook: %d %s", rec.Code, rec.Body)
	}
}

func TestReceiptReadsAndIsolation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"latte","name":"Latte","priceUsd":4.5}`)
	// Read-your-writes: create and read at once, 200 times.
	var ids []string
	for i := range 200 {
		r := decode(t, e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"latte","qty":1}],"transactionId":"t`+fmt.Sprint(i)+`"}`))["receipt"].(map[string]any)
		id := r["receiptId"].(string)
		ids = append(ids, id)
		rec := e.dev(m, http.MethodGet, "/api/receipts/status?receiptId="+id, "")
		if rec.Code != 200 {
			t.Fatalf("read %d right after create: %d %s", i, rec.Code, rec.Body)
		}
	}
	st := decode(t, e.dev(m, http.MethodGet, "/api/receipts/status?receiptId="+ids[0], ""))
	for _, f := range []string{"receiptId", "status", "previousStatus", "failureCode", "failureCategory", "failureReason", "failureAction",
		"providerErrorCode", "providerRequestId", "transactionHash", "buyerWallet", "merchantWallet", "totalUsd", "customerTotalUsd",
		"processorSourceAmountUsd", "processorSessionId", "isProcessorSessionUnique", "transactionId", "metadata", "token", "brandKey", "timestamp", "webhookDelivery"} {
		if _, ok := st[f]; !ok {
			t.Errorf("status read lacks %s", f)
		}
	}
	if st["status"] != "generated" || st["failureCode"] != nil || st["merchantWallet"] != m.wallet || st["webhookDelivery"] != "none" {
		t.Fatalf("status %v", st)
	}
	// Lists: newest first, cursor pages, status filter.
	page := decode(t, e.dev(m, http.MethodGet, "/api/receipts?limit=100", ""))
	got := page["receipts"].([]any)
	if len(got) != 100 || got[0].(map[string]any)["receiptId"] != ids[199] || page["next"] == nil {
		t.Fatalf("first page: %d, first %v", len(got), got[0].(map[string]any)["receiptId"])
	}
	seen := map[string]bool{}
	cursor := ""
	for {
		p := decode(t, e.dev(m, http.MethodGet, "/api/receipts?limit=70"+cursor, ""))
		for _, r := range p["receipts"].([]any) {
			seen[r.(map[string]any)["receiptId"].(string)] = true
		}
		if p["next"] == nil {
			break
		}
		cursor = "&cursor=" + p["next"].(string)
	}
	if len(seen) != 200 {
		t.Fatalf("paging saw %d receipts", len(seen))
	}
	if n := len(decode(t, e.dev(m, http.MethodGet, "/api/receipts?status=paid", ""))["receipts"].([]any)); n != 0 {
		t.Fatalf("status filter: %d", n)
	}
	if rec := e.dev(m, http.MethodGet, "/api/receipts?status=weird", ""); rec.Code != 400 {
		t.Fatalf("bad status: %d", rec.Code)
	}
	if rec := e.dev(m, http.MethodGet, "/api/receipts/"+ids[5], ""); rec.Code != 200 || decode(t, rec)["receipt"].(map[string]any)["transactionId"] != "t5" {
		t.Fatalf("get one: %d", rec.Code)
	}
	// Another merchant: 404 everywhere.
	other := e.merchant(true)
	for _, path := range []string{"/api/receipts/" + ids[0], "/api/receipts/status?receiptId=" + ids[0], "/api/receipts/" + ids[0] + "/events", "/api/receipts/nope"} {
		if rec := e.dev(other, http.MethodGet, path, ""); rec.Code != 404 || decode(t, rec)["error"] != "not_found" {
			t.Errorf("%s: %d", path, rec.Code)
		}
	}
	if n := len(decode(t, e.dev(other, http.MethodGet, "/api/receipts", ""))["receipts"].([]any)); n != 0 {
		t.Fatalf("another merchant lists %d receipts", n)
	}
}

func TestAuditHistoryDetectsTampering(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	rec := e.dev(m, http.MethodPost, "/api/receipts", `{"id":"audit-1","lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1}`)
	if rec.Code != 201 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	id := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	h := decode(t, e.dev(m, http.MethodGet, "/api/receipts/"+id+"/events", ""))
	evs := h["events"].([]any)
	if h["chainValid"] != true || len(evs) != 1 || evs[0].(map[string]any)["type"] != "ReceiptGenerated" ||
		evs[0].(map[string]any)["version"] != 1.0 || len(evs[0].(map[string]any)["hash"].(string)) != 64 || evs[0].(map[string]any)["prevHash"] != nil {
		t.Fatalf("history %v", h)
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE events SET data = replace(data::text, '"totalCents":100', '"totalCents":1')::json WHERE stream_id = $1`, "receipt-"+id); err != nil {
		t.Fatal(err)
	}
	h = decode(t, e.dev(m, http.MethodGet, "/api/receipts/"+id+"/events", ""))
	brk, _ := h["brokenAt"].(map[string]any)
	if h["chainValid"] != false || brk == nil || brk["version"] != 1.0 {
		t.Fatalf("tampered history %v", h)
	}
}

// An order never asks for more of an item than the merchant has in stock (stop 60: stockQty had
// no effect, and a sold-out item could be ordered); a stock of -1 is not counted. The quantity is
// summed over the order's lines. Stock is the merchant's count, not reserved by an order.
func TestOrderWithinStock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"mug","name":"Mug","priceUsd":5,"stockQty":2}`)
	e.item(m, `{"sku":"gone","name":"Gone","priceUsd":5,"stockQty":0}`)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":3,"stockQty":-1}`)
	for _, c := range []struct {
		name, items string
		code        int
	}{
		{"within the stock", `[{"sku":"mug","qty":2}]`, 200},
		{"past the stock", `[{"sku":"mug","qty":3}]`, 400},
		{"past it over two lines", `[{"sku":"mug","qty":1},{"sku":"tea","qty":1},{"sku":"mug","qty":2}]`, 400},
		{"sold out", `[{"sku":"gone","qty":1}]`, 400},
		{"not counted", `[{"sku":"tea","qty":1000}]`, 200},
	} {
		rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":`+c.items+`}`)
		if rec.Code != c.code || c.code == 400 && decode(t, rec)["error"] != "invalid_input" {
			t.Errorf("%s: %d %s, want %d", c.name, rec.Code, rec.Body, c.code)
		}
	}
}
