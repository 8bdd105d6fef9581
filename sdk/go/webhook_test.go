package payledger

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

// The Standard Webhooks specification's own example (its reference libraries test it too), so
// that this verifier agrees with theirs and with the service's signer.
const (
	specSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	specID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	specTimestamp = "1614265330"
	specBody      = `{"test": 2432232314}`
	specSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestWebhookVerify(t *testing.T) {
	signedAt := time.Unix(1614265330, 0)
	cases := []struct {
		name   string
		now    time.Time
		id     string
		sig    string
		body   string
		remove string
		want   error
	}{
		{name: "valid", now: signedAt, id: specID, sig: specSignature, body: specBody},
		{name: "4m59s late", now: signedAt.Add(4*time.Minute + 59*time.Second), id: specID, sig: specSignature, body: specBody},
		{name: "one of several signatures", now: signedAt, id: specID, sig: "v1,AAAA " + specSignature, body: specBody},
		{name: "body changed", now: signedAt, id: specID, sig: specSignature, body: `{"test": 2432232315}`, want: ErrWebhookSignature},
		{name: "id changed", now: signedAt, id: "msg_other", sig: specSignature, body: specBody, want: ErrWebhookSignature},
		{name: "another version", now: signedAt, id: specID, sig: "v2," + specSignature[3:], body: specBody, want: ErrWebhookSignature},
		{name: "6 minutes old", now: signedAt.Add(6 * time.Minute), id: specID, sig: specSignature, body: specBody, want: ErrWebhookTimestamp},
		{name: "6 minutes ahead", now: signedAt.Add(-6 * time.Minute), id: specID, sig: specSignature, body: specBody, want: ErrWebhookTimestamp},
		{name: "no signature", now: signedAt, id: specID, sig: specSignature, body: specBody, remove: "webhook-signature", want: ErrWebhookHeaders},
		{name: "no id", now: signedAt, id: specID, sig: specSignature, body: specBody, remove: "webhook-id", want: ErrWebhookHeaders},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWebhook(specSecret)
			if err != nil {
				t.Fatal(err)
			}
			w.now = func() time.Time { return tc.now }
			h := http.Header{}
			h.Set("webhook-id", tc.id)
			h.Set("webhook-timestamp", specTimestamp)
			h.Set("webhook-signature", tc.sig)
			h.Del(tc.remove)
			if err := w.Verify(h, []byte(tc.body)); !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestNewWebhookRefusesABadSecret(t *testing.T) {
	for _, s := range []string{"", "whsec_", "whsec_!!!"} {
		if _, err := NewWebhook(s); err == nil {
			t.Errorf("NewWebhook(%q) accepted", s)
		}
	}
}
