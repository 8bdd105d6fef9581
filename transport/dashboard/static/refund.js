// "Refund with wallet" on a receipt's page (issue 41): the merchant's browser wallet (EIP-1193)
// sends the refund to the customer (an ERC-20 transfer, or ETH), then the page posts its hash to
// POST /api/receipts/refund, where it is a claim until the chain confirms it. While a claim waits,
// the page reloads until it shows refunded (or refused), less and less often. The amount in token
// units is ceil(cents × total units / total cents), never less than the service asks. It adds no
// markup from data (only textContent).
(function () {
  "use strict";

  // sessionGet and sessionSet keep a value in this tab's sessionStorage; sessionGet answers
  // undefined where there is none (storage disabled, a value not ours).
  function sessionGet(key) {
    try {
      var v = window.sessionStorage.getItem(key);
      return v ? JSON.parse(v) : null;
    } catch (e) { return undefined; }
  }
  function sessionSet(key, v) {
    try {
      if (v === null) window.sessionStorage.removeItem(key);
      else window.sessionStorage.setItem(key, JSON.stringify(v));
    } catch (e) { /* no storage: the next load checks at the slowest pace */ }
  }
  // recheckDelay is the wait before the page's n-th reload for the same pending claims: 3 s, then
  // twice as long each time, at most a minute (also when n is unknown).
  function recheckDelay(n) { return n >= 0 && n < 5 ? 3000 * Math.pow(2, n) : 60000; }
  // reloadWhenIdle reloads unless the merchant is in a field (then it tries again later) or the
  // tab is hidden (then once it is shown: nobody reads a hidden page).
  function reloadWhenIdle() {
    var typing = document.activeElement && /^(INPUT|TEXTAREA)$/.test(document.activeElement.tagName);
    if (typing) { setTimeout(reloadWhenIdle, recheckDelay(-1)); return; }
    if (document.hidden) {
      document.addEventListener("visibilitychange", function shown() {
        if (document.hidden) return;
        document.removeEventListener("visibilitychange", shown);
        reloadWhenIdle();
      });
      return;
    }
    location.reload();
  }
  // While a claim waits for the chain the page reloads to show its outcome, backing off: at every
  // 3 s, for as long as the verifier waited (for ever for a transaction never mined), a tab made
  // 20 requests a minute on the merchant's address's public limit (60), which the dashboard's
  // pages share. The count of reloads is kept per page and set of pending claims, so a new claim
  // is checked soon again.
  function awaitClaims(list) {
    var key = "payledger.refund-wait " + location.pathname;
    if (list.getAttribute("data-pending") !== "true") { sessionSet(key, null); return; }
    var pending = Array.prototype.map.call(list.querySelectorAll('li[data-state="claimed"]'), function (li) {
      return li.getAttribute("data-hash") || "";
    }).join(" ");
    var was = sessionGet(key), n;
    if (was === null || (was && was.pending !== pending)) n = 0; // the first wait for these claims
    else n = was && typeof was.n === "number" ? was.n : -1; // unknown: the slowest pace
    sessionSet(key, { pending: pending, n: n < 0 ? 5 : n + 1 });
    setTimeout(reloadWhenIdle, recheckDelay(n));
  }

  var list = document.getElementById("refunds");
  if (list) awaitClaims(list);
  Array.prototype.forEach.call(document.querySelectorAll("form.unknown-refund"), unknownRefund);
  var box = document.getElementById("wallet-refund");
  if (!box) return;
  var form = document.getElementById("refund"), amountEl = document.getElementById("refund-amount");
  var reasonEl = document.getElementById("refund-reason"), out = document.getElementById("wallet-refund-amount");
  var err = document.getElementById("wallet-refund-error"), button = document.getElementById("refund-wallet");
  var d = box.dataset, decimals = Number(d.decimals);

  function cents(v) {
    var m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(String(v).trim());
    if (!m) return null;
    return BigInt(m[1]) * 100n + BigInt(((m[2] || "") + "00").slice(0, 2));
  }
  function units(c) {
    var total = BigInt(d.totalCents);
    return (c * BigInt(d.totalUnits) + total - 1n) / total;
  }
  function tokenText(u) {
    var s = u.toString().padStart(decimals + 1, "0");
    var whole = s.slice(0, s.length - decimals), frac = s.slice(s.length - decimals).replace(/0+$/, "");
    return frac ? whole + "." + frac : whole;
  }
  function centsText(c) { var s = c.toString().padStart(3, "0"); return s.slice(0, -2) + "." + s.slice(-2); }
  function fail(msg) { err.textContent = msg; err.hidden = false; }
  function show() {
    if (!amountEl) return; // a receipt that owes only its excess: no amount to edit
    var c = cents(amountEl.value);
    out.textContent = c && c > 0n ? tokenText(units(c)) : "…";
  }
  function pad32(hex) { return hex.padStart(64, "0"); }
  function csrf() {
    var m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.getAttribute("content") : "";
  }
  function post(body) {
    return fetch("/api/receipts/refund", { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "x-csrf-token": csrf() }, body: JSON.stringify(body) })
      .then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (j) {
          if (!r.ok) throw new Error(j.message || "HTTP " + r.status);
          return j;
        });
      });
  }
  // accountOn asks the wallet for its account and to be on chainId; it resolves to the account.
  function accountOn(eth, chainId) {
    var from;
    return eth.request({ method: "eth_requestAccounts" }).then(function (accounts) {
      if (!accounts || !accounts.length) throw { code: 4001, message: "no account was shared" };
      from = accounts[0];
      return ensureChain(eth, chainId);
    }).then(function () { return from; });
  }

  // transferData is the call data of an ERC-20 transfer(to, amount); to is a lower-case 0x address
  // and amount a BigInt of base units.
  function transferData(to, amount) {
    return "0xa9059cbb" + pad32(to.slice(2)) + pad32(amount.toString(16));
  }

  function ensureChain(eth, chainId) {
    var want = Number(chainId);
    return eth.request({ method: "eth_chainId" }).then(function (have) {
      if (parseInt(have, 16) === want) return;
      return eth.request({ method: "wallet_switchEthereumChain", params: [{ chainId: "0x" + want.toString(16) }] });
    });
  }

  // unknownRefund wires an unconfigured token's row: its wallet sends the raw amount of that
  // contract to the sender (ERC-20 transfer), then the form posts the hash with unknownTransfer.
  function unknownRefund(f) {
    var b = f.querySelector(".unknown-refund-wallet"), e = f.querySelector(".error"), hashEl = f.querySelector('[name="transactionHash"]');
    if (!b) return;
    var fd = f.dataset;
    function say(msg) { e.textContent = msg; e.hidden = false; }
    b.addEventListener("click", function () {
      e.hidden = true;
      var eth = window.ethereum;
      if (!eth || typeof eth.request !== "function") { say("No browser wallet found: send the refund from your wallet and paste its hash."); return; }
      b.disabled = true;
      accountOn(eth, fd.chainId).then(function (from) {
        var data = transferData(fd.to.toLowerCase(), BigInt(fd.units));
        return eth.request({ method: "eth_sendTransaction", params: [{ from: from, to: fd.tokenAddress, value: "0x0", data: data }] });
      }).then(function (hash) {
        hashEl.value = String(hash).toLowerCase();
        f.requestSubmit(); // dash.js posts the form (with unknownTransfer) and reloads
      }).catch(function (x) {
        b.disabled = false;
        say(x && x.code === 4001 ? "The wallet declined to send the refund." : "The refund was not sent: " + ((x && x.message) || x));
      });
    });
  }

  // send has the wallet send c cents' worth to the customer, then posts the refund with its hash;
  // excess marks a refund of what the customer sent beyond the total (the API's "excess": true),
  // which leaves the order's refundable amount as it was. After is called with the hash sent when
  // the post failed (the money moved), else with "".
  function send(c, maxCents, excess, b, after) {
    err.hidden = true;
    var eth = window.ethereum;
    if (!c || c <= 0n) { fail("Enter an amount such as 12.50"); return; }
    // The API refuses more than this only once the wallet has sent it: refuse it before.
    if (c > maxCents) { fail("At most " + centsText(maxCents) + " can be refunded."); return; }
    if (!eth || typeof eth.request !== "function") { fail("No browser wallet found: send the refund from your wallet and paste its hash below."); return; }
    var sent = "", u = units(c), to = d.to.toLowerCase();
    b.disabled = true;
    accountOn(eth, d.chainId).then(function (from) {
      var tx = d.tokenAddress
        ? { from: from, to: d.tokenAddress, value: "0x0", data: transferData(to, u) }
        : { from: from, to: to, value: "0x" + u.toString(16) };
      return eth.request({ method: "eth_sendTransaction", params: [tx] });
    }).then(function (hash) {
      sent = String(hash).toLowerCase();
      return record(c, sent, excess);
    }).then(function () {
      location.reload();
    }).catch(function (e) {
      b.disabled = false;
      after(sent, e);
    });
  }
  // record posts a refund the wallet sent (a blank reason is refused, after the money left).
  function record(c, hash, excess) {
    var body = { receiptId: form.querySelector('[name="receiptId"]').value, amountUsd: Number(centsText(c)),
      reason: reasonEl.value.trim() || "Refund", transactionHash: hash };
    if (excess) body.excess = true;
    return post(body);
  }
  function declined(e) {
    fail(e && e.code === 4001 ? "The wallet declined to send the refund." : "The refund was not sent: " + ((e && e.message) || e));
  }

  // refund is "Refund with wallet": a refund of the order, of the amount field.
  function refund() {
    send(cents(amountEl.value), BigInt(d.maxCents || "0"), false, button, function (sent, e) {
      if (!sent) { declined(e); return; }
      // the money moved: keep its hash for the manual path
      document.getElementById("refund-hash").value = sent;
      fail("The wallet sent the refund (" + sent + ") but it was not recorded: " + ((e && e.message) || e) + ". Submit the form below to record it.");
    });
  }

  // "Refund the excess" sends what the customer paid beyond the total (data-amount, the receipt's
  // unrefunded excess) and records it as a refund of the excess, never of the order: posted as an
  // order refund it counted against the order's refundable amount. An excess refund sent but not
  // recorded is recorded by the same button again (nothing is sent twice), or, after the page is
  // left, by its hash in the form "Sent the excess already?" (excess: true), which gets the hash.
  var excess = document.getElementById("refund-excess"), unrecorded = "";
  function refundExcess() {
    var c = cents(excess.getAttribute("data-amount"));
    if (unrecorded) {
      err.hidden = true;
      excess.disabled = true;
      record(c, unrecorded, true).then(function () { location.reload(); }).catch(function (e) {
        excess.disabled = false;
        fail("The refund of the excess (" + unrecorded + ") was not recorded: " + ((e && e.message) || e) + ". Press \"Refund the excess\" again to record it.");
      });
      return;
    }
    send(c, c, true, excess, function (sent, e) {
      if (!sent) { declined(e); return; }
      unrecorded = sent;
      var kept = document.getElementById("refund-excess-hash");
      if (kept) kept.value = sent;
      fail("The wallet sent the refund of the excess (" + sent + ") but it was not recorded: " + ((e && e.message) || e) +
        ". Press \"Refund the excess\" again to record it (nothing is sent again), or keep this hash for \"Sent the excess already?\".");
    });
  }

  // A receipt whose order is refunded but that still owes its excess shows "Refund the excess" alone.
  if (amountEl) amountEl.addEventListener("input", show);
  if (button) button.addEventListener("click", refund);
  if (excess) excess.addEventListener("click", refundExcess);
  show();
})();
