package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestActionsRefuseABodyTheyDoNotRead: the endpoint actions that take no body (a test event, a
// redelivery, a delete) ignored whatever was posted: malformed JSON or a field they do not know
// answered 202/200 and recorded a test event, sent a delivery or deleted the endpoint. The README
// answers malformed JSON 400 invalid_input, and bad input changes nothing; the rotation, also
// bodiless, already refuses any field ("not silently ignored"). No body, or {}, stays accepted.
func TestActionsRefuseABodyTheyDoNotRead(t *testing.T) {
	t.Parallel()
	base, m := serveWithDevMerchant(t, "Bodyless shop")
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	var made struct {
		Endpoint struct {
			ID string `json:"id"`
		} `json:"endpoint"`
	}
	if err := m.expect(ctx, http.MethodPost, "/api/webhooks/endpoints", map[string]any{"url": srv.URL, "events": []string{"*"}}, http.StatusCreated, &made); err != nil {
		t.Fatal(err)
	}
	ep := "/api/webhooks/endpoints/" + made.Endpoint.ID
	if err := m.expect(ctx, http.MethodPost, ep+"/test", nil, http.StatusAccepted, nil); err != nil {
		t.Fatal(err)
	}
	attempts := func() []map[string]any {
		var got struct {
			Deliveries []map[string]any `json:"deliveries"`
		}
		if err := m.expect(ctx, http.MethodGet, ep+"/deliveries", nil, http.StatusOK, &got); err != nil {
			t.Fatal(err)
		}
		return got.Deliveries
	}
	wait.Until(t, "the test event's delivery", 30*time.Second, func() bool { return len(attempts()) == 1 })
	eventID, _ := attempts()[0]["eventId"].(string)

	for _, route := range []struct{ method, path string }{
		{http.MethodPost, ep + "/test"},
		{http.MethodPost, ep + "/deliveries/" + eventID + "/redeliver"},
		{http.MethodDelete, ep},
	} {
		for _, body := range []string{"garbage", `{"unknown":1}`} {
			req, _ := http.NewRequestWithContext(ctx, route.method, base+route.path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("x-csrf-token", m.csrf)
			resp, err := m.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var env struct{ Error string }
			if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(raw, &env) != nil || env.Error != "invalid_input" {
				t.Errorf("%s %s with body %s: %d %s; want 400 invalid_input", route.method, route.path, body, resp.StatusCode, raw)
			}
		}
	}
	var list struct {
		Endpoints []map[string]any `json:"endpoints"`
	}
	if err := m.expect(ctx, http.MethodGet, "/api/webhooks/endpoints", nil, http.StatusOK, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Endpoints) != 1 {
		t.Errorf("the endpoint was deleted by a request with a bad body: %d endpoints listed", len(list.Endpoints))
	}
}
