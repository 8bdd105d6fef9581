// payledger payment page: shows the itemized receipt, a QR code link for mobile wallets, the
// currency choice, and polls the status until it is paid.
(function () {
  var id = document.body.getAttribute("data-receipt");
  var $ = function (s) { return document.querySelector(s); };
  function money(v, cur) { return (cur === "EUR" ? "€" : "$") + Number(v).toFixed(2); }
  function render(r) {
    $("#brand").textContent = r.brandName || "Payment";
    var rows = r.lineItems.map(function (l) {
      return "<tr><td>" + (l.qty ? l.qty + " × " : "") + l.label.replace(/[<&]/g, "") + "</td><td>" + money(l.priceUsd, r.currency) + "</td></tr>";
    }).join("");
    $("#lines").innerHTML = rows + "<tr class=total><td>Total</td><td>" + money(r.totalUsd, r.currency) + "</td></tr>";
    $("#qr").setAttribute("href", "ethereum:pay?receipt=" + encodeURIComponent(id));
  }
  function poll() {
    fetch("/api/terminal/check-payment?receiptId=" + encodeURIComponent(id)).then(function (res) { return res.json(); }).then(function (s) {
      $("#status").textContent = s.status;
      if (!s.paid) setTimeout(poll, 3000);
    }).catch(function () { setTimeout(poll, 5000); });
  }
  fetch("/api/portal/" + encodeURIComponent(id)).then(function (res) { return res.json(); }).then(function (b) { if (b.receipt) render(b.receipt); });
  fetch("/api/portal/" + encodeURIComponent(id) + "/telemetry", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ event: "link_opened" }) });
  poll();
})();
