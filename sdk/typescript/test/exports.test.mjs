// The CSV exports read the way the README says (parseAs "text"), against a running payledger
// (sdk/run-examples.sh starts one); the default JSON parsing throws on CSV.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "../dist/index.js";

const { PAYLEDGER_BASE_URL: base, PAYLEDGER_API_KEY: apiKey } = process.env;

test("the receipts export reads as text", { skip: !(base && apiKey) && "run sdk/run-examples.sh" }, async () => {
  const client = createClient(base, apiKey);
  const { data, response } = await client.GET("/api/exports/receipts.csv", { parseAs: "text" });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/csv/);
  assert.match(String(data), /^receiptId,createdAt,status,/);
});
