package transport

import (
	"net/http"
	"slices"
	"testing"
)

// TestHealthzNamesCapabilitiesOff: /healthz names each optional capability the configuration
// leaves off (the start's "capabilities" line says why), and an off capability is no
// degradation.
func TestHealthzNamesCapabilitiesOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(*testDeps) {})
	want := e.svc.Config.CapabilitiesOff()
	if !slices.Contains(want, "onramp") {
		t.Fatalf("the test environment has an onramp: %v", want)
	}
	rec := e.do(req{method: http.MethodGet, path: "/healthz"})
	body := decode(t, rec)
	var got []string
	for _, name := range body["off"].([]any) {
		got = append(got, name.(string))
	}
	if rec.Code != 200 || body["status"] != "ok" || !slices.Equal(got, want) {
		t.Fatalf("/healthz: %d %v, want off %v", rec.Code, body, want)
	}
}
