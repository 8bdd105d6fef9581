// Command devapi writes the developer API's part of docs/openapi.yaml, as OpenAPI 3.0 JSON, for
// the client generators of `make sdk` (sdk/go, sdk/typescript).
//
// Why a subset: the SDKs are for a merchant's server holding an API key; the session, portal,
// dashboard and cron routes are not theirs. Why 3.0: oapi-codegen reads OpenAPI 3.0 only
// (`type: [string, "null"]` is written `type: string, nullable: true`). Why names here: the
// document has no operationIds, and generated names such as GetApiReceiptsId would become the
// SDKs' public API; a developer route without a name below fails the generation, so a new route
// cannot be left out of the SDKs silently.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/payledger/payledger/docs"
)

// developerKeyScheme is the security scheme that marks a developer-API operation.
const developerKeyScheme = "subscriptionKey"

// operationIDs names every developer-API operation ("METHOD path").
var operationIDs = map[string]string{
	"GET /api/status/ping":                        "ping",
	"GET /api/inventory":                          "listInventory",
	"POST /api/inventory":                         "upsertInventoryItem",
	"DELETE /api/inventory":                       "deleteInventoryItem",
	"POST /api/orders":                            "createOrder",
	"GET /api/receipts":                           "listReceipts",
	"POST /api/receipts":                          "createReceipt",
	"GET /api/receipts/{id}":                      "getReceipt",
	"GET /api/receipts/status":                    "getReceiptStatus",
	"GET /api/receipts/{id}/events":               "getReceiptEvents",
	"GET /api/shop/config":                        "getShopConfig",
	"GET /api/split/deploy":                       "getSplit",
	"GET /api/split/transactions":                 "listSplitTransactions",
	"GET /api/tax/catalog":                        "getTaxCatalog",
	"GET /api/site/config":                        "getSiteConfig",
	"GET /api/webhooks/deliveries":                "listWebhookDeliveries",
	"GET /api/webhooks/endpoints":                 "listWebhookEndpoints",
	"GET /api/webhooks/endpoints/{id}/deliveries": "listEndpointDeliveries",
	"GET /api/webhooks/stream":                    "streamWebhooks",
	"GET /api/exports/receipts.csv":               "exportReceiptsCsv",
	"GET /api/exports/split-transactions.csv":     "exportSplitTransactionsCsv",
	"GET /api/pricing/config":                     "getPricingConfig",
	"GET /api/billing/balance":                    "getBillingBalance",
	"GET /api/reserve/balances":                   "getReserveBalances",
	"GET /api/reserve/recommend":                  "getReserveRecommendation",
	"GET /api/users/search":                       "searchUsers",
	"GET /api/users/live":                         "listLiveUsers",
	"GET /api/subscriptions/status":               "getSubscriptionStatus",
	"GET /api/graphql":                            "graphqlQuery",
	"POST /api/graphql":                           "graphqlPost",
}

func main() {
	out := flag.String("o", "", "file to write (default: standard output)")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "devapi:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	body, err := subset()
	if err != nil {
		return err
	}
	if out == "" {
		_, err = os.Stdout.Write(body)
		return err
	}
	return os.WriteFile(out, body, 0o644)
}

// subset is the developer API's part of docs/openapi.yaml as the generators read it: the bytes of
// sdk/openapi.json.
func subset() ([]byte, error) {
	full, err := docs.OpenAPIJSON()
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(full, &doc); err != nil {
		return nil, fmt.Errorf("decode the document: %w", err)
	}
	if err := keepDeveloperRoutes(doc); err != nil {
		return nil, err
	}
	downgrade(doc)
	for _, h := range hoisted {
		if err := hoist(doc, h); err != nil {
			return nil, err
		}
	}
	pointerMeaningfulZeros(doc)
	pruneComponents(doc)
	doc["openapi"] = "3.0.3"
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the subset: %w", err)
	}
	return append(body, '\n'), nil
}

// keepDeveloperRoutes drops every operation that an API key cannot call, names the rest and
// leaves the key as their only security scheme.
func keepDeveloperRoutes(doc map[string]any) error {
	paths, _ := doc["paths"].(map[string]any)
	named := map[string]bool{}
	for path, raw := range paths {
		item, _ := raw.(map[string]any)
		for method, rawOp := range item {
			op, ok := rawOp.(map[string]any)
			if !ok || !isOperation(method) {
				continue
			}
			if !takesKey(op) {
				delete(item, method)
				continue
			}
			route := strings.ToUpper(method) + " " + path
			id, ok := operationIDs[route]
			if !ok {
				return fmt.Errorf("developer route %q has no operationId in sdk/devapi", route)
			}
			named[route] = true
			op["operationId"] = id
			op["security"] = []any{map[string]any{developerKeyScheme: []any{}}}
		}
		if countOperations(item) == 0 {
			delete(paths, path)
		}
	}
	for route := range operationIDs {
		if !named[route] {
			return fmt.Errorf("sdk/devapi names %q, which is no developer route of the document", route)
		}
	}
	return nil
}

func isOperation(method string) bool {
	switch method {
	case "get", "put", "post", "delete", "patch", "head", "options", "trace":
		return true
	}
	return false
}

func countOperations(item map[string]any) int {
	n := 0
	for method := range item {
		if isOperation(method) {
			n++
		}
	}
	return n
}

func takesKey(op map[string]any) bool {
	security, _ := op["security"].([]any)
	for _, req := range security {
		if m, ok := req.(map[string]any); ok {
			if _, ok := m[developerKeyScheme]; ok {
				return true
			}
		}
	}
	return false
}

