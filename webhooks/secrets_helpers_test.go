package webhooks

import "testing"

// twoSecrets are an endpoint's secret before and after a rotation.
func twoSecrets(t *testing.T) (before, after string) {
	t.Helper()
	before, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if after, err = NewSecret(); err != nil {
		t.Fatal(err)
	}
	return before, after
}
