package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// standardVector is the Standard Webhooks reference libraries' known answer (secret, id,
// timestamp, payload and the signature they compute).
var standardVector = struct {
	secret, id string
	ts         int64
	body, sig  string
}{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, `{"test": 2432232314}`,
	"v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="}

// receiverAccepts is a Standard Webhooks receiver's check written from the specification: one
// of the space-separated v1 signatures must be the HMAC-SHA256 of "<id>.<timestamp>.<body>".
func receiverAccepts(secret string, h http.Header, body []byte) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "."))
	mac.Write(body)
	for _, s := range strings.Fields(h.Get("webhook-signature")) {
		v, sig, _ := strings.Cut(s, ",")
		got, err := base64.StdEncoding.DecodeString(sig)
		if v == "v1" && err == nil && hmac.Equal(got, mac.Sum(nil)) {
			return true
		}
	}
	return false
}

// TestRotationSignsWithBothSecrets: during a rotation the header holds the new secret's
// signature, then the old one's, and a receiver holding either accepts; a secret that does not
// decode fails the whole header (nothing goes out missing a signature).
func TestRotationSignsWithBothSecrets(t *testing.T) {
	t.Parallel()
	v := standardVector
	if got, err := StandardSignature(v.secret, v.id, v.ts, []byte(v.body)); err != nil || got != v.sig {
		t.Fatalf("known answer: %q %v, want %q", got, err, v.sig)
	}
	other, _ := NewSecret()
	sigs, err := StandardSignatures([]string{other, v.secret}, v.id, v.ts, []byte(v.body))
	if err != nil {
		t.Fatal(err)
	}
	if parts := strings.Fields(sigs); len(parts) != 2 || parts[1] != v.sig || !strings.HasPrefix(parts[0], "v1,") || parts[0] == v.sig {
		t.Fatalf("signatures %q", sigs)
	}
	h := http.Header{}
	setSignedHeaders(h, v.id, time.Unix(v.ts, 0), sigs)
	if h.Get("webhook-timestamp") != strconv.FormatInt(v.ts, 10) || h.Get("webhook-signature") != sigs {
		t.Fatalf("headers %v", h)
	}
	third, _ := NewSecret()
	if !receiverAccepts(other, h, []byte(v.body)) || !receiverAccepts(v.secret, h, []byte(v.body)) || receiverAccepts(third, h, []byte(v.body)) {
		t.Fatal("a receiver with the new or the old secret does not accept, or one with another does")
	}
	for _, bad := range [][]string{nil, {other, "whsec_not base64!"}} {
		if _, err := StandardSignatures(bad, v.id, v.ts, []byte(v.body)); err == nil {
			t.Fatalf("%q signs", bad)
		}
	}
}
