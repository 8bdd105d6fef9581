package transport

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

// Issue 20, item 8: Go native fuzz targets for the JSON request decoding and for every route that
// takes a JSON body, run by `make fuzz` (CI) for a short fixed time each. Found cases are kept by
// go test under testdata/fuzz/<target>/ and replayed by every plain `go test` run.
//
// The seeds are a valid body per route, written from the request schemas of docs/openapi.yaml
// (it has no request examples), and the malformed bodies of TestMalformedBodies.

// validBodies are valid request bodies, one per entry of jsonRoutes (same order).
func validBodies(receiptID string) []string {
	wallet := `"0x` + strings.Repeat("a", 40) + `"`
	return []string{
		`{"wallet":` + wallet + `}`,
		`{"wallet":` + wallet + `,"signature":"0x` + strings.Repeat("1", 130) + `"}`,
		`{"name":"ci","scopes":["orders:create","receipts:read"]}`,
		`{"slug":"my-shop","name":"My Shop"}`,
		`{"processingFeePct":1.5,"defaultPaymentToken":"USDC","theme":{"primaryColor":"#112233"}}`,
		`{"splitAddress":"0x` + strings.Repeat("c", 40) + `"}`,
		`{"sku":"mug","name":"Mug","priceUsd":12.5,"currency":"USD","stockQty":3}`,
		`{"items":[{"sku":"mug","qty":1}],"currency":"USD","jurisdictionCode":"US-CA"}`,
		`{"lineItems":[{"label":"A","priceUsd":5}],"totalUsd":5}`,
		`{"id":"evt_fuzz","type":"crypto.onramp_session.updated","created":1800000000,"data":{"sessionId":"cos_1","receiptId":"` + receiptID + `","attemptId":"a1","status":"fulfillment_processing"}}`,
		`{"event":"link_opened","attemptId":"a1"}`,
		`{"token":"USDC","transactionHash":"0x` + strings.Repeat("ab", 32) + `","buyerWallet":` + wallet + `}`,
		`{"token":"USDC"}`,
		`{"receiptId":"` + receiptID + `","amountUsd":1,"reason":"damaged"}`,
		`{"action":"display","amountUsd":3.5,"label":"Coffee"}`,
		`{"eurUsd":1.08,"tokens":{"ETH":3000,"USDC":1}}`,
		`{"displayName":"Ann","domains":["shop.example"]}`,
		`{"live":true,"platform":"web"}`,
		`{"wallet":"0x` + strings.Repeat("d", 40) + `"}`,
	}
}

// malformedBodies are the cases of TestMalformedBodies (but the over-size one) for r.
func malformedBodies(r jsonRoute) []string {
	return []string{``, `{"` + r.field + `":`, `[{"` + r.field + `":"x"}]`, `"x"`, `null`, r.wrongType, r.null,
		`{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
		`{"` + r.field + `":"\xff\xfe"}`, `{"` + r.field + `":"a\u0000b"}`, `{"` + r.field + `":1e400}`,
		`{"` + r.field + `":"a","` + r.field + `":"a"}`, `{"` + r.field + `":"a","` + strings.ToUpper(r.field) + `":"a"}`,
		`{"zzUnknown":1}`, `{} {}`}
}

// requestTargets are request types of the JSON routes, the last one decoded as a signed event.
var requestTargets = []func() any{
	func() any { return new(orderRequest) },
	func() any { return new(directReceiptRequest) },
	func() any { return new(itemRequest) },
	func() any { return new(createKeyRequest) },
	func() any { return new(siteConfigRequest) },
	func() any { return new(pricingRequest) },
	func() any { return new(processorEvent) },
}

// FuzzDecodeRequest: the strict decoder never panics, and refuses with 400 invalid_input only;
// whatever it accepts is valid UTF-8 JSON.
func FuzzDecodeRequest(f *testing.F) {
	for i, r := range jsonRoutes("rcpt_0123456789abcdef0123") {
		for _, b := range append(malformedBodies(r), validBodies("rcpt_0123456789abcdef0123")[i]) {
			f.Add(uint8(i), []byte(b))
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		i := int(kind) % len(requestTargets)
		v := requestTargets[i]()
		var err error
		if i == len(requestTargets)-1 {
			err = decodeEvent(body, v)
		} else {
			err = decodeBytes(body, v)
		}
		if err == nil {
			if !utf8.Valid(body) || !json.Valid(body) {
				t.Fatalf("accepted %q, not valid UTF-8 JSON", body)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) || e.Status != http.StatusBadRequest || e.Code != "invalid_input" || e.Message == "" {
			t.Fatalf("refused %q with %#v, want 400 invalid_input with a message", body, err)
		}
	})
}

// FuzzJSONRoutes sends the body to one of the JSON routes (jsonRoutes, by index) through the real
// router and store, as its caller would (key, session and CSRF, or the processor's signature).
// Properties: no panic, no 5xx, the error envelope on every 4xx, and nothing written for a
// refused request.
func FuzzJSONRoutes(f *testing.F) {
	e := newEnv(f, nil)
	m := e.merchant(true)
	ac, acsrf := e.login(e.admin)
	id := e.receiptFor(m, "10.00")
	routes := jsonRoutes(id)
	valid := validBodies(id)
	for i, r := range routes {
		f.Add(uint8(i), []byte(valid[i]))
		for _, b := range malformedBodies(r) {
			f.Add(uint8(i), []byte(b))
		}
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		e.t = t // the helpers report to the running case
		r := routes[int(route)%len(routes)]
		before := e.tableCounts()
		rec := e.send(r, m, ac, acsrf, string(body))
		if rec.Code >= 500 {
			t.Fatalf("%s %q: %d %s", r.path, body, rec.Code, clip(rec.Body.String()))
		}
		if rec.Code < 400 {
			return
		}
		var envelope map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &envelope); err != nil {
			t.Fatalf("%s %q: %d, body %q is not a JSON object", r.path, body, rec.Code, clip(rec.Body.String()))
		}
		if s, _ := envelope["error"].(string); s == "" {
			t.Fatalf("%s %q: %d without an error code: %v", r.path, body, rec.Code, envelope)
		}
		if s, _ := envelope["message"].(string); s == "" {
			t.Fatalf("%s %q: %d without a message: %v", r.path, body, rec.Code, envelope)
		}
		if after := e.tableCounts(); after != before {
			t.Fatalf("%s %q: refused with %d but rows changed: %s -> %s", r.path, body, rec.Code, before, after)
		}
	})
}
