package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/projections"
)

// TestReceiptCreatedEvent: an endpoint that asks for receipt.created receives it, signed, when a
// receipt is made (status generated, the status read's fields); a receipt made before the
// projector's first start is not announced (its checkpoint starts at the receipts projector's).
func TestReceiptCreatedEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	r := newReceiver(t)
	e.createEndpoint(m, r.srv.URL+"/created", "receipt.created")
	before := e.hookedReceipt(m, "")

	// The projector's first start, after that receipt: seeded at the receipts projector's position.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := e.pool.Exec(ctx, `DELETE FROM projection_checkpoints WHERE name = 'receipt_created'`); err != nil {
		t.Fatal(err)
	}
	if err := projections.SeedReceiptCreated(ctx, e.pool); err != nil {
		t.Fatal(err)
	}
	runner, err := projections.NewRunner(e.pool, postgres.New(e.pool),
		projections.ReceiptCreated{Notify: e.dispatcher.Wake}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(ctx) }()
	defer func() { cancel(); <-done }()

	id := e.hookedReceipt(m, "")
	waitUntil(t, "receipt.created", 10*time.Second, func() bool { return r.count() >= 1 })
	got := r.all()[0]
	var body struct {
		Type string `json:"type"`
		Data struct {
			Event, ReceiptID, Status, MerchantWallet string
			TotalUSD                                 float64 `json:"totalUsd"`
		} `json:"data"`
	}
	if err := json.Unmarshal(got.body, &body); err != nil || body.Type != "receipt.created" || body.Data.ReceiptID != id ||
		body.Data.Status != "generated" || body.Data.Event != "receipt.created" || body.Data.TotalUSD != 42 || got.header.Get("webhook-signature") == "" {
		t.Fatalf("delivery %s %v (%v)", got.body, got.header, err)
	}
	// The earlier receipt, had it been recorded, would precede this one in the merchant's log and
	// in the endpoint's deliveries.
	for _, d := range r.all() {
		var b struct{ Data struct{ ReceiptID string } }
		if json.Unmarshal(d.body, &b) == nil && b.Data.ReceiptID == before {
			t.Fatalf("the receipt made before the projector started was announced: %s", d.body)
		}
	}
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints", `{"url":"`+r.srv.URL+`/x","events":["receipt.created"]}`); rec.Code != http.StatusCreated {
		t.Fatalf("receipt.created is not in the catalog: %d %s", rec.Code, rec.Body)
	}
}
