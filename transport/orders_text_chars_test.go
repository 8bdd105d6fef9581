package transport

import (
	"net/http"
	"strings"
	"testing"
)

// TestOrderTextBoundsCountCharacters: the optional fields' bounds are in characters, as their
// messages say: a buyer's name, an address line, a transactionId, a postPaymentAction and a
// metadata value written in Japanese (three bytes a character) were refused at a third of their
// bound ("must be at most 200 characters" for 70 characters). One character past a bound is
// still refused, and nothing is stored for it.
func TestOrderTextBoundsCountCharacters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4}`)
	jp := func(n int) string { return strings.Repeat("日", n) }
	order := func(field string) string { return `{"items":[{"sku":"tea","qty":1}],` + field + `}` }
	fields := map[string][2]string{ // field -> the body at its bound, one character past it
		"buyerFirstName":    {`"buyerFirstName":"` + jp(200) + `"`, `"buyerFirstName":"` + jp(201) + `"`},
		"addressLine1":      {`"addressLine1":"` + jp(200) + `"`, `"addressLine1":"` + jp(201) + `"`},
		"transactionId":     {`"transactionId":"` + jp(200) + `"`, `"transactionId":"` + jp(201) + `"`},
		"postPaymentAction": {`"postPaymentAction":"` + jp(2000) + `"`, `"postPaymentAction":"` + jp(2001) + `"`},
		"metadata value":    {`"metadata":{"note":"` + jp(500) + `"}`, `"metadata":{"note":"` + jp(501) + `"}`},
		"metadata key":      {`"metadata":{"` + jp(100) + `":"x"}`, `"metadata":{"` + jp(101) + `":"x"}`},
	}
	for name, bodies := range fields {
		if rec := e.dev(m, http.MethodPost, "/api/orders", order(bodies[0])); rec.Code != http.StatusOK {
			t.Errorf("%s at its bound in characters: %d %s", name, rec.Code, rec.Body)
		}
		before := e.count("receipts")
		rec := e.dev(m, http.MethodPost, "/api/orders", order(bodies[1]))
		if env := decode(t, rec); rec.Code != http.StatusBadRequest || env["error"] != "invalid_input" {
			t.Errorf("%s one character past its bound: %d %s", name, rec.Code, rec.Body)
		}
		if after := e.count("receipts"); after != before {
			t.Errorf("%s past its bound stored a receipt", name)
		}
	}
}
