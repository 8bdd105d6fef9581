// The README's example against a running payledger (sdk/run-examples.sh starts one with a
// development chain and a dev merchant): create an order, read its status, pay it with
// `payledger devchain pay`, and verify the webhook that `payledger listen` forwards.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { spawn, execFile } from "node:child_process";
import { once } from "node:events";
import { promisify } from "node:util";
import { createClient, Webhook } from "../dist/index.js";

const { PAYLEDGER_BASE_URL: base, PAYLEDGER_API_KEY: apiKey, PAYLEDGER_BIN: bin } = process.env;

test("README example against payledger", { skip: !(base && apiKey && bin) && "run sdk/run-examples.sh", timeout: 180_000 }, async (t) => {
  const secret = "whsec_" + Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString("base64");
  const webhook = new Webhook(secret);
  const hooks = [];
  let arrived = () => {};
  const receiver = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    try {
      hooks.push(await webhook.verify(body, req.headers));
      res.writeHead(204).end();
    } catch (err) {
      hooks.push({ refused: String(err) });
      res.writeHead(400).end();
    }
    arrived();
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  t.after(() => receiver.close());
  const listen = spawn(bin, ["listen", "--base-url", base, "--api-key", apiKey, "--secret", secret,
    "--forward-to", `http://127.0.0.1:${receiver.address().port}/webhook`], { stdio: ["ignore", "pipe", "inherit"] });
  t.after(() => listen.kill());
  const [first] = await once(listen.stdout, "data");
  assert.match(String(first), /^Forwarding events/);

  // The README's five lines.
  const client = createClient(base, apiKey);
  const { data: order, error } = await client.POST("/api/orders", { body: { items: [{ sku: "DEV-COFFEE", qty: 2 }] } });
  assert.ok(order?.receipt?.receiptId, JSON.stringify(error));
  const receiptId = order.receipt.receiptId;
  const { data: status } = await client.GET("/api/receipts/status", { params: { query: { receiptId } } });
  assert.equal(status?.receiptId, receiptId);
  t.diagnostic(`receipt ${receiptId}: ${status.status}, ${status.amountRequired} ${status.token} due`);
  // What the README's comment prints: the dev merchant's 2 × 4.50 plus the 0.5% fee.
  assert.deepEqual([status.status, status.amountRequired, status.token], ["generated", "9.05", "USDC"]);

  await promisify(execFile)(bin, ["devchain", "pay", receiptId, "--base-url", base]);
  const paid = (h) => h.data?.receiptId === receiptId && ["paid", "reconciled"].includes(h.data?.status);
  for (;;) {
    const next = new Promise((resolve) => { arrived = resolve; });
    assert.ok(!hooks.some((h) => h.refused), `a delivery was refused: ${JSON.stringify(hooks)}`);
    if (hooks.some(paid)) break;
    await next;
  }
  const { data: final } = await client.GET("/api/receipts/status", { params: { query: { receiptId } } });
  assert.ok(["paid", "reconciled"].includes(final?.status), JSON.stringify(final));
});
