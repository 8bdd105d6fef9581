// createClient's headers: the API key on every request, beside the caller's own headers in any
// form fetch accepts (a Headers object, a list of pairs, a record).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createClient, KEY_HEADER } from "../dist/index.js";

const forms = {
  "a Headers object": new Headers({ "X-Trace": "t1" }),
  "a list of pairs": [["X-Trace", "t1"]],
  "a record": { "X-Trace": "t1" },
};

for (const [name, headers] of Object.entries(forms)) {
  test(`createClient keeps the caller's headers given as ${name}`, async () => {
    const seen = [];
    const fetch = async (request) => {
      seen.push(request.headers);
      return new Response("{}", { status: 200, headers: { "Content-Type": "application/json" } });
    };
    const client = createClient("http://payledger.test/", "plk_key", { headers, fetch });
    await client.GET("/api/status/ping");
    assert.equal(seen.length, 1);
    assert.equal(seen[0].get(KEY_HEADER), "plk_key");
    assert.equal(seen[0].get("X-Trace"), "t1");
  });
}

test("the caller's own key header does not replace or join the client's", async () => {
  let key;
  const fetch = async (request) => {
    key = request.headers.get(KEY_HEADER);
    return new Response("{}", { status: 200, headers: { "Content-Type": "application/json" } });
  };
  const client = createClient("http://payledger.test", "plk_key", { headers: { "ocp-apim-subscription-key": "other" }, fetch });
  await client.GET("/api/status/ping");
  assert.equal(key, "plk_key");
});
