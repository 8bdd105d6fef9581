package payledger_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"testing"
	"time"

	payledger "github.com/payledger/payledger/sdk/go"
)

// answered is what every generated response has: its HTTP status and raw body.
type answered interface{ StatusCode() int }

// TestDeveloperReadsAgainstTheBinary calls the developer API's reads with no optional parameter
// set on the real binary (sdk/run-examples.sh starts one) and expects each to answer, then writes
// the zero values the service reads differently from their absence: an inventory update to
// taxable false and stock 0, and an order of a taxable item with jurisdictionCode and taxRate 0.
// The generated client used to send limit=0, from=0&to=0… on every read (400s) and to drop false
// and 0 from bodies (the item stayed taxable and in stock, the order was taxed).
func TestDeveloperReadsAgainstTheBinary(t *testing.T) {
	ctx, client := binaryClient(t)
	reads := map[string]func() (answered, error){
		"listInventory": func() (answered, error) {
			return client.ListInventoryWithResponse(ctx, &payledger.ListInventoryParams{})
		},
		"listReceipts": func() (answered, error) { return client.ListReceiptsWithResponse(ctx, &payledger.ListReceiptsParams{}) },
		"exportReceipts": func() (answered, error) {
			return client.ExportReceiptsCsvWithResponse(ctx, &payledger.ExportReceiptsCsvParams{})
		},
		"exportSplitTransactions": func() (answered, error) {
			return client.ExportSplitTransactionsCsvWithResponse(ctx, &payledger.ExportSplitTransactionsCsvParams{})
		},
		"listSplitTransactions": func() (answered, error) {
			return client.ListSplitTransactionsWithResponse(ctx, &payledger.ListSplitTransactionsParams{})
		},
		"listWebhookDeliveries": func() (answered, error) {
			return client.ListWebhookDeliveriesWithResponse(ctx, &payledger.ListWebhookDeliveriesParams{})
		},
		"searchUsers": func() (answered, error) { return client.SearchUsersWithResponse(ctx, &payledger.SearchUsersParams{}) },
		"getShopConfig": func() (answered, error) {
			return client.GetShopConfigWithResponse(ctx, &payledger.GetShopConfigParams{})
		},
		"getTaxCatalog": func() (answered, error) {
			return client.GetTaxCatalogWithResponse(ctx, &payledger.GetTaxCatalogParams{})
		},
	}
	for name, read := range reads {
		res, err := read()
		if err != nil || reflect.ValueOf(res).IsNil() || res.StatusCode() != 200 {
			t.Errorf("%s with no parameter set: %v %s", name, err, describe(res))
		}
	}

	sku := fmt.Sprintf("SDK-ZERO-%d", time.Now().UnixNano())
	upsert := func(stock int, taxable bool) payledger.Item {
		t.Helper()
		res, err := client.UpsertInventoryItemWithResponse(ctx, nil, payledger.UpsertInventoryItemJSONRequestBody{
			Sku: sku, Name: "Zero", PriceUsd: new(json.Number("2")), StockQty: &stock, Taxable: &taxable})
		switch {
		case err != nil:
			t.Fatal(err)
		case res.JSON201 != nil:
			return res.JSON201.Item
		case res.JSON200 != nil:
			return res.JSON200.Item
		}
		t.Fatalf("upsert %s: %s", sku, describe(res))
		return payledger.Item{}
	}
	upsert(5, true)
	if it := upsert(0, false); it.Taxable || it.StockQty != 0 {
		t.Errorf("after an update to taxable false and stock 0 the item is taxable %v, stock %d", it.Taxable, it.StockQty)
	}
	upsert(5, true)
	order, err := client.CreateOrderWithResponse(ctx, nil, payledger.CreateOrderJSONRequestBody{
		Items: []payledger.OrderItem{{Sku: sku, Qty: 1}}, JurisdictionCode: "US-CA", TaxRate: new(json.Number("0"))})
	if err != nil || order.JSON200 == nil {
		t.Fatalf("order: %v %s", err, describe(order))
	}
	if r := order.JSON200.Receipt; !isZero(r.TaxUsd) || !isZero(r.TaxRate) {
		t.Errorf("an order with taxRate 0 is taxed %v (rate %v)", r.TaxUsd, r.TaxRate)
	}
}

// TestCreateReceiptRetryAgainstTheBinary: a retry of POST /api/receipts under the same
// Idempotency-Key returns the first receipt, and another body under it is idempotency_conflict.
func TestCreateReceiptRetryAgainstTheBinary(t *testing.T) {
	ctx, client := binaryClient(t)
	params := &payledger.CreateReceiptParams{IdempotencyKey: new(fmt.Sprintf("sdk-retry-%d", time.Now().UnixNano()))}
	create := func(price json.Number) *payledger.CreateReceiptResponse {
		t.Helper()
		res, err := client.CreateReceiptWithResponse(ctx, params, payledger.CreateReceiptJSONRequestBody{
			LineItems: []payledger.LineItemInput{{Label: "Retry", PriceUsd: &price}}, TotalUsd: price})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first, again := create("1.5"), create("1.5")
	if first.JSON201 == nil || again.JSON201 == nil || first.JSON201.Receipt.ReceiptId != again.JSON201.Receipt.ReceiptId {
		t.Fatalf("a retry under the same key: %s, then %s", describe(first), describe(again))
	}
	if other := create("2.5"); other.JSON409 == nil || other.JSON409.Error != payledger.ErrorErrorIdempotencyConflict {
		t.Errorf("another body under the key: %s", describe(other))
	}
}

// describe is an answer's status and body (every generated response has a Body field).
func describe(res answered) string {
	v := reflect.ValueOf(res)
	if res == nil || v.IsNil() {
		return "no answer"
	}
	return fmt.Sprintf("%d %s", res.StatusCode(), v.Elem().FieldByName("Body").Bytes())
}

// isZero says whether an amount the service wrote is 0, however many decimals it wrote.
func isZero(n json.Number) bool {
	r, ok := new(big.Rat).SetString(n.String())
	return ok && r.Sign() == 0
}
