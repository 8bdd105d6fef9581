package transport

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// A share written as a whole decimal (9950.0, what a client's float serialises to, or 5e1) is
// that many basis points, as an order's qty and an item's stockQty are read: the spec's
// sharesBps is an integer, and JSON has one number type. It was 400 invalid_input. A fraction, a
// negative share and one past 10,000 in any form are still refused, naming the recipient.
func TestSplitSharesWrittenAsWholeDecimals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	body := func(contract, wallet, a, b string) string {
		other := "0x" + strings.Repeat("d", 40)
		return `{"splitAddress":"` + contract + `","recipients":[{"address":"` + wallet + `","sharesBps":` + a + `},{"address":"` + other + `","sharesBps":` + b + `}]}`
	}
	for i, c := range []struct{ a, b string }{{"9950.0", "50"}, {"9.95e3", "5e1"}, {"9950.000", "50.0"}} {
		priv, _ := crypto.GenerateKey()
		wallet := walletOf(priv)
		cookies, csrf := e.login(priv)
		contract := "0x" + strings.Repeat("e", 39) + string("012"[i])
		rec := e.adminCall(cookies, csrf, http.MethodPost, "/api/split/deploy", body(contract, wallet, c.a, c.b))
		if rec.Code != http.StatusOK {
			t.Fatalf("%s, %s: %d %s", c.a, c.b, rec.Code, rec.Body)
		}
		rs := decode(t, rec)["split"].(map[string]any)["recipients"].([]any)
		if len(rs) != 2 || rs[0].(map[string]any)["sharesBps"] != 9950.0 || rs[1].(map[string]any)["sharesBps"] != 50.0 {
			t.Fatalf("%s, %s: recipients %v", c.a, c.b, rs)
		}
	}
	priv, _ := crypto.GenerateKey()
	wallet := walletOf(priv)
	cookies, csrf := e.login(priv)
	contract := "0x" + strings.Repeat("e", 39) + "9"
	for _, c := range []struct{ a, b string }{{"9999.5", "0.5"}, {"10050", "-50"}, {"10050.0", "-50.0"}, {"1e4", "0"}, {"20000", "-10000"}, {"9950", "50.5"}, {"1e300", "50"}} {
		rec := e.adminCall(cookies, csrf, http.MethodPost, "/api/split/deploy", body(contract, wallet, c.a, c.b))
		if env := decode(t, rec); rec.Code != http.StatusBadRequest || env["error"] != "invalid_input" || !strings.Contains(env["message"].(string), "sharesBps") {
			t.Errorf("%s, %s: %d %v", c.a, c.b, rec.Code, env)
		}
	}
}
