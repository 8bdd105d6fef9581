package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

// claimsHarness loads a receipt page's refund.js once per entry of argv[3] in one tab (one
// sessionStorage), each load a page whose refund list is pending or not with the claims' hashes;
// it fires the timers the script sets (a field in focus or a hidden tab for the first, as the
// load says, then neither) and prints each load's waits and whether the page reloaded.
const claimsHarness = `
const fs = require("fs"), vm = require("vm");
const src = fs.readFileSync(process.argv[2], "utf8"), store = new Map();
const sessionStorage = { getItem: (k) => store.has(k) ? store.get(k) : null, setItem: (k, v) => { store.set(k, String(v)); },
  removeItem: (k) => { store.delete(k); } };
const loads = [];
for (const load of JSON.parse(process.argv[3])) {
  const timers = [], listeners = {};
  let reloads = 0;
  const items = (load.hashes || []).map((h) => ({ getAttribute: (n) => ({ "data-state": "claimed", "data-hash": h })[n] || null }));
  const list = { getAttribute: (n) => n === "data-pending" && load.pending ? "true" : null,
    querySelectorAll: (sel) => sel === 'li[data-state="claimed"]' ? items : [] };
  const document = { hidden: !!load.hidden, activeElement: { tagName: load.typing ? "INPUT" : "BODY" },
    getElementById: (id) => id === "refunds" ? list : null, querySelectorAll: () => [],
    addEventListener: (t, f) => { listeners[t] = f; }, removeEventListener: (t) => { delete listeners[t]; } };
  vm.runInNewContext(src, { document: document, window: load.noStorage ? {} : { sessionStorage: sessionStorage },
    location: { pathname: "/dashboard/receipts/rcpt_1", reload: () => { reloads++; } }, setTimeout: (f, ms) => { timers.push({ f: f, ms: ms }); } });
  const waits = [];
  for (let i = 0; i < timers.length && i < 4 && !reloads; i++) {
    waits.push(timers[i].ms);
    timers[i].f();
    document.activeElement = { tagName: "BODY" };
    if (!reloads && listeners.visibilitychange) { waits.push("shown"); document.hidden = false; listeners.visibilitychange(); }
  }
  loads.push({ waits: waits, reloaded: reloads === 1, kept: store.size });
}
console.log(JSON.stringify(loads));
`

// TestPendingRefundReloadsBackOff: while a refund claim waited for the chain, refund.js reloaded
// the receipt's page every 3 s for as long as the verifier waited (for ever for a transaction
// never mined): 20 requests a minute per tab on the merchant's address's public limit (60 a
// minute), which the dashboard's pages share, so a pending refund in two or three tabs got the
// merchant 429. The reloads now back off, 3 s doubling to once a minute per page and set of
// pending claims (a new claim is checked soon again), wait while the tab is hidden, and try again
// later while the merchant is in a field (they stopped for good before).
func TestPendingRefundReloadsBackOff(t *testing.T) {
	ui, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	h1, h2 := "0x"+strings.Repeat("1", 64), "0x"+strings.Repeat("2", 64)
	var loads []claimsLoad
	for range 7 {
		loads = append(loads, claimsLoad{Pending: true, Hashes: []string{h1}})
	}
	loads = append(loads, claimsLoad{Pending: true, Hashes: []string{h1, h2}}, claimsLoad{Pending: true, Hashes: []string{h1, h2}},
		claimsLoad{Pending: true, Hashes: []string{h2}}, claimsLoad{}, claimsLoad{Pending: true, Hashes: []string{h2}, Hidden: true},
		claimsLoad{Pending: true, Hashes: []string{h2}, Typing: true})
	want := []string{
		"[3000] true 1", "[6000] true 1", "[12000] true 1", "[24000] true 1", "[48000] true 1", "[60000] true 1", "[60000] true 1",
		"[3000] true 1", "[6000] true 1", // a second claim is checked soon
		"[3000] true 1", // one of them decided: the other soon too
		"[] false 0",    // none pending: no reload, nothing kept
		"[3000 shown] true 1", "[6000 60000] true 1",
	}
	if got := runClaims(t, ui, loads); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("each load's waits (ms), reload, values kept:\n%q\nwant\n%q", got, want)
	}
	// Without sessionStorage (disabled) the count is not kept: the page checks at the slowest pace.
	noStorage := claimsLoad{Pending: true, Hashes: []string{h1}, NoStorage: true}
	if got := runClaims(t, ui, []claimsLoad{noStorage, noStorage}); fmt.Sprint(got) != "[[60000] true 0 [60000] true 0]" {
		t.Fatalf("without storage: %q", got)
	}
	// The harness's page is the template's: a pending list names its claims by state and hash.
	v := dashReceiptOf(receipt.State{Status: receipt.StatusRefundRequested, Receipt: receipt.Generated{ReceiptID: "rcpt_1", Currency: "USD"}})
	v.Refunds, v.RefundPending = []dashRefund{{State: receipt.RefundStateClaimed, Hash: h1}}, true
	rec := httptest.NewRecorder()
	if err := ui.Render(rec, 200, "receipt", Frame{Title: "Receipt"}, v); err != nil {
		t.Fatal(err)
	}
	if want := `<ul id="refunds" data-pending="true"><li data-state="claimed" data-hash="` + h1 + `">`; !strings.Contains(rec.Body.String(), want) {
		t.Fatalf("the page lacks %s", want)
	}
}

// claimsLoad is one load of the receipt's page in claimsHarness.
type claimsLoad struct {
	Pending   bool     `json:"pending"`
	Hashes    []string `json:"hashes"`
	Hidden    bool     `json:"hidden"`
	Typing    bool     `json:"typing"`
	NoStorage bool     `json:"noStorage"`
}

// runClaims runs claimsHarness on refund.js: each load's waits, whether it reloaded and how many
// values the tab's sessionStorage holds after it.
func runClaims(t *testing.T, ui *UI, loads []claimsLoad) []string {
	t.Helper()
	args, _ := json.Marshal(loads)
	out := runScript(t, ui, "refund.js", claimsHarness, string(args))
	var got []struct {
		Waits    []any
		Reloaded bool
		Kept     int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var res []string
	for _, g := range got {
		res = append(res, fmt.Sprint(g.Waits, " ", g.Reloaded, " ", g.Kept))
	}
	return res
}
