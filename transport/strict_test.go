package transport

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// Issue 20, item 1 and "Hostile input": each JSON field takes only its own JSON type; the wrong
// type is 400 invalid_input naming the field, and nothing is written.
func TestStrictJSONTypes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	ac, acsrf := e.login(e.admin)
	type call struct {
		name, path, body, field, table string
		admin                          bool
		cookies                        bool
	}
	cases := []call{
		{"inventory priceUsd string", "/api/inventory", `{"sku":"mug","name":"Mug","priceUsd":"12"}`, "priceUsd", "inventory_items", false, false},
		{"inventory priceUsd decimal string", "/api/inventory", `{"sku":"mug","name":"Mug","priceUsd":"12.5"}`, "priceUsd", "inventory_items", false, false},
		{"inventory stockQty string", "/api/inventory", `{"sku":"mug","name":"Mug","priceUsd":1,"stockQty":"3"}`, "stockQty", "inventory_items", false, false},
		{"inventory taxable string", "/api/inventory", `{"sku":"mug","name":"Mug","priceUsd":1,"taxable":"true"}`, "taxable", "inventory_items", false, false},
		{"inventory name number", "/api/inventory", `{"sku":"mug","name":12,"priceUsd":1}`, "name", "inventory_items", false, false},
		{"order qty string", "/api/orders", `{"items":[{"sku":"mug","qty":"1"}]}`, "qty", "events", false, false},
		{"order taxRate string", "/api/orders", `{"items":[{"sku":"mug","qty":1}],"taxRate":"0.1"}`, "taxRate", "events", false, false},
		{"receipt totalUsd string", "/api/receipts", `{"lineItems":[{"label":"A","priceUsd":5}],"totalUsd":"5"}`, "totalUsd", "events", false, false},
		{"receipt line priceUsd string", "/api/receipts", `{"lineItems":[{"label":"A","priceUsd":"5"}],"totalUsd":5}`, "priceUsd", "events", false, false},
		{"terminal amountUsd string", "/api/receipts/terminal", `{"action":"display","amountUsd":"12.5","label":"Coffee"}`, "amountUsd", "events", true, true},
		{"pricing eurUsd string", "/api/pricing/config", `{"eurUsd":"12.5"}`, "eurUsd", "prices", true, false},
		{"pricing token string", "/api/pricing/config", `{"tokens":{"ETH":"3000"}}`, "ETH", "prices", true, false},
		{"pricing eurUsd 1e400", "/api/pricing/config", `{"eurUsd":1e400}`, "1e400", "prices", true, false},
		{"pricing eurUsd out of range", "/api/pricing/config", `{"eurUsd":1e300}`, "eurUsd", "prices", true, false},
		{"pricing token out of range", "/api/pricing/config", `{"tokens":{"ETH":0.0000000001}}`, "ETH", "prices", true, false},
		{"site fee string", "/api/site/config", `{"processingFeePct":"1.5"}`, "processingFeePct", "site_config", true, false},
	}
	e.item(m, `{"sku":"mug","name":"Mug","priceUsd":5}`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.count(c.table)
			var r *httptest.ResponseRecorder
			switch {
			case c.cookies: // the merchant's own session
				r = e.adminCall(m.cookies, m.csrf, http.MethodPost, c.path, c.body)
			case c.admin:
				r = e.adminCall(ac, acsrf, http.MethodPost, c.path, c.body)
			default:
				r = e.dev(m, http.MethodPost, c.path, c.body)
			}
			code, body := r.Code, decode(t, r)
			if code != 400 || body["error"] != "invalid_input" || !strings.Contains(body["message"].(string), c.field) {
				t.Fatalf("%s: %d %v, want 400 invalid_input naming %s", c.body, code, body, c.field)
			}
			if after := e.count(c.table); after != before {
				t.Fatalf("%s: %s rows %d -> %d", c.body, c.table, before, after)
			}
		})
	}
	// The right types still pass.
	if rec := e.adminCall(ac, acsrf, http.MethodPost, "/api/pricing/config", `{"tokens":{"ETH":3000},"eurUsd":1.08}`); rec.Code != 200 {
		t.Fatalf("valid pricing: %d %s", rec.Code, rec.Body)
	}
}

// Hostile input: invalid UTF-8 or a NUL anywhere in a body is 400 invalid_input, never a 500; a
// correctly signed processor event with bad bytes is refused likewise and nothing is recorded.
func TestInvalidUTF8IsInvalidInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "10.00")
	for _, field := range []string{"id", "type", "requestId", "errorCode"} {
		before, events := e.count("processor_events"), e.count("events")
		evtID, typ, extra := "evt_utf8_"+field, "crypto.onramp_session.updated", ""
		switch field {
		case "id":
			evtID = "evt_\xff"
		case "type":
			typ = "bad\xfe"
		default:
			extra = `,"` + field + `":"req_\xff\xfe"`
		}
		body := `{"id":"` + evtID + `","type":"` + typ + `","created":` + strconv.FormatInt(e.clk.Now().Unix(), 10) +
			`,"data":{"sessionId":"cos_1","receiptId":"` + id + `","attemptId":"att_1","status":"rejected"` + extra + `}}`
		rec := e.do(req{method: http.MethodPost, path: "/api/processor/webhook", body: body,
			header: map[string]string{"Processor-Signature": sign(testProcessorSecret, e.clk.Now().Unix(), body)}})
		if rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
			t.Fatalf("signed event with invalid UTF-8 in %s: %d %s", field, rec.Code, rec.Body)
		}
		if e.count("processor_events") != before || e.count("events") != events {
			t.Fatalf("%s: something was stored", field)
		}
	}
	for _, body := range []string{`{"sku":"m\xffug","name":"Mug","priceUsd":1}`, `{"sku":"mug","name":"M\u0000ug","priceUsd":1}`} {
		if rec := e.dev(m, http.MethodPost, "/api/inventory", body); rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
			t.Fatalf("%q: %d %s", body, rec.Code, rec.Body)
		}
	}
}
