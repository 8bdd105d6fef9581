// The verifier against the Standard Webhooks specification's own example (the Go SDK's test
// uses the same), so that it agrees with the service's signer and the reference libraries.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Webhook, WebhookVerificationError } from "../dist/index.js";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = '{"test": 2432232314}';
const signedAt = 1614265330 * 1000;
const headers = (over = {}) => new Headers({
  "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
  "webhook-timestamp": "1614265330",
  "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
  ...over,
});

const cases = [
  { name: "valid", at: signedAt, h: headers(), ok: true },
  { name: "a Node header record", at: signedAt, h: Object.fromEntries(headers()), ok: true },
  { name: "one of several signatures", at: signedAt, h: headers({ "webhook-signature": "v1,AAAA v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" }), ok: true },
  { name: "4m59s late", at: signedAt + 299_000, h: headers(), ok: true },
  { name: "body changed", at: signedAt, h: headers(), body: '{"test": 2432232315}' },
  { name: "id changed", at: signedAt, h: headers({ "webhook-id": "msg_other" }) },
  { name: "another version", at: signedAt, h: headers({ "webhook-signature": "v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" }) },
  { name: "6 minutes old", at: signedAt + 360_000, h: headers() },
  { name: "6 minutes ahead", at: signedAt - 360_000, h: headers() },
  { name: "no signature", at: signedAt, h: headers({ "webhook-signature": "" }) },
];

for (const c of cases) {
  test(`verify: ${c.name}`, async () => {
    const wh = new Webhook(secret, () => c.at);
    const p = wh.verify(c.body ?? body, c.h);
    if (c.ok) assert.deepEqual(await p, { test: 2432232314 });
    else await assert.rejects(p, WebhookVerificationError);
  });
}

test("a secret that is not base64 is refused", () => {
  assert.throws(() => new Webhook("whsec_!!!"));
  assert.throws(() => new Webhook("whsec_"));
});
