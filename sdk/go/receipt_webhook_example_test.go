package payledger_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	payledger "github.com/payledger/payledger/sdk/go"
)

// TestReceiptWebhookAgainstTheBinary checks VerifyReceiptWebhook on the real binary's webhooks
// (sdk/run-examples.sh starts one): an order created with webhook_url, paid with `payledger
// devchain pay`, posts receipt.status_updated there signed with the API key; each is verified.
func TestReceiptWebhookAgainstTheBinary(t *testing.T) {
	base, apiKey, bin := os.Getenv("PAYLEDGER_BASE_URL"), os.Getenv("PAYLEDGER_API_KEY"), os.Getenv("PAYLEDGER_BIN")
	if base == "" || apiKey == "" || bin == "" {
		t.Skip("PAYLEDGER_BASE_URL, PAYLEDGER_API_KEY and PAYLEDGER_BIN unset: run sdk/run-examples.sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	statuses := make(chan string, 16)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err := payledger.VerifyReceiptWebhook(apiKey, r.Header, body); err != nil {
			t.Errorf("receipt webhook refused: %v", err)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		var p struct {
			Status string `json:"status"`
		}
		_ = json.Unmarshal(body, &p)
		select {
		case statuses <- p.Status:
		default:
		}
	}))
	defer receiver.Close()
	client, err := payledger.New(base, apiKey)
	if err != nil {
		t.Fatal(err)
	}
	order, err := client.CreateOrderWithResponse(ctx, nil, payledger.CreateOrderJSONRequestBody{
		Items: []payledger.OrderItem{{Sku: "DEV-BAGEL", Qty: 1}}, WebhookUrl: receiver.URL + "/receipt-hook"})
	if err != nil || order.JSON200 == nil {
		t.Fatalf("create order: %v %s", err, order.Body)
	}
	id := order.JSON200.Receipt.ReceiptId
	if out, err := exec.CommandContext(ctx, bin, "devchain", "pay", id, "--base-url", base).CombinedOutput(); err != nil {
		t.Fatalf("devchain pay: %v\n%s", err, out)
	}
	for {
		select {
		case s := <-statuses:
			if s == "paid" || s == "reconciled" {
				return
			}
		case <-ctx.Done():
			t.Fatalf("no verified paid receipt webhook for %s", id)
		}
	}
}
