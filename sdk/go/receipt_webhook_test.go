package payledger

import (
	"net/http"
	"strings"
	"testing"
)

// TestVerifyReceiptWebhook checks the verifier of the spec's X-Service-Signature against a
// signature computed apart from Go (Python's hmac over the same bytes and key).
func TestVerifyReceiptWebhook(t *testing.T) {
	const (
		key  = "plk_example_key"
		body = `{"event":"receipt.status_updated","receiptId":"rcpt_1","status":"paid"}`
		sig  = "sha256=72fcbb5d939d9f42bf88f330463f2f4eff62c04a47d4529c268616e180688bb6"
	)
	cases := []struct {
		name      string
		key, body string
		sig       string
		ok        bool
	}{
		{"valid", key, body, sig, true},
		{"hex in upper case", key, body, "sha256=" + strings.ToUpper(sig[7:]), true},
		{"body changed", key, strings.Replace(body, "paid", "failed", 1), sig, false},
		{"body re-serialized", key, strings.ReplaceAll(body, ",", ", "), sig, false},
		{"another key", "plk_other", body, sig, false},
		{"no key", "", body, sig, false},
		{"no prefix", key, body, sig[7:], false},
		{"not hex", key, body, "sha256=zz", false},
		{"no header", key, body, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			if c.sig != "" {
				h.Set("X-Service-Signature", c.sig)
			}
			err := VerifyReceiptWebhook(c.key, h, []byte(c.body))
			if (err == nil) != c.ok {
				t.Fatalf("VerifyReceiptWebhook: %v, want ok=%v", err, c.ok)
			}
			if err != nil && err != ErrReceiptWebhookSignature {
				t.Fatalf("error %v is not ErrReceiptWebhookSignature", err)
			}
		})
	}
}
