package transport

import (
	"net/http"
	"testing"
)

// A retried order or direct receipt answered from its Idempotency-Key's binding says so with
// Idempotent-Replayed: true, as every other POST's replay does (docs/decisions.md, issue 29): the
// two routes that bind the key themselves answered a replay exactly like a new receipt, so a
// client could not tell that its retry created nothing.
func TestOrderAndReceiptReplaysSayReplayed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4}`)
	for path, body := range map[string]string{
		"/api/orders":   `{"items":[{"sku":"tea","qty":1}]}`,
		"/api/receipts": `{"lineItems":[{"label":"x","priceUsd":1}],"totalUsd":1}`,
	} {
		first := e.dev(m, http.MethodPost, path, body, "Idempotency-Key", "replay-"+path)
		if first.Code/100 != 2 || first.Header().Get(idemReplayed) != "" {
			t.Fatalf("%s first: %d %s (replayed %q)", path, first.Code, first.Body, first.Header().Get(idemReplayed))
		}
		again := e.dev(m, http.MethodPost, path, body, "Idempotency-Key", "replay-"+path)
		id := decode(t, first)["receipt"].(map[string]any)["receiptId"]
		if again.Code != first.Code || decode(t, again)["receipt"].(map[string]any)["receiptId"] != id || again.Header().Get(idemReplayed) != "true" {
			t.Fatalf("%s replay: %d %s (replayed %q)", path, again.Code, again.Body, again.Header().Get(idemReplayed))
		}
		// Without a key, or with a new one, nothing is replayed.
		for _, extra := range [][]string{nil, {"Idempotency-Key", "other-" + path}} {
			if rec := e.dev(m, http.MethodPost, path, body, extra...); rec.Code/100 != 2 || rec.Header().Get(idemReplayed) != "" {
				t.Fatalf("%s %v: %d (replayed %q)", path, extra, rec.Code, rec.Header().Get(idemReplayed))
			}
		}
	}
}
