package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestKeysRevokeOfNoSuchKeySaysNothingWasRevoked: `keys revoke` naming a key the wallet does not
// have (a typo in --id, another wallet's key) fails (exit 1) saying nothing was revoked; the
// right pair revokes. It said only "not found", and an operator revoking a leaked key could not
// tell whether the key was already gone or still live.
func TestKeysRevokeOfNoSuchKeySaysNothingWasRevoked(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"DATABASE_URL": pgtest.URL(t), "EMBEDDED_POSTGRES": "off", "DEV_DATA_DIR": t.TempDir()}
	ctx := context.Background()
	owner, other := "0x"+strings.Repeat("a1", 20), "0x"+strings.Repeat("b2", 20)
	createKey(t, ctx, vars, owner, "receipts:read", "migrates") // migrate, then a first key
	var created bytes.Buffer
	if code := run(ctx, []string{"keys", "create", "--wallet", owner, "--scopes", "receipts:read"}, env(vars), &created, &bytes.Buffer{}); code != 0 {
		t.Fatalf("keys create: exit %d", code)
	}
	id := regexp.MustCompile(`created key (\S+) for`).FindStringSubmatch(created.String())[1]
	for _, tc := range []struct{ wallet, id string }{{owner, "3b241101-e2bb-4255-8caf-4136c566a962"}, {other, id}} {
		var out, errOut bytes.Buffer
		code := run(ctx, []string{"keys", "revoke", "--wallet", tc.wallet, "--id", tc.id}, env(vars), &out, &errOut)
		if code != 1 || out.Len() != 0 || !strings.Contains(errOut.String(), "has no key "+tc.id+": nothing was revoked") {
			t.Errorf("revoke %s of %s: exit %d, stdout %q, stderr %q", tc.id, tc.wallet, code, out.String(), errOut.String())
		}
	}
	var out bytes.Buffer
	if code := run(ctx, []string{"keys", "revoke", "--wallet", owner, "--id", id}, env(vars), &out, &bytes.Buffer{}); code != 0 || !strings.Contains(out.String(), "revoked key "+id) {
		t.Fatalf("revoke by its wallet: exit %d %q", code, out.String())
	}
}
