package transport

import (
	"context"
	"net/http"
	"testing"
)

// A keyed creation whose answer was never kept (its instance died after the creation committed,
// or keeping the answer failed after it was sent) left its key claimed; once the claim's lock ran
// out, the client's retry under the same key took the claim over and ran the creation again: a
// second webhook endpoint (restart74's finding, reproduced by killing serve). The retry is now
// answered 409 conflict, kept for the key's later retries, and nothing is created again.
func TestARetryAfterALostAnswerCreatesNothingAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	post := func() (int, map[string]any, string) {
		rec := e.do(req{method: http.MethodPost, path: "/api/webhooks/endpoints", body: `{"url":"https://hooks.example.com/lost","events":["*"]}`,
			cookies: m.cookies, header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "lost-answer"}})
		return rec.Code, decode(t, rec), rec.Header().Get(idemReplayed)
	}
	if code, body, _ := post(); code != http.StatusCreated {
		t.Fatalf("first creation: %d %v", code, body)
	}
	// The creation committed, and then its instance died before the answer was kept: the claim
	// is left running with its lock run out.
	if _, err := e.pool.Exec(context.Background(), `UPDATE idempotent_responses SET done = false, status = NULL, content_type = NULL,
		body_nonce = NULL, body_sealed = NULL, locked_until = now() - interval '1 second' WHERE key = 'lost-answer'`); err != nil {
		t.Fatal(err)
	}
	code, body, replayed := post()
	if code != http.StatusConflict || body["error"] != "conflict" || replayed != "" {
		t.Fatalf("the retry after the lost answer: %d %v replayed %q (want 409 conflict, not replayed)", code, body, replayed)
	}
	if n := e.count("webhook_endpoints"); n != 1 {
		t.Fatalf("%d endpoints stored after the retry (want the first one only)", n)
	}
	code, again, replayed := post()
	if code != http.StatusConflict || again["message"] != body["message"] || replayed != "true" {
		t.Fatalf("a later retry: %d %v replayed %q (want the kept 409 again)", code, again, replayed)
	}
	if n := e.count("webhook_endpoints"); n != 1 {
		t.Fatalf("%d endpoints stored after the second retry", n)
	}
}
