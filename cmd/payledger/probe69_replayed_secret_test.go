package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/webhooks"
)

// probe69Receiver records the webhook-signature of every endpoint delivery it is sent.
type probe69Receiver struct {
	mu   sync.Mutex
	sigs map[string]string // webhook-id -> webhook-signature
	raw  map[string]probe69Delivery
}

type probe69Delivery struct {
	ts   int64
	body []byte
}

func (r *probe69Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	ts, _ := strconv.ParseInt(req.Header.Get("webhook-timestamp"), 10, 64)
	r.mu.Lock()
	defer r.mu.Unlock()
	id := req.Header.Get("webhook-id")
	r.sigs[id], r.raw[id] = req.Header.Get("webhook-signature"), probe69Delivery{ts: ts, body: body}
}

// signedWith says whether the delivery id carries a signature made with secret.
func (r *probe69Receiver) signedWith(t *testing.T, id, secret string) bool {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.raw[id]
	want, err := webhooks.StandardSignature(secret, id, d.ts, d.body)
	if err != nil {
		t.Fatalf("the secret an answer gave does not decode: %v", err)
	}
	return strings.Contains(" "+r.sigs[id]+" ", " "+want+" ")
}

// TestAReplayedSecretStillSigns: an Idempotency-Key retry of an endpoint's creation (or of a
// rotation) answers the secret that request made, kept 24 h. Once later rotations replaced that
// secret (two rotations: the one a rotation keeps signing is dropped too), the replay handed the
// retrying script, as "201, made", a secret that signs nothing: a receiver configured with it
// refuses every delivery. The README's rule for kept secrets (a revoked key, a deleted endpoint:
// not replayed) did not cover a secret rotated away. Whatever the replay answers, a secret it
// shows must sign the endpoint's deliveries.
func TestAReplayedSecretStillSigns(t *testing.T) {
	t.Parallel()
	_, m := serveWithDevMerchant(t, "Replay shop")
	ctx := context.Background()
	recv := &probe69Receiver{sigs: map[string]string{}, raw: map[string]probe69Delivery{}}
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)

	type endpointAnswer struct {
		Endpoint struct {
			ID     string `json:"id"`
			Secret string `json:"secret"`
		} `json:"endpoint"`
	}
	post := func(path, idemKey string, body any) (int, endpointAnswer) {
		t.Helper()
		var h map[string]string
		if idemKey != "" {
			h = map[string]string{"Idempotency-Key": idemKey}
		}
		status, raw, err := m.call(ctx, http.MethodPost, path, body, h)
		if err != nil {
			t.Fatal(err)
		}
		var a endpointAnswer
		_ = json.Unmarshal(raw, &a)
		return status, a
	}
	create := map[string]any{"url": srv.URL + "/hook", "events": []string{webhooks.TypeTest}}
	status, made := post("/api/webhooks/endpoints", "probe69-create", create)
	if status != http.StatusCreated {
		t.Fatalf("create: %d", status)
	}
	rotate := "/api/webhooks/endpoints/" + made.Endpoint.ID + "/secret/rotate"
	if status, _ := post(rotate, "probe69-rotate", nil); status != http.StatusOK {
		t.Fatalf("rotate: %d", status)
	}
	for range 2 { // the created secret and the first rotation's no longer sign
		if status, _ := post(rotate, "", nil); status != http.StatusOK {
			t.Fatalf("rotate: %d", status)
		}
	}
	if status, _ := post("/api/webhooks/endpoints/"+made.Endpoint.ID+"/test", "", nil); status != http.StatusAccepted {
		t.Fatalf("test event: %d", status)
	}
	var id string
	wait.Until(t, "the test event's delivery", 30*time.Second, func() bool {
		recv.mu.Lock()
		defer recv.mu.Unlock()
		for k := range recv.sigs {
			id = k
		}
		return id != ""
	})

	for _, replay := range []struct {
		name, path, key string
		body            any
	}{
		{"creation", "/api/webhooks/endpoints", "probe69-create", create},
		{"first rotation", rotate, "probe69-rotate", nil},
	} {
		status, again := post(replay.path, replay.key, replay.body)
		if status/100 == 2 && again.Endpoint.Secret != "" && !recv.signedWith(t, id, again.Endpoint.Secret) {
			t.Errorf("the %s's replay answered %d with a secret that signs no delivery (rotated away)", replay.name, status)
		}
	}
}
