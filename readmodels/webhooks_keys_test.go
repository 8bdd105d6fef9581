package readmodels

import "testing"

// The outbox's and event log's key of a status change is the spec's key and the version; what is
// sent is the spec's key, also for a key recorded before the version was added (a receipt id may
// hold '@').
func TestSpecKeyOfAStatusChangeKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"receipt-status:r1:paid:0xabc@12":   "receipt-status:r1:paid:0xabc",
		"receipt-status:r1:failed:@3":       "receipt-status:r1:failed:",
		"receipt-status:r1:paid:0xabc":      "receipt-status:r1:paid:0xabc",
		"receipt-status:a@1:paid:0xabc":     "receipt-status:a@1:paid:0xabc",
		"receipt-status:a@1:paid:0xabc@7":   "receipt-status:a@1:paid:0xabc",
		"receipt-status:a@1:failed:@":       "receipt-status:a@1:failed:@",
		"receipt-status:x@9:generated:@9x9": "receipt-status:x@9:generated:@9x9",
	} {
		if got := SpecKey(key); got != want {
			t.Errorf("SpecKey(%q) = %q, want %q", key, got, want)
		}
	}
}
