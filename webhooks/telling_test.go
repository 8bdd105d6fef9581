package webhooks

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/readmodels"
)

// The merchant is named to Telling before its webhook leaves, so that serve's replica router
// counts it as a writer: a merchant that reads its receipts while handling the webhook (or just
// after) sees the status it was told, not a replica's older one.
func TestTheMerchantIsToldBeforeItsWebhookIsSent(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var told []string
	w := newWorld(t, func(d *Dispatcher) {
		d.Telling = func(m string) { mu.Lock(); told = append(told, m); mu.Unlock() }
	})
	merchant := "0x" + strings.Repeat("7", 40) // paidReceipt's
	toldFirst := make(chan bool, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		toldFirst <- len(told) > 0 && told[0] == merchant
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	w.run(t)
	w.paidReceipt(t, "tell-1", srv.URL+"/hook", "plk_secret")
	select {
	case first := <-toldFirst:
		if !first {
			t.Fatal("the webhook reached its receiver before the merchant was told")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no webhook reached the receiver")
	}
	eventually(t, "delivered", func() bool { return w.state(t, "tell-1") == readmodels.NoteDelivered })
}
