package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
)

// TestSubscriptionStatusOfAStreamWithANewerEvent: a subscription whose stream holds an event of a
// type this build does not know (a newer build wrote it) is answered 500 in the spec's envelope,
// the stream and version in the log, not as the state without that event (it was "active" where
// the newer build may have paused or cancelled it).
func TestSubscriptionStatusOfAStreamWithANewerEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	store := postgres.New(e.pool)
	const id = "sub_newer"
	created, err := json.Marshal(subscription.Created{SubscriptionID: id, PlanID: "plan_1", Merchant: "0x" + strings.Repeat("d", 40),
		Customer: "0x" + strings.Repeat("c", 40), Plan: subscription.Plan{Name: "Pro", PriceUSD: 999, Period: subscription.Monthly, PeriodSeconds: 30 * 86400},
		PriceUnits: "9990000", CreatedAt: 1000, NextChargeAt: 1000})
	if err != nil {
		t.Fatal(err)
	}
	stream := subscription.Stream(id)
	if _, err := store.Append(ctx, stream, eventstore.NoStream(),
		eventstore.EventData{ID: uuid.New(), Type: subscription.EventCreated, Data: created},
		eventstore.EventData{ID: uuid.New(), Type: "SubscriptionPaused", Data: json.RawMessage(`{"at":2000}`)}); err != nil {
		t.Fatal(err)
	}
	rec := e.do(req{method: http.MethodGet, path: "/api/subscriptions/status?subscriptionId=" + id})
	body := decode(t, rec)
	if rec.Code != http.StatusInternalServerError || body["error"] != "failed" || body["message"] != "Internal server error" || len(body) != 2 {
		t.Fatalf("status: %d %v, want 500 failed in the envelope", rec.Code, body)
	}
	if logs := e.logs.String(); !strings.Contains(logs, stream+" at version 2") || !strings.Contains(logs, "SubscriptionPaused") {
		t.Fatalf("the log does not name %s version 2 (SubscriptionPaused):\n%s", stream, logs)
	}
}
