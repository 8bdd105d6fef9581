package payledger_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	payledger "github.com/payledger/payledger/sdk/go"
)

// pagedReceipts serves GET /api/receipts as three pages of two (cursors c1, c2), and a 400 for
// any other cursor; it counts the pages it served.
func pagedReceipts(t *testing.T, served *atomic.Int32) *httptest.Server {
	pages := map[string]string{
		"":   `{"receipts":[{"receiptId":"r1"},{"receiptId":"r2"}],"next":"c1"}`,
		"c1": `{"receipts":[{"receiptId":"r3"},{"receiptId":"r4"}],"next":"c2"}`,
		"c2": `{"receipts":[{"receiptId":"r5"}],"next":null}`,
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("limit") != "2" {
			t.Errorf("page asked with %q: the params' limit is lost", r.URL.RawQuery)
		}
		body, ok := pages[r.URL.Query().Get("cursor")]
		if !ok {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"invalid_input","message":"cursor is not one this API issued"}`)
			return
		}
		fmt.Fprint(w, body)
	}))
}

func TestAllReceiptsWalksEveryPage(t *testing.T) {
	var served atomic.Int32
	srv := pagedReceipts(t, &served)
	defer srv.Close()
	client, err := payledger.New(srv.URL, "k")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for r, err := range client.AllReceipts(context.Background(), &payledger.ListReceiptsParams{Limit: new(2)}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ReceiptId)
	}
	if fmt.Sprint(ids) != "[r1 r2 r3 r4 r5]" || served.Load() != 3 {
		t.Errorf("walked %v in %d pages, want r1…r5 in 3", ids, served.Load())
	}

	served.Store(0)
	for r := range client.AllReceipts(context.Background(), &payledger.ListReceiptsParams{Limit: new(2)}) {
		if r.ReceiptId == "r3" {
			break
		}
	}
	if served.Load() != 2 {
		t.Errorf("a loop that broke on the second page fetched %d pages", served.Load())
	}

	var apiErr *payledger.APIError
	for _, err := range client.AllReceipts(context.Background(), &payledger.ListReceiptsParams{Limit: new(2), Cursor: new("forged")}) {
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Envelope.Error != payledger.ErrorErrorInvalidInput {
			t.Errorf("a refused page: %v", err)
		}
	}
	if apiErr == nil {
		t.Error("a refused page yielded nothing")
	}
}

// TestAllReceiptsAgainstTheBinary: pages of 2 walk the same receipts as one page of 100 (the
// binary of sdk/run-examples.sh has made a few by the time this runs, or makes 3 here).
func TestAllReceiptsAgainstTheBinary(t *testing.T) {
	ctx, client := binaryClient(t)
	for range 3 {
		if res, err := client.CreateOrderWithResponse(ctx, nil, payledger.CreateOrderJSONRequestBody{Items: []payledger.OrderItem{{Sku: "DEV-COFFEE", Qty: 1}}}); err != nil || res.JSON200 == nil {
			t.Fatalf("order: %v %s", err, describe(res))
		}
	}
	one, err := client.ListReceiptsWithResponse(ctx, &payledger.ListReceiptsParams{Limit: new(100)})
	if err != nil || one.JSON200 == nil {
		t.Fatalf("list: %v %s", err, describe(one))
	}
	var want, got []string
	for _, r := range one.JSON200.Receipts {
		want = append(want, r.ReceiptId)
	}
	for r, err := range client.AllReceipts(ctx, &payledger.ListReceiptsParams{Limit: new(2)}) {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, r.ReceiptId); len(got) == len(want) {
			break // as far as the one page went (the package's tests run one at a time: none is made meanwhile)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pages of 2 walked %v, one page %v", got, want)
	}
}
