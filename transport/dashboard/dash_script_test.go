package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

// liveHarness runs dash.js (argv[2]) against a receipt page's status badge with a fake
// EventSource, delivers the statuses of argv[3] in order, and prints what became of the stream.
const liveHarness = `
const fs = require("fs"), vm = require("vm");
const sources = [];
class FakeEventSource { constructor(url) { this.url = url; this.closed = false; sources.push(this); } close() { this.closed = true; } }
function el(attrs) {
  return { attrs: attrs, hidden: true, textContent: "", className: "",
    getAttribute(n) { return n in this.attrs ? this.attrs[n] : null; }, setAttribute(n, v) { this.attrs[n] = v; }, addEventListener() {} };
}
const badge = el(JSON.parse(process.argv[4])), note = el({});
const document = { documentElement: el({}), getElementById: (id) => id === "live-note" ? note : null,
  querySelector: (sel) => sel === "[data-live]" ? badge : null, querySelectorAll: () => [] };
vm.runInNewContext(fs.readFileSync(process.argv[2], "utf8"), { document: document, EventSource: FakeEventSource, window: {}, location: {} });
const closedAfter = [];
for (const st of JSON.parse(process.argv[3])) {
  if (!sources[0].closed) sources[0].onmessage({ data: JSON.stringify({ receiptId: "rcpt_1", status: st }) });
  closedAfter.push(sources[0].closed);
}
console.log(JSON.stringify({ streams: sources.length, url: sources[0].url, closedAfter: closedAfter, badge: badge.attrs["data-status"], note: note.hidden }));
`

