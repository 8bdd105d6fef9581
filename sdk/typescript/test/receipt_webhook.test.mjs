// The verifier of the spec's X-Service-Signature (receipt webhooks) against a signature computed
// apart from it (Python's hmac over the same bytes and key; the Go SDK's test uses the same).
import { test } from "node:test";
import assert from "node:assert/strict";
import { verifyReceiptWebhook, WebhookVerificationError } from "../dist/index.js";

const key = "plk_example_key";
const body = '{"event":"receipt.status_updated","receiptId":"rcpt_1","status":"paid"}';
const sig = "sha256=72fcbb5d939d9f42bf88f330463f2f4eff62c04a47d4529c268616e180688bb6";

const cases = [
  { name: "valid", key, body, h: new Headers({ "X-Service-Signature": sig }), ok: true },
  { name: "a Node header record", key, body, h: { "x-service-signature": sig }, ok: true },
  { name: "hex in upper case", key, body, h: { "x-service-signature": "sha256=" + sig.slice(7).toUpperCase() }, ok: true },
  { name: "body changed", key, body: body.replace("paid", "failed"), h: { "x-service-signature": sig }, ok: false },
  { name: "body re-serialized", key, body: body.replaceAll(",", ", "), h: { "x-service-signature": sig }, ok: false },
  { name: "another key", key: "plk_other", body, h: { "x-service-signature": sig }, ok: false },
  { name: "no key", key: "", body, h: { "x-service-signature": sig }, ok: false },
  { name: "no prefix", key, body, h: { "x-service-signature": sig.slice(7) }, ok: false },
  { name: "not hex", key, body, h: { "x-service-signature": "sha256=zz" }, ok: false },
  { name: "no header", key, body, h: {}, ok: false },
];

for (const c of cases) {
  test(`verifyReceiptWebhook: ${c.name}`, async () => {
    if (c.ok) {
      assert.equal((await verifyReceiptWebhook(c.key, c.body, c.h)).status, "paid");
    } else {
      await assert.rejects(verifyReceiptWebhook(c.key, c.body, c.h), WebhookVerificationError);
    }
  });
}
