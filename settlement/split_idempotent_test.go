package settlement_test

import (
	"testing"

	"github.com/payledger/payledger/commands"
)

// The spec's POST /api/split/deploy is idempotent: once a merchant's split is configured, a later
// call answers it (200, idempotent) whatever it names. With a chain, a later call naming a
// splitAddress was first checked for code: an address without a contract (a typo, an account)
// was 400 invalid_input instead of the configured split.
func TestDeploySplitLaterCallNamingAnAddressAnswersTheSplit(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, platform, st, _ := e.merchantWithSplit()
	deploy, _ := e.handlers(platform)
	for _, addr := range []string{newWallet(t), st.Address} {
		res, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: merchant, Address: addr})
		if err != nil || !res.Idempotent || res.State.Address != st.Address {
			t.Fatalf("a later call naming %s: %+v %v, want the configured split %s, idempotent", addr, res, err, st.Address)
		}
	}
}
