package transport

import (
	"net/http"
	"strings"
	"testing"
)

// TestOrderWithTwoBadFieldsNamesTheFirstEveryTime: an order with two bad optional fields is
// refused naming the same field every time (the checks ran over maps, in Go's random order, so
// the message changed from one request to the next).
func TestOrderWithTwoBadFieldsNamesTheFirstEveryTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4}`)
	long201 := strings.Repeat("x", 201)
	for _, tc := range []struct{ fields, want string }{
		{`"redirect_url":"ftp://a","successUrl":"ftp://b"`, "redirect_url must be an http(s) URL"},
		{`"buyerEmail":"x","billingEmail":"y"`, "buyerEmail must be an email address"},
		{`"city":"` + long201 + `","buyerFirstName":"` + long201 + `"`, "buyerFirstName must be at most 200 characters"},
	} {
		for range 20 {
			rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"tea","qty":1}],`+tc.fields+`}`)
			body := decode(t, rec)
			if rec.Code != http.StatusBadRequest || body["message"] != tc.want {
				t.Fatalf("%s: %d %v, want 400 %q", tc.fields, rec.Code, body, tc.want)
			}
		}
	}
}
