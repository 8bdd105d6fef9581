package payledger_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	payledger "github.com/payledger/payledger/sdk/go"
)

const someBase = "http://payledger.test"

// TestUnsetParamsAreNotSent: a request with no optional parameter set asks for nothing more.
// The generated client sent every plain optional parameter, set or not (limit=0, from=0&to=0,
// taxable=false, customer=&merchant=…), which made every list and export with default params
// a 400 and a user search a search for xp 0; an empty Idempotency-Key header was a 400 as well.
func TestUnsetParamsAreNotSent(t *testing.T) {
	build := map[string]func() (*http.Request, error){
		"listInventory": func() (*http.Request, error) {
			return payledger.NewListInventoryRequest(someBase, &payledger.ListInventoryParams{})
		},
		"listReceipts": func() (*http.Request, error) {
			return payledger.NewListReceiptsRequest(someBase, &payledger.ListReceiptsParams{})
		},
		"exportReceipts": func() (*http.Request, error) {
			return payledger.NewExportReceiptsCsvRequest(someBase, &payledger.ExportReceiptsCsvParams{})
		},
		"exportSplitTransactions": func() (*http.Request, error) {
			return payledger.NewExportSplitTransactionsCsvRequest(someBase, &payledger.ExportSplitTransactionsCsvParams{})
		},
		"listSplitTransactions": func() (*http.Request, error) {
			return payledger.NewListSplitTransactionsRequest(someBase, &payledger.ListSplitTransactionsParams{})
		},
		"listWebhookDeliveries": func() (*http.Request, error) {
			return payledger.NewListWebhookDeliveriesRequest(someBase, &payledger.ListWebhookDeliveriesParams{})
		},
		"listEndpointDeliveries": func() (*http.Request, error) {
			return payledger.NewListEndpointDeliveriesRequest(someBase, "ep", &payledger.ListEndpointDeliveriesParams{})
		},
		"searchUsers": func() (*http.Request, error) {
			return payledger.NewSearchUsersRequest(someBase, &payledger.SearchUsersParams{})
		},
		"getShopConfig": func() (*http.Request, error) {
			return payledger.NewGetShopConfigRequest(someBase, &payledger.GetShopConfigParams{})
		},
		"getTaxCatalog": func() (*http.Request, error) {
			return payledger.NewGetTaxCatalogRequest(someBase, &payledger.GetTaxCatalogParams{})
		},
	}
	for name, newRequest := range build {
		req, err := newRequest()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if req.URL.RawQuery != "" {
			t.Errorf("%s with no parameter set sends ?%s", name, req.URL.RawQuery)
		}
	}
	req, err := payledger.NewCreateOrderRequest(someBase, &payledger.CreateOrderParams{}, payledger.CreateOrderJSONRequestBody{})
	if err != nil {
		t.Fatal(err)
	}
	if v, sent := req.Header["Idempotency-Key"]; sent {
		t.Errorf("an order with no Idempotency-Key set sends Idempotency-Key: %q", v)
	}
}