// downgrade rewrites the OpenAPI 3.1 schema forms the document uses into their 3.0 spelling.
func downgrade(node any) {
	switch n := node.(type) {
	case []any:
		for _, v := range n {
			downgrade(v)
		}
	case map[string]any:
		if types, ok := n["type"].([]any); ok {
			downgradeTypes(n, types)
		}
		if examples, ok := n["examples"].([]any); ok {
			// A schema's examples list (3.1); a media type's examples map stays.
			delete(n, "examples")
			if len(examples) > 0 {
				n["example"] = examples[0]
			}
		}
		if n["type"] == "number" {
			exactNumber(n)
		}
		if c, ok := n["const"]; ok {
			delete(n, "const")
			n["enum"] = []any{c}
		}
		for _, v := range n {
			downgrade(v)
		}
	}
}

// exactNumber makes a number schema a json.Number in the Go SDK. Why: the numbers are amounts,
// rates and percentages written as exact decimals on the wire ("19.99", a fee rate to 12
// places); a float64 (oapi-codegen's default with format double) rounds them, so a merchant
// summing or comparing amounts in the SDK got 0.30000000000000004 where the receipt said 0.3.
// json.Number keeps the service's text and is sent back as written; openapi-typescript ignores
// the extension (JavaScript has no exact decimal in JSON.parse).
func exactNumber(schema map[string]any) {
	if schema["format"] == nil {
		schema["format"] = "double"
	}
	// No x-go-type-import: the generated client imports encoding/json already, and naming it
	// again declares it twice.
	schema["x-go-type"] = "json.Number"
}

func downgradeTypes(schema map[string]any, types []any) {
	var kept []any
	for _, t := range types {
		if t == "null" {
			schema["nullable"] = true
			continue
		}
		kept = append(kept, t)
	}
	switch len(kept) {
	case 0:
		delete(schema, "type")
	case 1:
		schema["type"] = kept[0]
	default:
		// Several non-null types: 3.0 has no such type; leave it untyped.
		delete(schema, "type")
	}
	if enum, ok := schema["enum"].([]any); ok {
		var values []any
		for _, v := range enum {
			if v != nil {
				values = append(values, v)
			}
		}
		schema["enum"] = values
	}
}

// pruneComponents keeps only the components that the remaining operations reach.
func pruneComponents(doc map[string]any) {
	components, _ := doc["components"].(map[string]any)
	reached := map[string]bool{}
	var queue []string
	collectRefs(doc["paths"], func(ref string) { queue = append(queue, ref) })
	for len(queue) > 0 {
		ref := queue[0]
		queue = queue[1:]
		if reached[ref] {
			continue
		}
		reached[ref] = true
		collectRefs(lookup(components, ref), func(r string) { queue = append(queue, r) })
	}
	for kind, raw := range components {
		group, ok := raw.(map[string]any)
		if !ok || kind == "securitySchemes" {
			continue
		}
		for name := range group {
			if !reached["#/components/"+kind+"/"+name] {
				delete(group, name)
			}
		}
	}
	if schemes, ok := components["securitySchemes"].(map[string]any); ok {
		for name := range schemes {
			if name != developerKeyScheme {
				delete(schemes, name)
			}
		}
	}
	if info, ok := doc["info"].(map[string]any); ok {
		for k := range info {
			if strings.HasPrefix(k, "x-") {
				delete(info, k)
			}
		}
	}
}

func collectRefs(node any, found func(string)) {
	switch n := node.(type) {
	case []any:
		for _, v := range n {
			collectRefs(v, found)
		}
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok {
			found(ref)
		}
		for _, v := range n {
			collectRefs(v, found)
		}
	}
}

func lookup(components map[string]any, ref string) any {
	parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
	if len(parts) != 2 {
		return nil
	}
	group, _ := components[parts[0]].(map[string]any)
	return group[parts[1]]
}

// hoisting names the inline item schema of an operation's request-body array, so that the
// SDKs have a type to write a list with (payledger.OrderItem, not an anonymous struct).
type hoisting struct{ operationID, property, name string }

var hoisted = []hoisting{
	{"createOrder", "items", "OrderItem"},
	{"createReceipt", "lineItems", "LineItemInput"},
}

func hoist(doc map[string]any, h hoisting) error {
	components, _ := doc["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	if _, taken := schemas[h.name]; taken {
		return fmt.Errorf("hoist %s: the document has a schema of that name", h.name)
	}
	body := requestSchema(doc, h.operationID)
	for _, part := range append([]any{body}, asList(body["allOf"])...) {
		props, _ := part.(map[string]any)["properties"].(map[string]any)
		array, _ := props[h.property].(map[string]any)
		if item, ok := array["items"].(map[string]any); ok && item["$ref"] == nil {
			schemas[h.name] = item
			array["items"] = map[string]any{"$ref": "#/components/schemas/" + h.name}
			return nil
		}
	}
	return fmt.Errorf("hoist %s: %s has no inline %s items", h.name, h.operationID, h.property)
}

// requestSchema is the JSON request body's schema of the operation named id (or an empty map).
func requestSchema(doc map[string]any, id string) map[string]any {
	paths, _ := doc["paths"].(map[string]any)
	for _, raw := range paths {
		item, _ := raw.(map[string]any)
		for _, rawOp := range item {
			op, _ := rawOp.(map[string]any)
			if op == nil || op["operationId"] != id {
				continue
			}
			rb, _ := op["requestBody"].(map[string]any)
			content, _ := rb["content"].(map[string]any)
			media, _ := content["application/json"].(map[string]any)
			schema, _ := media["schema"].(map[string]any)
			if schema != nil {
				return schema
			}
		}
	}
	return map[string]any{}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
