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

// TestARotationBetweenClaimAndSendSignsWithTheNewSecret: a rotation committed after a message
// was claimed and before it is sent (here: from Telling, which runs first in SendEndpoint) signs
// that attempt with the new secret too, so a receiver switched to it at once accepts; the old
// one's signature still goes with it (the overlap). The secrets were those read at the claim:
// the attempt carried the replaced secret's signature only.
func TestARotationBetweenClaimAndSendSignsWithTheNewSecret(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	merchant := "0x" + strings.Repeat("5", 40)
	oldSecret, newSecret := twoSecrets(t)
	var err error
	var eps *readmodels.Endpoints
	var ep readmodels.Endpoint
	var rotateOnce sync.Once
	w := newWorld(t, func(d *Dispatcher) {
		d.Telling = func(string) { // the message is claimed: the merchant rotates now
			rotateOnce.Do(func() {
				if _, _, err := eps.RotateSecret(ctx, merchant, ep.ID, newSecret, time.Now()); err != nil {
					t.Error(err)
				}
			})
		}
	})
	type got struct {
		h    http.Header
		body []byte
	}
	received := make(chan got, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		received <- got{r.Header.Clone(), b}
	}))
	t.Cleanup(srv.Close)
	eps = readmodels.NewEndpoints(w.pool, w.keys)
	w.disp.Endpoints = eps
	if ep, err = eps.Create(ctx, merchant, srv.URL+"/ep", []string{"*"}, oldSecret, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := eps.Record(ctx, readmodels.NewEvent{Key: "rotate-race", Merchant: merchant, Type: TypeTest, At: time.Now(), Endpoint: &ep.ID,
		Data: readmodels.WebhookTest{EndpointID: ep.ID.String(), Message: "test"}}); err != nil {
		t.Fatal(err)
	}
	if n, err := w.disp.SendEndpointsDue(ctx); n != 1 || err != nil {
		t.Fatalf("claimed %d: %v", n, err)
	}
	r := <-received
	if !receiverAccepts(newSecret, r.h, r.body) {
		t.Fatalf("a receiver switched to the new secret refuses the attempt sent after the rotation: %q", r.h.Get("webhook-signature"))
	}
	if !receiverAccepts(oldSecret, r.h, r.body) {
		t.Fatalf("a receiver still on the old secret refuses it during the overlap: %q", r.h.Get("webhook-signature"))
	}
}