// TestZeroValuesAreSent: an optional boolean or number set to false or 0 is sent, since the
// service reads it differently from its absence (an update to taxable false, a stock of 0, a
// tax rate of 0, an export from the epoch).
func TestZeroValuesAreSent(t *testing.T) {
	item, err := payledger.NewUpsertInventoryItemRequest(someBase, nil, payledger.UpsertInventoryItemJSONRequestBody{
		Sku: "S", Name: "N", PriceUsd: new(json.Number("0")), StockQty: new(0), Taxable: new(false)})
	if err != nil {
		t.Fatal(err)
	}
	if got := bodyFields(t, item); got["priceUsd"] != 0.0 || got["stockQty"] != 0.0 || got["taxable"] != false {
		t.Errorf("inventory body %v lacks priceUsd 0, stockQty 0 or taxable false", got)
	}
	order, err := payledger.NewCreateOrderRequest(someBase, nil, payledger.CreateOrderJSONRequestBody{
		Items: []payledger.OrderItem{{Sku: "S", Qty: 1}}, JurisdictionCode: "US-CA", TaxRate: new(json.Number("0"))})
	if err != nil {
		t.Fatal(err)
	}
	if got := bodyFields(t, order); got["taxRate"] != 0.0 {
		t.Errorf("order body %v lacks taxRate 0", got)
	}
	receipt, err := payledger.NewCreateReceiptRequest(someBase, nil, payledger.CreateReceiptJSONRequestBody{
		LineItems: []payledger.LineItemInput{{Label: "free", PriceUsd: new(json.Number("0"))}, {Label: "paid", PriceUsd: new(json.Number("1"))}}, TotalUsd: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := bodyFields(t, receipt); got["lineItems"].([]any)[0].(map[string]any)["priceUsd"] != 0.0 {
		t.Errorf("receipt body %v lacks the free line's priceUsd 0", got)
	}
	list, err := payledger.NewListInventoryRequest(someBase, &payledger.ListInventoryParams{Taxable: new(false)})
	if err != nil {
		t.Fatal(err)
	}
	if list.URL.RawQuery != "taxable=false" {
		t.Errorf("inventory of untaxed items asks ?%s", list.URL.RawQuery)
	}
	export, err := payledger.NewExportReceiptsCsvRequest(someBase, &payledger.ExportReceiptsCsvParams{From: new(0)})
	if err != nil {
		t.Fatal(err)
	}
	if export.URL.RawQuery != "from=0" {
		t.Errorf("export from the epoch asks ?%s", export.URL.RawQuery)
	}
}

// TestCreateReceiptTakesAnIdempotencyKey: a receipt created directly can be retried safely, as an
// order can; the document did not name the header the service honours, so the client had no way
// to send it but a hand-written request editor, and a retry after a timeout made a second receipt.
func TestCreateReceiptTakesAnIdempotencyKey(t *testing.T) {
	req, err := payledger.NewCreateReceiptRequest(someBase, &payledger.CreateReceiptParams{IdempotencyKey: new("retry-1")},
		payledger.CreateReceiptJSONRequestBody{LineItems: []payledger.LineItemInput{{Label: "a", PriceUsd: new(json.Number("1"))}}, TotalUsd: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := req.Header.Get("Idempotency-Key"); got != "retry-1" {
		t.Errorf("Idempotency-Key %q, want retry-1", got)
	}
}

func bodyFields(t *testing.T, req *http.Request) map[string]any {
	t.Helper()
	raw, err := io.ReadAll(req.Body)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return fields
}

// TestAmountsKeepTheServicesDecimals: an amount reads as the service wrote it and is sent back
// as written. As float64 (the generator's default) 0.1 + 0.2 of two line items summed to
// 0.30000000000000004, and a fee rate written to 12 places came back rounded.
func TestAmountsKeepTheServicesDecimals(t *testing.T) {
	var r payledger.Receipt
	if err := json.Unmarshal([]byte(`{"totalUsd": 90071992547409.93, "taxRate": 0.072500000001}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.TotalUsd.String() != "90071992547409.93" || r.TaxRate.String() != "0.072500000001" {
		t.Errorf("read totalUsd %s, taxRate %s", r.TotalUsd, r.TaxRate)
	}
	receipt, err := payledger.NewCreateReceiptRequest(someBase, nil, payledger.CreateReceiptJSONRequestBody{
		LineItems: []payledger.LineItemInput{{Label: "a", PriceUsd: new(json.Number("0.1"))}, {Label: "b", PriceUsd: new(json.Number("0.2"))}},
		TotalUsd:  "0.3"})
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(receipt.Body)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"totalUsd":0.3`; !strings.Contains(string(body), want) {
		t.Errorf("the body %s lacks %s", body, want)
	}
}
