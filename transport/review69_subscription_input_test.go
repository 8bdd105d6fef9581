package transport

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// TestReview69SubscriptionCreationRefusesHostileInputInTheEnvelope: a public creation with fields
// of the wrong type, out of their on-chain range or absurdly long is a 4xx in the error envelope
// that creates nothing, never a 500 (each from its own address: the creation limit is not what
// answers).
func TestReview69SubscriptionCreationRefusesHostileInputInTheEnvelope(t *testing.T) {
	t.Parallel()
	e := newLimitedSubEnv(t, 1000)
	customerKey, _ := crypto.GenerateKey()
	merchantKey, _ := crypto.GenerateKey()
	customer := walletOf(customerKey)
	planID := e.plan(walletOf(merchantKey), 1000, "MONTHLY", true)
	p := permission(customer, planID)
	sig := signPermission(t, customerKey, p)
	valid := createBody(planID, customer, sig, p)
	cases := map[string]string{
		"planId a number":         strings.Replace(valid, fmt.Sprintf("%q", planID), "5", 1),
		"permissionData a string": fmt.Sprintf(`{"planId":%q,"customerWallet":%q,"permissionSignature":%q,"permissionData":"x"}`, planID, customer, sig),
		"allowance negative":      strings.Replace(valid, `"allowance":"10000000"`, `"allowance":"-1"`, 1),
		"allowance past uint160":  strings.Replace(valid, `"allowance":"10000000"`, `"allowance":"`+strings.Repeat("9", 60)+`"`, 1),
		"allowance not a number":  strings.Replace(valid, `"allowance":"10000000"`, `"allowance":"1e6"`, 1),
		"period negative":         strings.Replace(valid, `"period":2592000`, `"period":-1`, 1),
		"period zero":             strings.Replace(valid, `"period":2592000`, `"period":0`, 1),
		"period past uint48":      strings.Replace(valid, `"period":2592000`, `"period":9223372036854775807`, 1),
		"period past int64":       strings.Replace(valid, `"period":2592000`, `"period":99999999999999999999`, 1),
		"salt not a number":       strings.Replace(valid, `"salt":"7"`, `"salt":"0xzz"`, 1),
		"salt past uint256":       strings.Replace(valid, `"salt":"7"`, `"salt":"0x1`+strings.Repeat("0", 64)+`"`, 1),
		"extraData odd hex":       strings.Replace(valid, `"extraData":"`, `"extraData":"0x1`, 1),
		"signature not hex":       strings.Replace(valid, sig, "0xnothex", 1),
		"signature too long":      strings.Replace(valid, sig, "0x"+strings.Repeat("ab", 70_000), 1),
		"token not an address":    strings.Replace(valid, `"token":"`, `"token":"zz`, 1),
		"spender empty":           strings.Replace(valid, `"spender":"`+testOperator+`"`, `"spender":""`, 1),
		"planId very long":        strings.Replace(valid, fmt.Sprintf("%q", planID), `"`+strings.Repeat("p", 100_000)+`"`, 1),
	}
	i := 0
	for name, body := range cases {
		i++
		if body == valid {
			t.Fatalf("%s: the case did not change the body", name)
		}
		res, got := e.createFrom(fmt.Sprintf("192.0.2.%d:4000", i), body)
		if res.StatusCode < 400 || res.StatusCode >= 500 || got["error"] == nil || got["message"] == nil {
			t.Errorf("%s: %d %v, want a 4xx in the envelope", name, res.StatusCode, got)
		}
	}
	if n := e.subscriptionCount(); n != 0 {
		t.Fatalf("%d subscriptions created by refused bodies", n)
	}
}
