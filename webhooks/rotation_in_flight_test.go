package webhooks

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/readmodels"
)

// TestARotationWhileTheRequestIsOnItsWayIsSentAgainAtOnce: a rotation committed after the send
// read the endpoint's secrets (here: as the request reaches the receiver, which has switched to
// the new secret at once and refuses the old signature) gets the attempt sent again at once,
// signed with the new secret and the old one, and the message is delivered; the refused request
// is logged as an attempt of its own. Before, the attempt carried the old signature only and the
// message waited for its retry: one request, the message pending.
func TestARotationWhileTheRequestIsOnItsWayIsSentAgainAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	merchant := "0x" + strings.Repeat("6", 40)
	oldSecret, newSecret := twoSecrets(t)
	var err error
	w := newWorld(t, nil)
	eps := readmodels.NewEndpoints(w.pool, w.keys)
	w.disp.Endpoints = eps
	var ep readmodels.Endpoint
	var mu sync.Mutex
	var got []http.Header // what each request carried, in order
	var rotateOnce sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rotateOnce.Do(func() { // the merchant rotates while the first request is on its way
			if _, _, err := eps.RotateSecret(ctx, merchant, ep.ID, newSecret, time.Now()); err != nil {
				t.Error(err)
			}
		})
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		if !receiverAccepts(newSecret, r.Header, b) {
			rw.WriteHeader(http.StatusUnauthorized)
			return
		}
		if !receiverAccepts(oldSecret, r.Header, b) {
			t.Errorf("the attempt sent again dropped the old secret's signature during the overlap: %q", r.Header.Get("webhook-signature"))
		}
	}))
	t.Cleanup(srv.Close)
	if ep, err = eps.Create(ctx, merchant, srv.URL+"/ep", []string{"*"}, oldSecret, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := eps.Record(ctx, readmodels.NewEvent{Key: "rotate-in-flight", Merchant: merchant, Type: TypeTest, At: time.Now(), Endpoint: &ep.ID,
		Data: readmodels.WebhookTest{EndpointID: ep.ID.String(), Message: "test"}}); err != nil {
		t.Fatal(err)
	}
	if n, err := w.disp.SendEndpointsDue(ctx); n != 1 || err != nil {
		t.Fatalf("claimed %d: %v", n, err)
	}
	mu.Lock()
	requests := len(got)
	mu.Unlock()
	var state string
	if err := w.pool.QueryRow(ctx, `SELECT state FROM webhook_endpoint_messages WHERE endpoint_id = $1`, ep.ID).Scan(&state); err != nil {
		t.Fatal(err)
	}
	if requests != 2 || state != readmodels.NoteDelivered {
		t.Fatalf("%d requests, the message %s; want the refused one sent again at once (2) and delivered", requests, state)
	}
	if got[0].Get("webhook-id") != got[1].Get("webhook-id") {
		t.Fatalf("the attempt sent again has another webhook-id: %q, %q", got[0].Get("webhook-id"), got[1].Get("webhook-id"))
	}
	log, err := eps.Attempts(ctx, merchant, ep.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[1].HTTPStatus == nil || *log[1].HTTPStatus != http.StatusUnauthorized || log[0].Error != "" ||
		log[0].Kind != "first" || log[1].Kind != "first" {
		t.Fatalf("the delivery log: %+v; want the refused request (401) then the one sent again (delivered)", log)
	}
}
