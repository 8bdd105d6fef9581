package main

import (
	"strings"
	"testing"
)

// TestKeysCreateNameFollowsTheAPIsRule (stop 65): `payledger keys create --name` stored any
// name, while POST /api/admin/keys refuses one over 100 characters or with control or
// bidirectional formatting characters (stop 64): the dashboard's key list shows it, where an
// escape sequence or a right-to-left override reads as something else. The command line now
// follows the API's rule (a wrong command line: usage, exit 2).
func TestKeysCreateNameFollowsTheAPIsRule(t *testing.T) {
	t.Parallel()
	const wallet = "0x00000000000000000000000000000000000000a1"
	for _, name := range []string{"a\x1b[31mred", "\u202elive", "x\ny", strings.Repeat("é", 101)} {
		_, err := parseKeysArgs([]string{"create", "--wallet", wallet, "--scopes", "orders:create", "--name", name})
		if err == nil || !strings.Contains(err.Error(), "--name") {
			t.Errorf("name %q: %v, want a usage error naming --name", name, err)
		}
	}
	for _, name := range []string{"", "checkout", strings.Repeat("é", 100), "\u05d3\u05e0\u200f 1"} {
		if _, err := parseKeysArgs([]string{"create", "--wallet", wallet, "--scopes", "orders:create", "--name", name}); err != nil {
			t.Errorf("name %q: %v", name, err)
		}
	}
}
