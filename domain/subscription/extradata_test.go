package subscription

import (
	"errors"
	"strings"
	"testing"
)

// TestCreateBoundsExtraData: a permission's extraData is at most MaxExtraDataBytes. The operator
// pays for it in the calldata of every approval and spend, and one past the nodes' transaction
// size could never be sent, holding every later operator transaction behind its nonce.
func TestCreateBoundsExtraData(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bytes int
		want  error
	}{
		{"at the bound", MaxExtraDataBytes, nil},
		{"one byte over", MaxExtraDataBytes + 1, ErrInvalid},
		{"half a megabyte", 500_000, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := createCmd()
			c.PlanID = strings.Repeat("p", tc.bytes) // its binding is tc.bytes long
			c.Permission.ExtraData = PlanBinding(c.PlanID)
			_, err := DecideCreate(State{}, c, testNow)
			if !errors.Is(err, tc.want) || (err != nil && !strings.Contains(err.Error(), "extraData")) {
				t.Fatalf("extraData of %d bytes: %v, want %v", tc.bytes, err, tc.want)
			}
		})
	}
}