// TestReceiptPageStopsFollowingAnEndedStream: a receipt page follows the payment page's stream,
// which the server ends once the receipt is reconciled or refunded (or a refund is requested).
// dash.js never closed it, so EventSource opened it again every 2 s for as long as the page stayed
// open (each time answered with the status and ended at once): 30 requests a minute per open
// receipt, on the public per-address limit (60 a minute) that the dashboard's own pages share, so
// two such tabs, the usual paid -> reconciled moments after a payment, got the merchant's pages
// 429. The page names the statuses at which the stream ends (data-live-ends, from
// transport.StreamEnds) and dash.js closes the stream there.
func TestReceiptPageStopsFollowingAnEndedStream(t *testing.T) {
	ui, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	v := dashReceiptOf(receipt.State{Status: receipt.StatusPaid, Receipt: receipt.Generated{ReceiptID: "rcpt_1", Currency: "USD"}})
	v.Live, v.LiveEnds = "/api/portal/rcpt_1/events", liveEnds()
	if v.LiveEnds != "reconciled refund_requested refunded" {
		t.Fatalf("data-live-ends %q", v.LiveEnds)
	}
	badge, _ := json.Marshal(map[string]string{"data-live": v.Live, "data-live-ends": v.LiveEnds, "data-status": "paid"})
	out := runDashJS(t, ui, liveHarness, `["paid","reconciled","refunded"]`, string(badge))
	var got struct {
		Streams     int
		URL         string
		ClosedAfter []bool
		Badge       string
		Note        bool
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if fmt.Sprint(got.ClosedAfter) != "[false true true]" {
		t.Fatalf("stream closed after paid, reconciled, refunded: %v, want [false true true] (the server ends it at reconciled; left open, "+
			"EventSource reopens it every 2 s)", got.ClosedAfter)
	}
	if got.Streams != 1 || got.URL != v.Live || got.Badge != "reconciled" || got.Note {
		t.Fatalf("the page did not follow its status: %s", strings.TrimSpace(string(out)))
	}
	rec := httptest.NewRecorder()
	if err := ui.Render(rec, 200, "receipt", Frame{Title: "Receipt"}, v); err != nil {
		t.Fatal(err)
	}
	if want := `data-live="/api/portal/rcpt_1/events" data-live-ends="reconciled refund_requested refunded"`; !strings.Contains(rec.Body.String(), want) {
		t.Fatalf("the page lacks %s", want)
	}
}

// runDashJS runs harness with node: its argv[2] is dash.js, args follow. Skipped without node.
func runDashJS(t *testing.T, ui *UI, harness string, args ...string) []byte {
	t.Helper()
	return runScript(t, ui, "dash.js", harness, args...)
}

// runScript runs harness with node: its argv[2] is the dashboard's script asset, args follow.
// Skipped without node.
func runScript(t *testing.T, ui *UI, asset, harness string, args ...string) []byte {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: dash.js cannot be run")
	}
	dir := t.TempDir()
	script, h := filepath.Join(dir, asset), filepath.Join(dir, "harness.js")
	if err := os.WriteFile(script, ui.assets[asset], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h, []byte(harness), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, append([]string{h, script}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	return out
}

// signOutHarness clicks "Sign out" with fetch answering the logout with status argv[3], and
// prints where the page went and what it says.
const signOutHarness = `
const fs = require("fs"), vm = require("vm");
function el(attrs) {
  return { attrs: attrs, hidden: true, textContent: "", disabled: false, listeners: {},
    getAttribute(n) { return n in this.attrs ? this.attrs[n] : null; }, setAttribute(n, v) { this.attrs[n] = v; },
    addEventListener(type, f) { this.listeners[type] = f; } };
}
const button = el({}), note = el({}), went = [], calls = [];
const status = Number(process.argv[3]);
const body = status === 200 ? '{"ok":true}' : '{"error":"datastore_unavailable","message":"Datastore unavailable"}';
const document = { documentElement: el({}), getElementById: (id) => ({ signout: button, "signout-error": note })[id] || null,
  querySelector: () => null, querySelectorAll: () => [] };
const fetch = (url, init) => { calls.push(init.method + " " + url); return Promise.resolve({ ok: status < 300, status: status, text: () => Promise.resolve(body) }); };
vm.runInNewContext(fs.readFileSync(process.argv[2], "utf8"), { document: document, fetch: fetch, window: {}, location: { assign: (u) => went.push(u) } });
button.listeners.click();
// fetch answers with settled promises: every .then has run before the next macrotask.
setImmediate(() => console.log(JSON.stringify({ calls: calls, went: went, error: note.hidden ? "" : note.textContent, disabled: button.disabled })));
`

// TestSignOutThatFailsSaysSo: "Sign out" went to the sign-in page whatever the logout answered.
// A refused logout (503 with the datastore down, 429 past the address's limit) ends no session
// and clears no cookie, so the page that said "Sign in" left the merchant signed in for whoever
// used the browser next. The page now stays and says the sign-out failed.
func TestSignOutThatFailsSaysSo(t *testing.T) {
	ui, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		Calls, Went []string
		Error       string
		Disabled    bool
	}
	run := func(status string) result {
		var r result
		out := runDashJS(t, ui, signOutHarness, status)
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return r
	}
	if r := run("503"); len(r.Went) != 0 || !strings.Contains(r.Error, "Not signed out (Datastore unavailable)") || r.Disabled ||
		fmt.Sprint(r.Calls) != "[POST /api/auth/logout]" {
		t.Fatalf("a refused logout: %+v; want the page kept, saying so, the button usable again", r)
	}
	if r := run("200"); fmt.Sprint(r.Went) != "[/dashboard/login]" || r.Error != "" {
		t.Fatalf("a logout: %+v; want the sign-in page", r)
	}
	rec := httptest.NewRecorder()
	if err := ui.Render(rec, 200, "notfound", Frame{Title: "x", Wallet: "0xabc"}, "r"); err != nil || !strings.Contains(rec.Body.String(),
		`<span id="signout-error" class="error" role="alert" hidden></span>`) {
		t.Fatalf("the layout has no place for the sign-out's error: %v", err)
	}
}
