package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestEndpointRedeliveryOutlivesTheRequest: a manual redelivery whose caller leaves while the
// receiver is still answering is not cut: the receiver's 200 is logged as delivered (it was
// connection_error: the attempt ran on the request's context).
func TestEndpointRedeliveryOutlivesTheRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(false)
	var (
		mu        sync.Mutex
		hold      bool
		arrived   = make(chan struct{})
		cancelled = make(chan struct{})
	)
	r := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		h := hold
		mu.Unlock()
		if h {
			close(arrived)
			<-cancelled // the caller has gone: answer only now
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.Close)
	t.Cleanup(func() {
		select {
		case <-cancelled:
		default:
			close(cancelled)
		}
	})
	id, _ := e.createEndpoint(m, r.URL, "webhook.test")
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/webhooks/endpoints/"+id+"/test", ""); rec.Code != http.StatusAccepted {
		t.Fatalf("test: %d %s", rec.Code, rec.Body)
	}
	var eventID string
	waitUntil(t, "the first delivery", 10*time.Second, func() bool {
		return e.pool.QueryRow(context.Background(), `SELECT event_id::text FROM webhook_endpoint_messages WHERE endpoint_id = $1 AND state = 'delivered'`,
			id).Scan(&eventID) == nil
	})
	mu.Lock()
	hold = true
	mu.Unlock()

	e.redeliverAndLeave(m, "/api/webhooks/endpoints/"+id+"/deliveries/"+eventID+"/redeliver", arrived, cancelled)

	var log struct {
		Deliveries []struct {
			Kind       string  `json:"kind"`
			HTTPStatus *int    `json:"httpStatus"`
			Error      *string `json:"error"`
		} `json:"deliveries"`
	}
	rec := e.dev(m, http.MethodGet, "/api/webhooks/endpoints/"+id+"/deliveries", "")
	if err := json.Unmarshal(rec.Body.Bytes(), &log); err != nil || len(log.Deliveries) != 2 {
		t.Fatalf("deliveries: %s", rec.Body)
	}
	last := log.Deliveries[0]
	if last.Kind != "redeliver" || last.Error != nil || last.HTTPStatus == nil || *last.HTTPStatus != 200 {
		t.Fatalf("the redelivery is logged as %s", rec.Body)
	}
}
