package payledger_test

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	payledger "github.com/payledger/payledger/sdk/go"
)

// TestWebhookStreamAgainstTheBinary reads GET /api/webhooks/stream the way the README says: with
// the raw StreamWebhooks, whose body is read as events arrive (StreamWebhooksWithResponse reads
// the body to its end, which a stream never reaches). An order created after it opens arrives as
// its receipt.created event.
func TestWebhookStreamAgainstTheBinary(t *testing.T) {
	base, apiKey := os.Getenv("PAYLEDGER_BASE_URL"), os.Getenv("PAYLEDGER_API_KEY")
	if base == "" || apiKey == "" {
		t.Skip("PAYLEDGER_BASE_URL and PAYLEDGER_API_KEY unset: run sdk/run-examples.sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := payledger.New(base, apiKey)
	if err != nil {
		t.Fatal(err)
	}
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
