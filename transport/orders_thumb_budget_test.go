package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
)

// A receipt copies at most commands.MaxReceiptThumbBytes of item pictures: a 10 KB order of 500
// lines of one item with a 64 KiB picture stored a 32 MB event, and its payment page and public
// JSON (anyone with the link) were 32 MB each. Lines past the budget show the placeholder.
func TestOrderPicturesAreBoundedPerReceipt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	thumb := "data:image/png;base64," + strings.Repeat("A", 64<<10-len("data:image/png;base64,"))
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4,"thumb":"`+thumb+`"}`)
	lines := strings.TrimSuffix(strings.Repeat(`{"sku":"tea","qty":1},`, 500), ",")
	rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[`+lines+`]}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("order: %d %.300s", rec.Code, rec.Body)
	}
	if rec.Body.Len() > 2*commands.MaxReceiptThumbBytes {
		t.Fatalf("the order's answer is %d bytes", rec.Body.Len())
	}
	r := decode(t, rec)["receipt"].(map[string]any)
	id, items := r["receiptId"].(string), r["lineItems"].([]any)
	pictured := 0
	for _, l := range items[:500] {
		switch got := l.(map[string]any)["thumb"].(string); {
		case got == thumb:
			pictured++
		case !strings.HasPrefix(got, "data:image/svg+xml;base64,"):
			t.Fatalf("a line past the budget has thumb %.60s", got)
		}
	}
	if pictured != commands.MaxReceiptThumbBytes/len(thumb) {
		t.Fatalf("%d lines kept the picture, want %d", pictured, commands.MaxReceiptThumbBytes/len(thumb))
	}
	var stored int
	if err := e.pool.QueryRow(context.Background(), `SELECT octet_length(data::text) FROM events WHERE stream_id = $1`, "receipt-"+id).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored > 2*commands.MaxReceiptThumbBytes {
		t.Fatalf("the generation event is %d bytes", stored)
	}
	for _, path := range []string{"/pay/" + id, "/api/portal/" + id} {
		if rec := e.do(req{method: http.MethodGet, path: path}); rec.Code != http.StatusOK || rec.Body.Len() > 2*commands.MaxReceiptThumbBytes {
			t.Fatalf("%s: %d, %d bytes", path, rec.Code, rec.Body.Len())
		}
	}
	// An ordinary order keeps every picture.
	small := decode(t, e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"tea","qty":1},{"sku":"tea","qty":2}]}`))["receipt"].(map[string]any)
	for _, l := range small["lineItems"].([]any)[:2] {
		if l.(map[string]any)["thumb"] != thumb {
			t.Fatalf("a two-line order lost its picture: %.80v", l)
		}
	}
}
