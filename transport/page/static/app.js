// payledger payment page. The receipt, its lines and its status are rendered by the server; this
// script adds the currency choice (re-quote, amount, instructions, QR: what is still due, read
// again when what arrived changes), the wallet button (an EIP-1193 provider: accounts, chain,
// transfer, then the hash to the service), the card or bank button (onramp) and the live status
// (server-sent events, polling /api/portal/{id}/status as a fallback: the same JSON as each
// event). The page never decides a status: it only shows what the service says. Once the payment
// window has ended unpaid nothing can be started (the quote, the request and the card start
// refuse it), so the controls go and the service's note on late payments takes their place.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var cfg = JSON.parse($("page-data").textContent);
  var id = cfg.receiptId;
  var base = "/api/portal/" + encodeURIComponent(id);
  var current = null; // the payment request of the selected token
  var settled = cfg.settled; // the domain's settled statuses (receipt.Status.Settled)
  var ended = cfg.windowEnded; // the payment window is over, the receipt unpaid
  var closing = ["reconciled", "refund_requested", "refunded"];

  // Branding: the shop's colours (validated #hex) as CSS variables; CSSOM is allowed by the CSP.
  ["primary", "secondary", "text", "accent"].forEach(function (k) {
    var v = document.body.getAttribute("data-" + k);
    if (v && /^#[0-9a-fA-F]{3,6}$/.test(v)) document.documentElement.style.setProperty("--" + k, v);
  });

  function show(el, text) { if (!el) return; el.textContent = text; el.hidden = !text; }
  function post(path, body) {
    return fetch(base + path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) })
      .then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (b) {
          if (!res.ok) throw new Error(b.message || ("HTTP " + res.status));
          return b;
        });
      });
  }
  function telemetry(event, code) {
    var body = { event: event };
    if (code) body.code = code;
    post("/telemetry", body).catch(function () {});
  }

  // ---- currency choice ----
  function requote(token) {
    show($("quote-error"), "");
    var amount = $("amount");
    if (amount) amount.textContent = "…";
    current = null;
    setBusy(true);
    return post("/quote", { token: token }).then(function (q) {
      if (!cfg.chain.configured) {
        current = { token: token, amount: q.amount };
        render();
        return;
      }
      return readRequest(token);
    }).catch(function (e) {
      show($("quote-error"), "This currency cannot be used now: " + e.message);
    }).then(function () { setBusy(false); });
  }
  // The request asks for what is still due, so it is read again (without a new quote: the held
  // one stands) when what arrived changes; an answer older than the one shown is dropped, since
  // it may predate the transfer (a newer read that fails leaves the last answer that came).
  var reads = 0, applied = 0;
  function readRequest(token) {
    var n = ++reads;
    return fetch(base + "/request?token=" + encodeURIComponent(token)).then(function (res) {
      return res.json().then(function (b) {
        if (!res.ok) throw new Error("wallet payment details are not available: " + (b.message || ("HTTP " + res.status)));
        if (n < applied || ($("token") || {}).value !== token) return; // a newer answer is shown, or another token was chosen
        applied = n;
        current = b;
        render();
      });
    });
  }
  var lastReceived = null; // amountReceived as the status last said (null: nothing seen)
  function receivedChanged(s) {
    if (s.amountReceived === undefined || s.amountReceived === lastReceived) return;
    lastReceived = s.amountReceived;
    var sel = $("token");
    if (!cfg.chain.configured || !sel || settled.indexOf(s.status) >= 0) return;
    readRequest(sel.value).catch(function () { /* settled or expired meanwhile: the status says so */ });
  }
  function trim(a) { a = String(a); return a.indexOf(".") >= 0 ? a.replace(/\.?0+$/, "") : a; }
  function render() {
    var r = current;
    $("amount").textContent = trim(r.amount);
    $("amount-token").textContent = r.token;
    if (!r.uri) return;
    $("instr-amount").textContent = trim(r.amount);
    $("instr-token").textContent = r.token + (r.tokenAddress ? " (token contract " + r.tokenAddress + ")" : " (native ETH)");
    $("instr-chain").textContent = cfg.chain.name + " (chain id " + r.chainId + ")";
    $("address").textContent = r.recipient; // the receipt's own deposit address, never the split
    expiresAt = r.expiresAt || expiresAt;
    tick();
    $("uri").setAttribute("href", r.uri);
    $("uri").textContent = r.uri;
    // The amount is in the address only so that a new amount loads a new image (the route ignores it).
    $("qr").setAttribute("src", base + "/qr?token=" + encodeURIComponent(r.token) + "&units=" + encodeURIComponent(r.amountUnits));
    $("qr").setAttribute("data-uri", r.uri);
  }
  // ---- time left (the payment window; the ETH quote is honoured until it ends) ----
  var expiresAt = cfg.expiresAt || 0;
  var ticking = null;
  // The service's clock, not the device's: a device whose clock is fast would end the window
  // (and take the controls away) early.
  var skew = cfg.now ? cfg.now - Date.now() : 0;
  function tick() {
    var el = $("time-left");
    if (!el || !expiresAt || ended || settled.indexOf(lastStatus) >= 0) { if (el) el.hidden = true; return; }
    var left = Math.ceil((expiresAt - (Date.now() + skew)) / 1000);
    el.hidden = false;
    if (left <= 0) {
      endWindow(lastNote || cfg.windowNote); // the stream then brings the recorded expiry's note
      return;
    }
    var h = Math.floor(left / 3600), m = Math.floor(left % 3600 / 60), sec = left % 60;
    el.textContent = "Time left to pay: " + (h ? h + " h " : "") + m + " min " + (sec < 10 ? "0" : "") + sec + " s";
    el.setAttribute("data-expires-at", String(expiresAt));
    if (!ticking) ticking = setInterval(tick, 1000);
  }
  // Token amounts as the customer reads them: at least two decimals ("5" -> "5.00").
  function amount(a) {
    var p = String(a).split(".");
    var f = (p[1] || "").replace(/0+$/, "");
    while (f.length < 2) f += "0";
    return p[0] + "." + f;
  }
  function units(a, d) {
    var p = String(a).split(".");
    var f = (p[1] || "").slice(0, d);
    while (f.length < d) f += "0";
    return BigInt(p[0] + f);
  }
  // dueOf is want less got, exact (BigInt at the longer fraction), never below zero.
  function dueOf(got, want) {
    var d = Math.max((String(got).split(".")[1] || "").length, (String(want).split(".")[1] || "").length);
    var r = units(want, d) - units(got, d);
    if (r < BigInt(0)) r = BigInt(0);
    var s = r.toString();
    while (s.length <= d) s = "0" + s;
    return amount(d ? s.slice(0, s.length - d) + "." + s.slice(s.length - d) : s);
  }
  // received shows what arrived, and what is still due when it is short ("5.00 USDC received,
  // 7.31 USDC still due"), once a transfer was seen; true when underpaid.
  function received(s) {
    var el = $("received");
    if (!el) return false;
    if (s.amountReceived === null || s.amountReceived === undefined || !s.amountRequired) { el.hidden = true; $("short").hidden = true; return false; }
    var got = Number(s.amountReceived), want = Number(s.amountRequired);
    var under = got > 0 && got < want && settled.indexOf(s.status) < 0 && !ended;
    $("amount-received").textContent = amount(s.amountReceived);
    $("amount-required").textContent = amount(s.amountRequired);
    $("amount-due").textContent = dueOf(s.amountReceived, s.amountRequired);
    Array.prototype.forEach.call(el.querySelectorAll(".amount-token"), function (t) { t.textContent = s.amountToken || t.textContent; });
    $("due").hidden = !under;
    $("short").hidden = !under;
    el.hidden = settled.indexOf(s.status) >= 0 && !(got > want);
    return under;
  }

  // endWindow removes the payment controls for good (a late payment can only be funds already
  // sent) and shows the service's note on what becomes of them.
  var lastNote = null;
  function endWindow(note) {
    ended = true;
    var pay = $("pay");
    if (pay) pay.parentNode.removeChild(pay);
    ["time-left", "in-progress", "short", "due"].forEach(function (k) { if ($(k)) $(k).hidden = true; });
    show($("window-ended"), note || "");
    if (ticking) { clearInterval(ticking); ticking = null; }
  }

  function setBusy(b) {
    ["pay-wallet"].forEach(function (k) { var el = $(k); if (el) el.disabled = b; });
  }

  // ---- copy buttons ----
  function copy(kind) {
    var text = kind === "amount" ? (current && current.amount) : kind === "address" ? (current && current.recipient) : (current && current.uri);
    if (!text) return;
    var done = function () { $("copied").textContent = "Copied " + kind; };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else { fallbackCopy(text); done(); }
  }
  function fallbackCopy(text) {
    var ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.className = "sr-only";
    document.body.appendChild(ta);
    ta.select();
    try { document.execCommand("copy"); } catch (e) { /* nothing more to try */ }
    document.body.removeChild(ta);
  }

  // ---- wallet ----
  function pad32(hex) { return ("0".repeat(64) + hex).slice(-64); }
  function walletError(e) {
    var msg = String((e && e.message) || e || "");
    var code = e && e.code;
    var entry = null;
    if (code === 4001 || code === "ACTION_REJECTED" || /reject|denied|cancel/i.test(msg)) entry = cfg.texts.userRejected;
    else if (/insufficient/i.test(msg)) entry = cfg.texts.insufficientBalance;
    telemetry("error", entry ? entry.code : ""); // recorded for the merchant; never a status change
    var el = $("wallet-error");
    el.setAttribute("data-code", entry ? entry.code : "");
    show(el, entry ? entry.description + " " + entry.action : "The wallet could not send the payment: " + msg);
  }
  function ensureChain(eth) {
    var want = "0x" + Number(cfg.chain.chainId).toString(16);
    return eth.request({ method: "eth_chainId" }).then(function (have) {
      if (parseInt(have, 16) === Number(cfg.chain.chainId)) return;
      return eth.request({ method: "wallet_switchEthereumChain", params: [{ chainId: want }] }).catch(function (e) {
        if (!(e && (e.code === 4902 || /unrecognized|unknown chain|not added/i.test(e.message || ""))) || !cfg.chain.rpcUrl) throw e;
        return eth.request({ method: "wallet_addEthereumChain", params: [{ chainId: want, chainName: cfg.chain.name,
          nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: [cfg.chain.rpcUrl] }] });
      });
    });
  }
  function enoughBalance(eth, from, r) {
    var units = BigInt(r.amountUnits);
    var call = r.tokenAddress
      ? eth.request({ method: "eth_call", params: [{ to: r.tokenAddress, data: "0x70a08231" + pad32(from.slice(2).toLowerCase()) }, "latest"] })
      : eth.request({ method: "eth_getBalance", params: [from, "latest"] });
    return call.then(function (bal) {
      if (bal && BigInt(bal) < units) throw new Error("insufficient balance");
    }, function () { /* the wallet cannot say: let it decide when sending */ });
  }
  function payWithWallet() {
    var eth = window.ethereum;
    show($("wallet-error"), "");
    if (!eth || typeof eth.request !== "function") {
      show($("wallet-error"), "No browser wallet was found. Scan the QR code with a mobile wallet, or pay by card or bank.");
      return;
    }
    var r = current;
    if (!r || !r.uri) return;
    var from;
    var btn = $("pay-wallet");
    btn.disabled = true;
    telemetry("checkout_initialized");
    eth.request({ method: "eth_requestAccounts" }).then(function (accounts) {
      if (!accounts || !accounts.length) throw { code: 4001, message: "no account was shared" };
      from = accounts[0];
      return ensureChain(eth);
    }).then(function () {
      return enoughBalance(eth, from, r);
    }).then(function () {
      var units = BigInt(r.amountUnits).toString(16);
      var tx = r.tokenAddress
        ? { from: from, to: r.tokenAddress, value: "0x0", data: "0xa9059cbb" + pad32(r.recipient.slice(2).toLowerCase()) + pad32(units) }
        : { from: from, to: r.recipient, value: "0x" + units };
      return eth.request({ method: "eth_sendTransaction", params: [tx] });
    }).then(function (hash) {
      return post("/payment", { token: r.token, transactionHash: hash, buyerWallet: from });
    }).then(function (res) {
      update({ status: res.status, inProgress: res.status === "pending" }); // the stream then says more
    }).catch(walletError).then(function () { btn.disabled = false; });
  }

  // ---- card or bank ----
  function payWithCard() {
    var btn = $("pay-card");
    btn.disabled = true;
    show($("wallet-error"), "");
    post("/onramp", {}).then(function (res) {
      if (!res.redirectUrl || !/^https?:\/\//.test(res.redirectUrl)) throw new Error("the processor gave no checkout address");
      window.location.assign(res.redirectUrl);
    }).catch(function (e) {
      btn.disabled = false;
      show($("wallet-error"), "Card or bank payment is not available now: " + e.message);
    });
  }

  // ---- live status ----
  var lastStatus = cfg.status;
  function update(s) {
    if (!s || !s.status) return;
    var el = $("status");
    el.textContent = cfg.labels[s.status] || s.status;
    el.setAttribute("data-status", s.status);
    lastStatus = s.status;
    var f = $("failure");
    if (s.status === "failed" && s.failure) {
      f.textContent = "";
      var d = document.createElement("p"); d.id = "failure-description"; d.textContent = s.failure.description;
      var a = document.createElement("p"); a.id = "failure-action"; a.textContent = s.failure.action;
      f.appendChild(d); f.appendChild(a); f.hidden = false;
    } else if (s.status !== "failed") { f.hidden = true; }
    // A payment is being confirmed (the service's inProgress): not every pending receipt is, one
    // whose bank payment ended short waits for the customer to pay again.
    var busy = !!s.inProgress;
    if (s.windowEnded && settled.indexOf(s.status) < 0) { lastNote = s.windowNote; endWindow(s.windowNote); }
    var under = received(s);
    receivedChanged(s);
    if (under) el.textContent = cfg.underpaidLabel;
    if ($("pay-card")) $("pay-card").textContent = under ? cfg.cardRestLabel : cfg.cardLabel;
    $("in-progress").hidden = !busy || under || ended;
    // No second payment while one is being confirmed, except the rest of an underpayment.
    var pay = $("pay"), was = pay && pay.hidden;
    if (pay) pay.hidden = busy && !under;
    // Shown again (a bank payment that ended short reopened the receipt): the request read while
    // they were hidden was refused (no payment starts while one is confirmed), so the page showed
    // no amount, address or QR and its wallet button did nothing. What is due is read again.
    if (was && !pay.hidden && !current && $("token") && settled.indexOf(s.status) < 0) requote($("token").value);
    if (settled.indexOf(s.status) >= 0) {
      $("in-progress").hidden = true;
      $("window-ended").hidden = true; // paid late: the receipt view says the rest
      tick();
      var pay = $("pay");
      if (pay) pay.parentNode.removeChild(pay);
      if (s.payment) {
        $("paid-token").textContent = s.payment.token || s.payment.verifiedBy || "";
        $("paid-tx").textContent = s.payment.transactionHash || "";
      }
      $("receipt-view").hidden = false;
    }
  }
  function poll() {
    window.__paymentPolling = true;
    fetch(base + "/status").then(function (res) { return res.json(); }).then(function (s) {
      update(s);
      window.__paymentPolls = (window.__paymentPolls || 0) + 1;
      if (closing.indexOf(s.status) < 0) setTimeout(poll, 3000);
    }).catch(function () { setTimeout(poll, 5000); });
  }
  function listen() {
    if (typeof EventSource === "undefined") { poll(); return; }
    var es = new EventSource(base + "/events");
    var failures = 0;
    es.onmessage = function (m) {
      failures = 0;
      var s;
      try { s = JSON.parse(m.data); } catch (e) { return; }
      update(s);
      if (closing.indexOf(s.status) >= 0) es.close();
    };
    es.onerror = function () {
      // EventSource reconnects by itself; after repeated failures, fall back to polling.
      if (++failures >= 3 || es.readyState === 2) { es.close(); poll(); }
    };
    window.__paymentEvents = es;
  }

  // ---- wiring ----
  var sel = $("token");
  if (sel) sel.addEventListener("change", function () { requote(sel.value); });
  Array.prototype.forEach.call(document.querySelectorAll("button.copy"), function (b) {
    b.addEventListener("click", function () { copy(b.getAttribute("data-copy")); });
  });
  if ($("pay-wallet")) $("pay-wallet").addEventListener("click", payWithWallet);
  if ($("pay-card")) $("pay-card").addEventListener("click", payWithCard);
  telemetry("link_opened");
  if (sel && settled.indexOf(lastStatus) < 0) requote(sel.value);
  if (closing.indexOf(lastStatus) < 0) listen();
  tick();
  document.documentElement.setAttribute("data-ready", "1");
})();
