package payledger_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	payledger "github.com/payledger/payledger/sdk/go"
)

// TestReadmeExample runs the README's example against a running payledger (sdk/run-examples.sh
// starts one with a development chain and a dev merchant): create an order, read its status, pay
// it with `payledger devchain pay`, and verify the webhook that `payledger listen` forwards.
func TestReadmeExample(t *testing.T) {
	base, apiKey, bin := os.Getenv("PAYLEDGER_BASE_URL"), os.Getenv("PAYLEDGER_API_KEY"), os.Getenv("PAYLEDGER_BIN")
	if base == "" || apiKey == "" || bin == "" {
		t.Skip("PAYLEDGER_BASE_URL, PAYLEDGER_API_KEY and PAYLEDGER_BIN unset: run sdk/run-examples.sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	secret := newSecret(t)
	hooks := make(chan webhookBody, 16)
	receiver := httptest.NewServer(receive(t, secret, hooks))
	defer receiver.Close()
	startListen(t, ctx, bin, base, apiKey, secret, receiver.URL)

	// The README's five lines.
	client, err := payledger.New(base, apiKey)
	if err != nil {
		t.Fatal(err)
	}
	order, err := client.CreateOrderWithResponse(ctx, nil, payledger.CreateOrderJSONRequestBody{Items: []payledger.OrderItem{{Sku: "DEV-COFFEE", Qty: 2}}})
	if err != nil || order.JSON200 == nil {
		t.Fatalf("create order: %v %s", err, order.Body)
	}
	id := order.JSON200.Receipt.ReceiptId
	status, err := client.GetReceiptStatusWithResponse(ctx, &payledger.GetReceiptStatusParams{ReceiptId: id})
	if err != nil || status.JSON200 == nil || status.JSON200.Status == "" || status.JSON200.ReceiptId != id {
		t.Fatalf("status: %v %s", err, status.Body)
	}
	t.Logf("receipt %s: %s, %s %s due", id, status.JSON200.Status, status.JSON200.AmountRequired, status.JSON200.Token)
	// What the README's comment prints: the dev merchant's 2 × 4.50 plus the 0.5% fee.
	if s := status.JSON200; s.Status != "generated" || s.AmountRequired != "9.05" || s.Token != "USDC" {
		t.Fatalf("the README says generated 9.05 USDC; the service says %s %s %s", s.Status, s.AmountRequired, s.Token)
	}

	pay := exec.CommandContext(ctx, bin, "devchain", "pay", id, "--base-url", base)
	if out, err := pay.CombinedOutput(); err != nil {
		t.Fatalf("devchain pay: %v\n%s", err, out)
	}
	for {
		select {
		case h := <-hooks:
			if h.Data.ReceiptID == id && (h.Data.Status == "paid" || h.Data.Status == "reconciled") {
				final, err := client.GetReceiptStatusWithResponse(ctx, &payledger.GetReceiptStatusParams{ReceiptId: id})
				if err != nil || final.JSON200 == nil || (final.JSON200.Status != "paid" && final.JSON200.Status != "reconciled") {
					t.Fatalf("status after the webhook: %v %s", err, final.Body)
				}
				return
			}
		case <-ctx.Done():
			t.Fatalf("no verified paid webhook for %s", id)
		}
	}
}

type webhookBody struct {
	Type string `json:"type"`
	Data struct {
		ReceiptID string `json:"receiptId"`
		Status    string `json:"status"`
	} `json:"data"`
}

// receive is the merchant's webhook handler: verify, then decode; an unverified delivery fails
// the test.
func receive(t *testing.T, secret string, hooks chan<- webhookBody) http.HandlerFunc {
	webhook, err := payledger.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err := webhook.Verify(r.Header, body); err != nil {
			t.Errorf("webhook refused: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var b webhookBody
		if err := json.Unmarshal(body, &b); err != nil {
			t.Errorf("webhook body: %v", err)
		}
		select {
		case hooks <- b:
		default:
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// startListen runs `payledger listen` until the test ends and waits until it forwards.
func startListen(t *testing.T, ctx context.Context, bin, base, apiKey, secret, to string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, "listen", "--base-url", base, "--api-key", apiKey, "--secret", secret, "--forward-to", to)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines, done := bufio.NewScanner(out), make(chan struct{})
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done; _ = cmd.Wait() })
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "Forwarding events") {
		close(done)
		t.Fatalf("listen printed %q", lines.Text())
	}
	go func() {
		defer close(done)
		for lines.Scan() {
			t.Log("listen: " + lines.Text())
		}
	}()
}

func newSecret(t *testing.T) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b[:])
}
