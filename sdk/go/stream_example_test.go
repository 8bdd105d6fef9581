package payledger_test

import (
	"bufio"
	"strings"
	"testing"

	payledger "github.com/payledger/payledger/sdk/go"
)

// TestWebhookStreamAgainstTheBinary reads GET /api/webhooks/stream the way the README says: with
// the raw StreamWebhooks, whose body is read as events arrive (StreamWebhooksWithResponse reads
// the body to its end, which a stream never reaches). An order created after it opens arrives as
// its receipt.created event.
func TestWebhookStreamAgainstTheBinary(t *testing.T) {
	ctx, client := binaryClient(t)
	stream, err := client.StreamWebhooks(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != 200 || !strings.HasPrefix(stream.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", stream.StatusCode, stream.Header.Get("Content-Type"))
	}
	order, err := client.CreateOrderWithResponse(ctx, nil, payledger.CreateOrderJSONRequestBody{Items: []payledger.OrderItem{{Sku: "DEV-COFFEE", Qty: 1}}})
	if err != nil || order.JSON200 == nil {
		t.Fatalf("order: %v %s", err, describe(order))
	}
	id := order.JSON200.Receipt.ReceiptId
	lines, event := bufio.NewScanner(stream.Body), ""
	for lines.Scan() {
		line := lines.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
		}
		if strings.HasPrefix(line, "data: ") && event == "receipt.created" && strings.Contains(line, id) {
			return
		}
	}
	t.Fatalf("the stream ended (%v) before %s's receipt.created", lines.Err(), id)
}
