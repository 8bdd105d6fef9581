package main

// The steps of TestBinaryWalkEveryReadmeRoute, one README area each. Routes are named as the
// README's table reads them after docs.ReadmeRoutes ({id} as :id, queries dropped).

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/docs"
)

// readmeRouteList is every route of the README's table, "METHOD /path".
func readmeRouteList(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	routes, problems := docs.ReadmeRoutes(string(raw))
	for _, p := range problems {
		t.Error(p)
	}
	out := make([]string, 0, len(routes))
	for _, r := range routes {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

// walkOrders walks the inventory routes, creates an order and a direct receipt with a webhook
// URL (returned: the receipt to pay).
func (w *walker) walkOrders() string {
	w.call("POST /api/shop/config", "session", http.MethodPost, "/api/shop/config", map[string]any{"description": "walked"}, 200, nil)
	w.call("GET /api/inventory", "key", http.MethodGet, "/api/inventory", nil, 200, nil)
	item := w.call("POST /api/inventory", "key", http.MethodPost, "/api/inventory", map[string]any{"sku": "WALK-1", "name": "Walk", "priceUsd": 2, "stockQty": -1}, 0, nil)
	itemID := findID(item.json(w.t), "item")
	w.call("DELETE /api/inventory", "key", http.MethodDelete, "/api/inventory?id="+itemID, nil, 200, nil)
	order := w.call("POST /api/orders", "key", http.MethodPost, "/api/orders", map[string]any{"items": []map[string]any{{"sku": "DEV-COFFEE", "qty": 1}}}, 0,
		map[string]string{"Idempotency-Key": "walk-order-1"})
	receiptIDOf(w.t, order)
	direct := w.call("POST /api/receipts", "key", http.MethodPost, "/api/receipts", map[string]any{
		"lineItems": []map[string]any{{"label": "walk", "priceUsd": 1}}, "totalUsd": 1, "webhook_url": "http://127.0.0.1:9/walk"}, 201, nil)
	return receiptIDOf(w.t, direct) // paid next: its notification is a delivery to list and redeliver
}

// receiptIDOf reads the receipt id of an order's or a receipt's answer.
func receiptIDOf(t *testing.T, a walkAnswer) string {
	t.Helper()
	m := a.json(t)
	if r, ok := m["receipt"].(map[string]any); ok {
		m = r
	}
	id, _ := m["receiptId"].(string)
	if id == "" {
		t.Fatalf("no receiptId in %s", a.body)
	}
	return id
}

// walkAuthAndConfig walks the session, key, shop, site, split, pricing and read-only key routes.
func (w *walker) walkAuthAndConfig(wallet string) {
	w.call("GET /healthz", "open", http.MethodGet, "/healthz", nil, 200, nil)
	if head := w.call("HEAD /healthz", "open", http.MethodHead, "/healthz", nil, 200, nil); len(head.body) != 0 {
		w.t.Fatalf("HEAD /healthz answered a body: %q", head.body)
	}
	w.call("GET /api/openapi.json", "open", http.MethodGet, "/api/openapi.json", nil, 200, nil)
	w.call("GET /metrics", "open", http.MethodGet, "/metrics", nil, 200, nil)
	w.call("GET /api/status/ping", "key", http.MethodGet, "/api/status/ping", nil, 200, nil)
	w.call("POST /api/auth/nonce", "open", http.MethodPost, "/api/auth/nonce", map[string]any{"wallet": wallet}, 200, nil)
	w.called["POST /api/auth/login"] = true // dashSession signed in through it
	w.call("GET /api/auth/me", "session", http.MethodGet, "/api/auth/me", nil, 200, nil)
	keyID := w.idempotentAdminPost()
	w.call("GET /api/admin/keys", "session", http.MethodGet, "/api/admin/keys", nil, 200, nil)
	w.call("DELETE /api/admin/keys/:id", "session", http.MethodDelete, "/api/admin/keys/"+keyID, nil, 200, nil)
	w.call("GET /api/shop/config", "key", http.MethodGet, "/api/shop/config", nil, 200, nil)
	w.call("GET /api/site/config", "open", http.MethodGet, "/api/site/config", nil, 200, nil)
	w.call("POST /api/site/config", "session", http.MethodPost, "/api/site/config", map[string]any{"defaultPaymentToken": "USDC"}, 200, nil)
	w.call("GET /api/split/deploy", "key", http.MethodGet, "/api/split/deploy", nil, 200, nil)
	w.call("POST /api/split/deploy", "session", http.MethodPost, "/api/split/deploy", map[string]any{}, 200, nil)
	w.call("POST /api/split/withdraw", "open", http.MethodPost, "/api/split/withdraw", map[string]any{}, 410, nil)
	for _, p := range []string{"/api/tax/catalog", "/api/pricing/config", "/api/billing/balance", "/api/reserve/balances",
		"/api/reserve/recommend", "/api/split/transactions", "/api/users/search", "/api/users/live"} {
		w.call("GET "+p, "key", http.MethodGet, p, nil, 200, nil)
	}
	w.call("POST /api/pricing/config", "session", http.MethodPost, "/api/pricing/config", map[string]any{"eurUsd": 1.08}, 200, nil)
	w.call("GET /api/graphql", "key", http.MethodGet, "/api/graphql?query="+q("{__typename}"), nil, 200, nil)
	w.call("POST /api/graphql", "key", http.MethodPost, "/api/graphql", map[string]any{"query": "{__typename}"}, 200, nil)
}

// walkReceipts walks the receipt reads, the refund of the paid receipt and the terminal.
func (w *walker) walkReceipts(id string) {
	w.call("GET /api/receipts", "key", http.MethodGet, "/api/receipts", nil, 200, nil)
	w.call("GET /api/receipts/:id", "key", http.MethodGet, "/api/receipts/"+id, nil, 200, nil)
	w.call("GET /api/receipts/:id/events", "key", http.MethodGet, "/api/receipts/"+id+"/events", nil, 200, nil)
	w.call("GET /api/terminal/check-payment", "open", http.MethodGet, "/api/terminal/check-payment?receiptId="+id, nil, 200, nil)
	refund := map[string]any{"receiptId": id, "amountUsd": 1, "reason": "walk"}
	first := w.call("POST /api/receipts/refund", "session", http.MethodPost, "/api/receipts/refund", refund, 200, map[string]string{"Idempotency-Key": "walk-refund"})
	again := w.call("POST /api/receipts/refund", "session", http.MethodPost, "/api/receipts/refund", refund, 200, map[string]string{"Idempotency-Key": "walk-refund"})
	if string(first.body) != string(again.body) || again.header.Get("Idempotent-Replayed") != "true" {
		w.t.Fatalf("refund replay: %s, first %s", again.body, first.body)
	}
	w.call("POST /api/receipts/terminal", "session", http.MethodPost, "/api/receipts/terminal", map[string]any{"action": "display", "amountUsd": 3, "label": "walk"}, 0, nil)
	body := fmt.Sprintf(`{"id":"evt_walk","type":"crypto.onramp_session.updated","created":%d,"data":{"sessionId":"s_walk","receiptId":%q,"attemptId":"a_walk","status":"pending"}}`, time.Now().Unix(), id)
	w.call("POST /api/processor/webhook", "open", http.MethodPost, "/api/processor/webhook", body, 0,
		map[string]string{"Processor-Signature": signProcessor(time.Now().Unix(), body)})
	w.call("POST /api/cron/reconcile", "cron", http.MethodPost, "/api/cron/reconcile", nil, 200, nil)
}

// walkPortal walks the payment page and its API for a fresh receipt.
func (w *walker) walkPortal() {
	open := receiptIDOf(w.t, w.call("POST /api/receipts", "key", http.MethodPost, "/api/receipts",
		map[string]any{"lineItems": []map[string]any{{"label": "portal", "priceUsd": 2}}, "totalUsd": 2}, 201, nil))
	page := w.call("GET /portal/:id", "open", http.MethodGet, "/portal/"+open, nil, 200, nil)
	w.call("GET /pay/:id", "open", http.MethodGet, "/pay/"+open, nil, 200, nil)
	asset := staticAsset(w.t, page.body, "/_next/static/")
	w.call("GET /_next/static/*", "open", http.MethodGet, asset, nil, 200, nil)
	w.call("GET /api/portal/:id", "open", http.MethodGet, "/api/portal/"+open, nil, 200, nil)
	w.call("POST /api/portal/:id/quote", "open", http.MethodPost, "/api/portal/"+open+"/quote", map[string]any{"token": "USDC"}, 200, nil)
	w.call("GET /api/portal/:id/request", "open", http.MethodGet, "/api/portal/"+open+"/request?token=USDC", nil, 200, nil)
	w.call("GET /api/portal/:id/qr", "open", http.MethodGet, "/api/portal/"+open+"/qr?token=USDC", nil, 200, nil)
	w.call("GET /api/portal/:id/events", "open", http.MethodGet, "/api/portal/"+open+"/events", nil, 200, nil)
	w.call("GET /api/portal/:id/status", "open", http.MethodGet, "/api/portal/"+open+"/status", nil, 200, nil)
	w.call("POST /api/portal/:id/telemetry", "open", http.MethodPost, "/api/portal/"+open+"/telemetry", map[string]any{"event": "checkout_view"}, 0, nil)
	w.call("POST /api/portal/:id/payment", "open", http.MethodPost, "/api/portal/"+open+"/payment", map[string]any{"token": "USDC",
		"transactionHash": "0x" + strings.Repeat("ab", 32), "buyerWallet": "0x" + strings.Repeat("1", 40)}, 0, nil)
	// The onramp is an optional capability, off in `make run` (PROCESSOR_API_URL unset): its 503
	// is the one documented, and the capabilities line says so.
	off := w.call("POST /api/portal/:id/onramp", "open", http.MethodPost, "/api/portal/"+open+"/onramp", map[string]any{}, 503, nil)
	w.t.Logf("POST /api/portal/%s/onramp (onramp off in make run): %s", open, off.body)
}

var devLinkTokenRE = regexp.MustCompile(`token=([0-9a-f]{64})`)

// walkDashboard walks the dashboard's pages, its event stream, its assets and the sign-in link.
func (w *walker) walkDashboard(id string) {
	list := w.call("GET /dashboard", "session", http.MethodGet, "/dashboard", nil, 200, nil)
	link := regexp.MustCompile(`id="export" href="([^"]+)"`).FindSubmatch(list.body)
	if link == nil {
		w.t.Fatalf("the dashboard has no Download CSV link")
	}
	// The link, followed with the session as the browser follows it: a CSV, parsed.
	rows := w.csvRowsAs("GET /api/exports/receipts.csv", "session", strings.ReplaceAll(string(link[1]), "&amp;", "&"))
	if len(rows[0]) == 0 || rows[0][0] != "receiptId" {
		w.t.Fatalf("Download CSV: header %v", rows[0])
	}
	w.call("GET /dashboard/receipts/:id", "session", http.MethodGet, "/dashboard/receipts/"+id, nil, 200, nil)
	w.call("GET /dashboard/settings", "session", http.MethodGet, "/dashboard/settings", nil, 200, nil)
	w.call("GET /dashboard/events", "session", http.MethodGet, "/dashboard/events?ids="+id, nil, 200, nil)
	w.call("GET /dashboard/login", "open", http.MethodGet, "/dashboard/login", nil, 200, nil)
	w.call("GET /dashboard/static/*", "open", http.MethodGet, staticAsset(w.t, list.body, "/dashboard/static/"), nil, 200, nil)
	devLink := w.call("POST /api/auth/dev-link", "session", http.MethodPost, "/api/auth/dev-link", nil, 0, nil)
	m := devLinkTokenRE.FindSubmatch(devLink.body)
	if m == nil {
		w.t.Fatalf("dev-link: no token in %s", devLink.body)
	}
	w.call("GET /dashboard/login/link", "open", http.MethodGet, "/dashboard/login/link?token="+string(m[1]), nil, 200, nil)
	w.call("POST /dashboard/login/link", "open", http.MethodPost, "/dashboard/login/link", "token="+string(m[1]), http.StatusSeeOther,
		map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": w.base})
}

// walkWebhooks walks the deliveries of the receipt with a webhook_url, and the endpoints.
func (w *walker) walkWebhooks() {
	w.call("GET /api/webhooks/stream", "key", http.MethodGet, "/api/webhooks/stream", nil, 200, nil)
	ep := w.call("POST /api/webhooks/endpoints", "session", http.MethodPost, "/api/webhooks/endpoints", map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"*"}}, 201, nil)
	epID, _ := ep.json(w.t)["endpoint"].(map[string]any)["id"].(string)
	w.call("GET /api/webhooks/endpoints", "key", http.MethodGet, "/api/webhooks/endpoints", nil, 200, nil)
	w.call("POST /api/webhooks/endpoints/:id/test", "session", http.MethodPost, "/api/webhooks/endpoints/"+epID+"/test", nil, 202, nil)
	var eventID string
	deadline := time.Now().Add(60 * time.Second)
	for eventID == "" {
		a := w.call("GET /api/webhooks/endpoints/:id/deliveries", "key", http.MethodGet, "/api/webhooks/endpoints/"+epID+"/deliveries", nil, 200, nil)
		var out struct {
			Deliveries []struct {
				EventID string `json:"eventId"`
			} `json:"deliveries"`
		}
		if jsonInto(a.body, &out) == nil && len(out.Deliveries) > 0 {
			eventID = out.Deliveries[0].EventID
		} else if time.Now().After(deadline) {
			w.t.Fatalf("no delivery of the test event: %s", a.body)
		} else {
			time.Sleep(250 * time.Millisecond)
		}
	}
	w.call("POST /api/webhooks/endpoints/:id/deliveries/:eventId/redeliver", "session", http.MethodPost,
		"/api/webhooks/endpoints/"+epID+"/deliveries/"+eventID+"/redeliver", nil, 0, nil)
	rotated := w.call("POST /api/webhooks/endpoints/:id/secret/rotate", "session", http.MethodPost,
		"/api/webhooks/endpoints/"+epID+"/secret/rotate", nil, 200, nil)
	if secret, _ := rotated.json(w.t)["endpoint"].(map[string]any)["secret"].(string); !strings.HasPrefix(secret, "whsec_") {
		w.t.Errorf("a rotation without its new secret: %s", rotated.body)
	}
	w.call("DELETE /api/webhooks/endpoints/:id", "session", http.MethodDelete, "/api/webhooks/endpoints/"+epID, nil, 0, nil)
	var deliveryID string
	for deadline = time.Now().Add(60 * time.Second); deliveryID == ""; {
		a := w.call("GET /api/webhooks/deliveries", "key", http.MethodGet, "/api/webhooks/deliveries", nil, 200, nil)
		var out struct {
			Deliveries []struct {
				ID string `json:"id"`
			} `json:"deliveries"`
		}
		if jsonInto(a.body, &out) == nil && len(out.Deliveries) > 0 {
			deliveryID = out.Deliveries[0].ID
		} else if time.Now().After(deadline) {
			w.t.Fatalf("no webhook delivery of the receipt with a webhook_url: %s", a.body)
		} else {
			time.Sleep(250 * time.Millisecond)
		}
	}
	w.call("POST /api/webhooks/deliveries/:id/redeliver", "session", http.MethodPost, "/api/webhooks/deliveries/"+deliveryID+"/redeliver", nil, 0, nil)
}

// walkUsersAndSubscriptions walks the users' and the subscriptions' routes.
func (w *walker) walkUsersAndSubscriptions(wallet string) {
	other := "0x" + strings.Repeat("7", 40)
	w.call("POST /api/users/profile", "session", http.MethodPost, "/api/users/profile", map[string]any{"displayName": "Walker"}, 200, nil)
	w.call("POST /api/users/presence", "session", http.MethodPost, "/api/users/presence", map[string]any{"live": false}, 200, nil)
	w.call("POST /api/users/follow", "session", http.MethodPost, "/api/users/follow", map[string]any{"wallet": other}, 0, nil)
	w.call("DELETE /api/users/follow", "session", http.MethodDelete, "/api/users/follow", map[string]any{"wallet": other}, 0, nil)
	w.call("GET /api/subscriptions/plans", "open", http.MethodGet, "/api/subscriptions/plans?wallet="+wallet, nil, 200, nil)
	plan := w.call("POST /api/subscriptions/plans", "session", http.MethodPost, "/api/subscriptions/plans",
		map[string]any{"wallet": wallet, "name": "Walk", "description": "walked", "priceUsd": 5, "period": "MONTHLY"}, 201, nil)
	planID := findID(plan.json(w.t), "plan")
	w.call("PUT /api/subscriptions/plans", "session", http.MethodPut, "/api/subscriptions/plans", map[string]any{"planId": planID, "name": "Walk 2"}, 200, nil)
	// A subscription needs the customer's EIP-712 SpendPermission signature: a wrong one is 400
	// (the route is configured: subscriptions are on with the development chain).
	w.call("POST /api/subscriptions/create", "open", http.MethodPost, "/api/subscriptions/create", map[string]any{"planId": planID,
		"customerWallet": other, "permissionSignature": "0x" + strings.Repeat("00", 65), "permissionData": map[string]any{}}, 400, nil)
	unknown := "00000000-0000-4000-8000-000000000000"
	w.call("GET /api/subscriptions/status", "open", http.MethodGet, "/api/subscriptions/status?subscriptionId="+unknown, nil, 404, nil)
	w.call("POST /api/subscriptions/cancel", "session", http.MethodPost, "/api/subscriptions/cancel", map[string]any{"subscriptionId": unknown, "wallet": wallet}, 404, nil)
	w.call("POST /api/subscriptions/charge", "cron", http.MethodPost, "/api/subscriptions/charge", map[string]any{"subscriptionId": unknown}, 404, nil)
	w.call("POST /api/cron/charge-subscriptions", "cron", http.MethodPost, "/api/cron/charge-subscriptions", nil, 200, nil)
	w.call("DELETE /api/subscriptions/plans", "session", http.MethodDelete, "/api/subscriptions/plans", map[string]any{"planId": planID, "wallet": wallet}, 200, nil)
}

// findID is the id of an answer: at its top or in its object named in.
func findID(m map[string]any, in string) string {
	for _, obj := range []any{m, m[in]} {
		o, _ := obj.(map[string]any)
		for _, k := range []string{"id", in + "Id"} {
			if s, ok := o[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return ""
}
