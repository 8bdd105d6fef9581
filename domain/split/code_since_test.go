package split

import (
	"strings"
	"testing"
)

// TestCodeSince: a split's CodeSince is the time of the block its code was read in when its
// current address was recorded, else the second of the recording; a redeployment sets it anew.
func TestCodeSince(t *testing.T) {
	t.Parallel()
	a, b := "0x"+strings.Repeat("a", 40), "0x"+strings.Repeat("b", 40)
	read := Evolve(State{}, Configured{Address: a, ConfiguredAt: 1_700_000_000_999, CodeSeenAt: 1_699_999_998})
	unread := Evolve(State{}, Configured{Address: a, ConfiguredAt: 1_700_000_000_999})
	ahead := Evolve(State{}, Configured{Address: a, ConfiguredAt: 1_700_000_000_999, CodeSeenAt: 1_700_000_100})
	if read.CodeSince != 1_699_999_998 || unread.CodeSince != 1_700_000_000 || ahead.CodeSince != 1_700_000_000 {
		t.Fatalf("CodeSince %d read, %d unread, %d ahead", read.CodeSince, unread.CodeSince, ahead.CodeSince)
	}
	moved := EvolveRedeployed(read, Redeployed{Address: b, RedeployedAt: 1_800_000_000_000})
	movedRead := EvolveRedeployed(unread, Redeployed{Address: b, RedeployedAt: 1_800_000_000_000, CodeSeenAt: 1_799_999_999})
	if moved.CodeSince != 1_800_000_000 || movedRead.CodeSince != 1_799_999_999 {
		t.Fatalf("CodeSince after a redeployment %d, %d read", moved.CodeSince, movedRead.CodeSince)
	}
	if again := Evolve(read, Configured{Address: b, ConfiguredAt: 1_900_000_000_000}); again.CodeSince != read.CodeSince {
		t.Fatalf("a second configuration changed CodeSince to %d", again.CodeSince)
	}
}
