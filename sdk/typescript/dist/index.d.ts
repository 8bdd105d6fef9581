import { type Client, type ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";
export type { components, operations, paths } from "./schema.js";
export type Receipt = components["schemas"]["Receipt"];
export type StatusRead = components["schemas"]["StatusRead"];
export type Item = components["schemas"]["Item"];
export type Delivery = components["schemas"]["Delivery"];
export type Subscription = components["schemas"]["Subscription"];
export type ErrorEnvelope = components["schemas"]["Error"];
/** The header that carries the API key. */
export declare const KEY_HEADER = "Ocp-Apim-Subscription-Key";
/**
 * A typed client of the service at baseUrl (for example http://localhost:8080) that sends apiKey
 * with every request: `client.POST("/api/orders", { body })`, `client.GET("/api/receipts/status",
 * { params: { query: { receiptId } } })`; each answer is `{ data, error, response }`.
 */
export declare function createClient(baseUrl: string, apiKey: string, options?: Omit<ClientOptions, "baseUrl">): Client<paths>;
/** An answer a helper did not expect: its HTTP status and the error envelope. */
export declare class ApiError extends Error {
    readonly status: number;
    readonly envelope: ErrorEnvelope | undefined;
    constructor(status: number, envelope: ErrorEnvelope | undefined);
}
type Query<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;
/**
 * The paged lists, page after page (next as the following cursor), for a `for await` loop; a
 * loop that breaks stops fetching. A refused page throws ApiError.
 */
export declare function allReceipts(client: Client<paths>, query?: Query<"listReceipts">): AsyncGenerator<Receipt>;
export declare function allInventory(client: Client<paths>, query?: Query<"listInventory">): AsyncGenerator<Item>;
export declare function allWebhookDeliveries(client: Client<paths>, query?: Query<"listWebhookDeliveries">): AsyncGenerator<Delivery>;
/** A customer's or merchant's subscriptions (query names one of them). */
export declare function allSubscriptions(client: Client<paths>, query: Query<"getSubscriptionStatus">): AsyncGenerator<Subscription>;
/** How far a delivery's webhook-timestamp may be from the receiver's clock, either way. */
export declare const WEBHOOK_TOLERANCE_SECONDS: number;
/** Why a delivery was refused. */
export declare class WebhookVerificationError extends Error {
    constructor(message: string);
}
/** The headers of a delivery: a Headers object (fetch, Request) or Node's lower-cased record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;
/**
 * Verifies the deliveries of one endpoint (Standard Webhooks: webhook-id, webhook-timestamp,
 * webhook-signature "v1,<base64 HMAC-SHA256 of id.timestamp.body>"), with the endpoint's whsec_
 * secret as the dashboard shows it.
 */
export declare class Webhook {
    private readonly now;
    private readonly key;
    constructor(secret: string, now?: () => number);
    /**
     * Checks a delivery against its exact body, as received (the raw text, before JSON.parse), and
     * returns the parsed body; throws WebhookVerificationError when it is not the service's.
     */
    verify<T = unknown>(body: string, headers: WebhookHeaders): Promise<T>;
}
/**
 * Checks a receipt webhook: the receipt.status_updated POSTed to the webhook_url a receipt was
 * created with. Its X-Service-Signature is "sha256=" and the hex HMAC-SHA256 of the exact body
 * with the API key the receipt was created with (endpoints registered with
 * POST /api/webhooks/endpoints use Webhook instead). Pass the raw body text, before JSON.parse;
 * returns the parsed body, or throws WebhookVerificationError (answer 401). Deduplicate on
 * X-Service-Idempotency-Key.
 */
export declare function verifyReceiptWebhook<T = unknown>(apiKey: string, body: string, headers: WebhookHeaders): Promise<T>;
