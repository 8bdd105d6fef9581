package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// lockedDeadlines records the write deadlines set on an answer, from any goroutine.
type lockedDeadlines struct {
	*httptest.ResponseRecorder
	mu    sync.Mutex
	write []time.Time
}

func (w *lockedDeadlines) SetReadDeadline(time.Time) error { return nil }
func (w *lockedDeadlines) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.write = append(w.write, t)
	return nil
}

func (w *lockedDeadlines) last() (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.write) == 0 {
		return time.Time{}, false
	}
	return w.write[len(w.write)-1], true
}

// TestARefusedCredentialCutsItsAnswersWrites (stop 65): a stream's or an export's context was
// cancelled when its key was revoked, but a handler blocked in a write to a client that stopped
// reading never looks at it, so the answer went on holding its slot until its write deadline (the
// stream's lifetime, the export's timeout). The refusal now also moves the write deadline to
// within refusedWriteGrace, which ends such a write (DESIGN 10: within 5 s of the revocation).
func TestARefusedCredentialCutsItsAnswersWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const wallet = "0x00000000000000000000000000000000000000a1"
	secret := e.key(wallet, "receipts:read")
	key, err := e.keys.Authenticate(context.Background(), secret)
	if err != nil {
		t.Fatal(err)
	}
	hr := httptest.NewRequest(http.MethodGet, "/api/webhooks/stream", nil)
	hr = hr.WithContext(context.WithValue(hr.Context(), principalKey{}, Principal{Wallet: wallet, Scopes: key.Scopes, KeyID: key.ID, Secret: secret}))
	w := &lockedDeadlines{ResponseRecorder: httptest.NewRecorder()}
	c := e.srv.Echo.NewContext(hr, w)
	ctx, stop := e.srv.whileAuthorized(c)
	defer stop()
	if _, ok := w.last(); ok {
		t.Fatal("a live key's answer had its writes cut")
	}
	revoked := time.Now()
	if err := e.keys.Revoke(context.Background(), wallet, key.ID); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the revoked key's answer to be cancelled", 5*time.Second, func() bool { return ctx.Err() != nil })
	stop()
	d, ok := w.last()
	if !ok || d.After(time.Now().Add(refusedWriteGrace)) || d.Before(revoked) {
		t.Fatalf("write deadline after the revocation: %v (set: %v), want within %s of it", d, ok, refusedWriteGrace)
	}
}
