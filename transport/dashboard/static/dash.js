// The merchant dashboard's one script: sign-in with a browser wallet (EIP-1193 + EIP-712), sign-out,
// and the forms, which it sends as JSON to the admin API with the session's CSRF token. The pages
// are rendered on the server; this script adds no markup from data (only textContent).
(function () {
  "use strict";

  function csrf() {
    var m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.getAttribute("content") : "";
  }

  function api(method, url, body) {
    var headers = { "Content-Type": "application/json" };
    var token = csrf();
    if (token) headers["x-csrf-token"] = token;
    var init = { method: method, headers: headers, credentials: "same-origin" };
    if (body !== undefined) init.body = JSON.stringify(body);
    return fetch(url, init).then(function (r) {
      return r.text().then(function (text) {
        var j = {};
        try { j = text ? JSON.parse(text) : {}; } catch (e) { j = {}; }
        if (!r.ok) throw new Error(j.message || "HTTP " + r.status);
        return j;
      });
    });
  }

  // safeNext keeps a sign-in's return path on the dashboard.
  function safeNext(n) {
    return typeof n === "string" && /^\/dashboard(\/|\?|$)/.test(n) && n.indexOf("//") < 0 ? n : "/dashboard";
  }

  function signIn(button) {
    var err = document.getElementById("login-error");
    err.hidden = true;
    if (!window.ethereum || typeof window.ethereum.request !== "function") {
      err.textContent = "No browser wallet found. Install one (or, in development, use the link `payledger dev merchant` prints).";
      err.hidden = false;
      return;
    }
    button.disabled = true;
    var wallet;
    window.ethereum.request({ method: "eth_requestAccounts" }).then(function (accounts) {
      wallet = String(accounts[0] || "").toLowerCase();
      return api("POST", "/api/auth/nonce", { wallet: wallet });
    }).then(function (ch) {
      return window.ethereum.request({ method: "eth_signTypedData_v4", params: [wallet, JSON.stringify(ch.typedData)] })
        .then(function (sig) { return api("POST", "/api/auth/login", { wallet: wallet, signature: sig, nonce: ch.nonce }); });
    }).then(function () {
      location.assign(safeNext(button.getAttribute("data-next")));
    }).catch(function (e) {
      button.disabled = false;
      err.textContent = e && e.code === 4001 ? "The wallet declined to sign in." : "Sign-in failed: " + ((e && e.message) || e);
      err.hidden = false;
    });
  }

  function put(obj, name, value) {
    var parts = name.split(".");
    for (var i = 0; i < parts.length - 1; i++) obj = obj[parts[i]] = obj[parts[i]] || {};
    obj[parts[parts.length - 1]] = value;
  }

  // formBody is a form's fields as the API's JSON: dotted names nest, data-type="list" checkboxes
  // collect into an array, data-type="number" is a number, data-type="boolean" is true or false
  // (a checkbox's checked, another field's value "true"; the API refuses the string "true"),
  // data-type="recipients" is one "address shareBps" per line; empty fields are left out (the
  // API's defaults apply), but for those marked data-clear, whose "" clears the value (a shop's
  // name or logo: left out, the logo a merchant emptied stayed, with no word).
  function formBody(form) {
    var out = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.disabled) return;
      var type = el.getAttribute("data-type"), v = el.value;
      if (type === "boolean") {
        put(out, el.name, el.type === "checkbox" ? el.checked : v === "true");
        return;
      }
      if (el.type === "checkbox") {
        if (!out[el.name]) out[el.name] = [];
        if (el.checked) out[el.name].push(v);
        return;
      }
      if (v === "" && !el.hasAttribute("data-clear")) return;
      if (type === "number") {
        if (!/^\d+(\.\d+)?$/.test(v.trim())) throw new Error("Enter an amount such as 12.50");
        v = Number(v.trim());
      } else if (type === "recipients") {
        v = v.split("\n").map(function (l) { return l.trim(); }).filter(Boolean).map(function (l) {
          var p = l.split(/[\s,]+/);
          return { address: p[0], sharesBps: Number(p[1]) };
        });
      }
      put(out, el.name, v);
    });
    return out;
  }

  // pick reads a dotted path of an answer ("endpoint.secret").
  function pick(obj, path) {
    path.split(".").forEach(function (k) { obj = obj && typeof obj === "object" ? obj[k] : undefined; });
    return obj;
  }

  // An "all" checkbox (data-all) stands alone: checking it clears the others of its group, and
  // checking another clears it (the API refuses "*" with other types).
  function exclusiveAll(box) {
    if (!box.checked) return;
    var all = box.hasAttribute("data-all");
    Array.prototype.forEach.call(box.form.querySelectorAll('input[type=checkbox][name="' + box.name + '"]'), function (o) {
      if (o !== box && (all || o.hasAttribute("data-all"))) o.checked = false;
    });
  }

  function submit(form, ev) {
    ev.preventDefault();
    var err = form.querySelector(".error"), button = form.querySelector("[type=submit]");
    if (err) err.hidden = true;
    var body;
    try { body = formBody(form); } catch (e) {
      if (err) { err.textContent = e.message; err.hidden = false; }
      return;
    }
    if (button) button.disabled = true;
    api(form.getAttribute("data-method") || "POST", form.getAttribute("data-api"), body).then(function (res) {
      var show = form.getAttribute("data-show"), done = form.getAttribute("data-done");
      if (done) { // the change happens later (a test event is sent by the dispatcher): say so
        if (button) button.disabled = false;
        var note = form.querySelector(".done");
        note.textContent = done;
        note.hidden = false;
        return;
      }
      if (!show) { location.reload(); return; }
      var box = form.querySelector(".secret");
      box.querySelector(".value").textContent = String(pick(res, show) || "");
      box.hidden = false;
    }).catch(function (e) {
      if (button) button.disabled = false;
      if (err) { err.textContent = e.message; err.hidden = false; }
    });
  }

  // follow opens an event stream of {receiptId, status} and calls found(receiptId, status) for
  // each well-formed event; it returns the stream (null without EventSource: browsers without it
  // keep the page as rendered).
  function follow(url, found) {
    if (typeof EventSource === "undefined") return null;
    var es = new EventSource(url);
    es.onmessage = function (m) {
      var ev;
      try { ev = JSON.parse(m.data); } catch (e) { return; }
      var st = String(ev.status || "");
      if (/^[a-z_]+$/.test(st)) found(String(ev.receiptId || ""), st);
    };
    return es;
  }

  // setBadge shows status st on a badge; it answers whether that changed anything.
  function setBadge(badge, st) {
    if (st === badge.getAttribute("data-status")) return false;
    badge.textContent = st;
    badge.className = "badge " + st.replace(/_/g, "-");
    badge.setAttribute("data-status", st);
    return true;
  }

  // A receipt's page follows its status through the payment page's event stream: the badge
  // changes in place and a note offers a reload for the rest (forms keep their input). The
  // stream ends at the statuses of data-live-ends (reconciled, refunds), where following stops:
  // EventSource would open the ended stream again every 2 s while the page stays open, each a
  // request on the merchant's address's public limit, which the dashboard's pages share.
  function liveStatus(badge) {
    var ends = (badge.getAttribute("data-live-ends") || "").split(" ");
    var es = follow(badge.getAttribute("data-live"), function (id, st) {
      if (setBadge(badge, st)) document.getElementById("live-note").hidden = false;
      if (es && ends.indexOf(st) >= 0) es.close();
    });
  }

  // The receipts list follows the statuses of its rows (but refunded ones, which are final)
  // through the dashboard's stream.
  function liveList(table) {
    var rows = {}, ids = [];
    Array.prototype.forEach.call(table.querySelectorAll("tbody tr[data-id]"), function (tr) {
      var badge = tr.querySelector(".badge");
      if (!badge || badge.getAttribute("data-status") === "refunded" || ids.length >= 50) return;
      rows[tr.getAttribute("data-id")] = badge;
      ids.push(tr.getAttribute("data-id"));
    });
    if (!ids.length) return;
    follow("/dashboard/events?ids=" + encodeURIComponent(ids.join(",")), function (id, st) {
      if (Object.prototype.hasOwnProperty.call(rows, id)) setBadge(rows[id], st);
    });
  }

  var login = document.getElementById("login");
  if (login) login.addEventListener("click", function () { signIn(login); });
  // Sign-out leaves the page only once the service has ended the session: a refused logout (the
  // datastore down, the address's limit) keeps the session and its cookie, and leaving for the
  // sign-in page would tell whoever uses this browser next that the merchant was signed out.
  var out = document.getElementById("signout");
  if (out) out.addEventListener("click", function () {
    var err = document.getElementById("signout-error");
    if (err) err.hidden = true;
    out.disabled = true;
    api("POST", "/api/auth/logout", {}).then(function () { location.assign("/dashboard/login"); }, function (e) {
      out.disabled = false;
      if (err) { err.textContent = "Not signed out (" + e.message + "): still signed in. Try again."; err.hidden = false; }
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("form[data-api]"), function (f) {
    f.addEventListener("submit", function (ev) { submit(f, ev); });
  });
  Array.prototype.forEach.call(document.querySelectorAll("input[type=checkbox][data-all]"), function (a) {
    Array.prototype.forEach.call(a.form.querySelectorAll('input[type=checkbox][name="' + a.name + '"]'), function (b) {
      b.addEventListener("change", function () { exclusiveAll(b); });
    });
  });
  var live = document.querySelector("[data-live]");
  if (live) liveStatus(live);
  var list = document.getElementById("receipts");
  if (list && list.tagName === "TABLE") liveList(list);
  document.documentElement.setAttribute("data-ready", "1");
})();
