// The paged lists' helpers against a fetch that serves three pages of receipts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createClient, allReceipts, ApiError } from "../dist/index.js";

const pages = {
  "": { receipts: [{ receiptId: "r1" }, { receiptId: "r2" }], next: "c1" },
  c1: { receipts: [{ receiptId: "r3" }, { receiptId: "r4" }], next: "c2" },
  c2: { receipts: [{ receiptId: "r5" }], next: null },
};

function served() {
  const asked = [];
  const fetch = async (request) => {
    const url = new URL(request.url);
    asked.push(url.search);
    const page = pages[url.searchParams.get("cursor") ?? ""];
    const json = (status, body) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
    return page ? json(200, page) : json(400, { error: "invalid_input", message: "cursor is not one this API issued" });
  };
  return { asked, client: createClient("http://payledger.test", "k", { fetch }) };
}

test("allReceipts walks every page with the caller's query", async () => {
  const { asked, client } = served();
  const ids = [];
  for await (const r of allReceipts(client, { limit: 2 })) ids.push(r.receiptId);
  assert.deepEqual(ids, ["r1", "r2", "r3", "r4", "r5"]);
  assert.deepEqual(asked, ["?limit=2", "?limit=2&cursor=c1", "?limit=2&cursor=c2"]);
});

test("a loop that breaks stops fetching", async () => {
  const { asked, client } = served();
  for await (const r of allReceipts(client, { limit: 2 })) if (r.receiptId === "r3") break;
  assert.equal(asked.length, 2);
});

test("a refused page throws ApiError with the envelope", async () => {
  const { client } = served();
  await assert.rejects(async () => {
    for await (const _ of allReceipts(client, { cursor: "forged" }));
  }, (err) => err instanceof ApiError && err.status === 400 && err.envelope?.error === "invalid_input");
});
