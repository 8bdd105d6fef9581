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
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: dash.js cannot be run")
	}
	ui, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script, harness := filepath.Join(dir, "dash.js"), filepath.Join(dir, "harness.js")
	if err := os.WriteFile(script, ui.assets["dash.js"], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(harness, []byte(liveHarness), 0o600); err != nil {
		t.Fatal(err)
	}
	v := dashReceiptOf(receipt.State{Status: receipt.StatusPaid, Receipt: receipt.Generated{ReceiptID: "rcpt_1", Currency: "USD"}})
	v.Live, v.LiveEnds = "/api/portal/rcpt_1/events", liveEnds()
	if v.LiveEnds != "reconciled refund_requested refunded" {
		t.Fatalf("data-live-ends %q", v.LiveEnds)
	}
	badge, _ := json.Marshal(map[string]string{"data-live": v.Live, "data-live-ends": v.LiveEnds, "data-status": "paid"})
	out, err := exec.Command(node, harness, script, `["paid","reconciled","refunded"]`, string(badge)).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
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
