package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/webhooks"
)

// forwarded is what the local receiver got from listen.
type forwarded struct {
	mu   sync.Mutex
	got  []http.Header
	body []string
}

func (f *forwarded) find(receiptID, status string) (http.Header, string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, b := range f.body {
		if strings.Contains(b, `"receiptId":"`+receiptID+`"`) && strings.Contains(b, `"status":"`+status+`"`) {
			return f.got[i], b, true
		}
	}
	return nil, "", false
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	wait.Until(t, what, 60*time.Second, cond)
}

// paidReceipt creates a direct receipt with key and pays it through the processor's signed
// event; it returns the receipt id once the status read says paid.
func paidReceipt(t *testing.T, base, key, processorSecret, n string) string {
	t.Helper()
	retried := 0
	call := func(method, path, body string, h map[string]string) []byte {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusServiceUnavailable && path == "/api/receipts" && retried < 3 {
			// "retry shortly": the receipt's read model did not answer in time on a loaded machine.
			retried++
			req, _ = http.NewRequest(method, base+path, strings.NewReader(body))
			req.Header = resp.Request.Header
			if resp, err = http.DefaultClient.Do(req); err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ = io.ReadAll(resp.Body)
		}
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		return b
	}
	var created struct {
		Receipt struct {
			ReceiptID string `json:"receiptId"`
		} `json:"receipt"`
	}
	b := call(http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"Order `+n+`","priceUsd":10}],"totalUsd":10}`,
		map[string]string{"x-api-key": key, "Idempotency-Key": "listen-" + n})
	if err := json.Unmarshal(b, &created); err != nil || created.Receipt.ReceiptID == "" {
		t.Fatalf("receipt: %s", b)
	}
	id := created.Receipt.ReceiptID
	ts := time.Now().Unix()
	body := fmt.Sprintf(`{"id":"evt_%s","type":"crypto.onramp_session.updated","created":%d,"data":{"sessionId":"cos_%s","receiptId":%q,"attemptId":"att_%s","status":"fulfillment_complete","transactionHash":"0x%s","walletAddress":"0x%s","sourceAmountUsd":10}}`,
		n, ts, n, id, n, strings.Repeat("a", 64), strings.Repeat("b", 40))
	mac := hmac.New(sha256.New, []byte(processorSecret))
	mac.Write([]byte(strconv.FormatInt(ts, 10) + "." + body))
	call(http.MethodPost, "/api/processor/webhook", body, map[string]string{"Processor-Signature": fmt.Sprintf("t=%d,v1=%s", ts, hex.EncodeToString(mac.Sum(nil)))})
	waitFor(t, "receipt "+n+" paid", func() bool {
		return strings.Contains(string(call(http.MethodGet, "/api/receipts/status?receiptId="+id, "", map[string]string{"x-api-key": key})), `"status":"paid"`)
	})
	return id
}

// TestListenForwardsAndResumes: listen forwards a real receipt's events, signed as an endpoint
// would be, to a local server; after the stream is cut, an event recorded while it was down
// arrives once it resumes (Last-Event-ID).
func TestListenForwardsAndResumes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".data")
	const processorSecret = "listen-test-processor-secret-0123456789"
	vars := map[string]string{"DEV_DATA_DIR": dir, "JOURNAL_PATH": filepath.Join(dir, "journal.jsonl"), "PROCESSOR_WEBHOOK_SECRET": processorSecret}
	base, _ := startServe(t, vars)
	dev := runDevMerchant(t, vars, base)

	// A proxy in front of the service that the test can cut and hold down.
	target, _ := url.Parse(base)
	var down atomic.Bool
	var streams atomic.Int32
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	rp.ModifyResponse = func(r *http.Response) error {
		if r.Request.URL.Path == "/api/webhooks/stream" && r.StatusCode == 200 {
			streams.Add(1)
		}
		return nil
	}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()

	recv := &forwarded{}
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		recv.mu.Lock()
		recv.got, recv.body = append(recv.got, r.Header.Clone()), append(recv.body, string(b))
		recv.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer local.Close()

	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	// The command as a developer runs it; the key is the dev merchant's, read from DEV_DATA_DIR.
	go func() {
		done <- listenCommand(ctx, config{PublicBaseURL: proxy.URL}, env(vars), []string{"--forward-to", local.URL + "/hook"}, out)
	}()
	defer func() { cancel(); <-done }()
	waitFor(t, "the stream", func() bool { return streams.Load() == 1 })
	secret := strings.Fields(strings.SplitN(out.String(), "secret ", 2)[1])[0]

	first := paidReceipt(t, base, dev.key, processorSecret, "1")
	var h http.Header
	var body string
	waitFor(t, "the first receipt's paid event", func() bool { var ok bool; h, body, ok = recv.find(first, "paid"); return ok })
	sig, err := webhooks.StandardSignature(secret, h.Get("webhook-id"), mustInt(t, h.Get("webhook-timestamp")), []byte(body))
	if err != nil || h.Get("webhook-signature") != sig || !strings.HasPrefix(body, `{"type":"receipt.status_updated"`) {
		t.Fatalf("forwarded event does not verify with the printed secret: %v %s", h, body)
	}

	// Cut the stream and keep the service unreachable while the second receipt is paid.
	down.Store(true)
	proxy.CloseClientConnections()
	second := paidReceipt(t, base, dev.key, processorSecret, "2")
	waitFor(t, "listen to notice the drop", func() bool { return strings.Contains(out.String(), "stream dropped") })
	down.Store(false)
	waitFor(t, "the second receipt's paid event after the resume", func() bool { _, _, ok := recv.find(second, "paid"); return ok })
	if streams.Load() < 2 {
		t.Fatalf("%d stream connections", streams.Load())
	}
	// listen prints a forwarded line once the receiver has answered: after recv saw the request.
	waitFor(t, "two forwarded lines", func() bool { return strings.Count(out.String(), "-> 204") >= 2 })
	// Each event was forwarded once: the resume started after the last one handled.
	recv.mu.Lock()
	seen := map[string]int{}
	for _, g := range recv.got {
		seen[g.Get("webhook-id")]++
	}
	recv.mu.Unlock()
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("event %s forwarded %d times", id, n)
		}
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
