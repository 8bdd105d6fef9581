package main

// skipPointerExt is oapi-codegen's per-schema switch over the configuration's
// prefer-skip-optional-pointer (sdk/go/oapi-codegen.yaml).
const skipPointerExt = "x-go-type-skip-optional-pointer"

// pointerMeaningfulZeros makes the Go SDK write as pointers every optional parameter (query or
// header) and every optional boolean or number of a JSON request body (at any depth) whose zero
// value the service accepts. Why: the configuration makes optional fields plain values, and
// oapi-codegen then sends every plain query or header parameter, set or not, while body fields
// are omitempty. So a list with empty params asked for limit=0 (400), taxable=false (only the
// untaxed items), from=0&to=0 (an empty export), customer=&merchant= beside a subscriptionId
// (not exactly one selector), an empty Idempotency-Key (400); and in bodies false and 0 were never
// sent, so an inventory update with taxable false left the item taxable, stockQty 0 on a new item
// made it unlimited, an order's taxRate 0 charged the jurisdiction's tax. A pointer is sent when
// set, zero included, and left out when nil. A body field whose minimum is above 0 (an item's
// qty) keeps its plain value: its zero is not a value, so leaving it out is all it can mean.
func pointerMeaningfulZeros(doc map[string]any) {
	components, _ := doc["components"].(map[string]any)
	seen := map[string]bool{}
	paths, _ := doc["paths"].(map[string]any)
	for _, raw := range paths {
		item, _ := raw.(map[string]any)
		for method, rawOp := range item {
			op, ok := rawOp.(map[string]any)
			if !ok || !isOperation(method) {
				continue
			}
			for _, rawParam := range asList(op["parameters"]) {
				param, _ := rawParam.(map[string]any)
				if ref, ok := param["$ref"].(string); ok {
					param, _ = lookup(components, ref).(map[string]any)
				}
				if param != nil && param["required"] != true {
					param[skipPointerExt] = false
				}
			}
			markBody(components, requestSchema(doc, opID(op)), seen)
		}
	}
}

func opID(op map[string]any) string {
	id, _ := op["operationId"].(string)
	return id
}

// markBody marks the optional scalar properties of a request body schema, following $refs into
// the components once each (a component a response shares is marked too: the pointer only tells
// absent from zero there as well).
func markBody(components map[string]any, schema map[string]any, seen map[string]bool) {
	if schema == nil {
		return
	}
	if ref, ok := schema["$ref"].(string); ok {
		if seen[ref] {
			return
		}
		seen[ref] = true
		target, _ := lookup(components, ref).(map[string]any)
		markBody(components, target, seen)
		return
	}
	for _, key := range []string{"allOf", "oneOf", "anyOf"} {
		for _, part := range asList(schema[key]) {
			p, _ := part.(map[string]any)
			markBody(components, p, seen)
		}
	}
	required := map[string]bool{}
	for _, r := range asList(schema["required"]) {
		if s, ok := r.(string); ok {
			required[s] = true
		}
	}
	props, _ := schema["properties"].(map[string]any)
	for name, raw := range props {
		prop, _ := raw.(map[string]any)
		if !required[name] && zeroIsAValue(prop) {
			prop[skipPointerExt] = false
		}
		markBody(components, prop, seen)
	}
	if items, ok := schema["items"].(map[string]any); ok {
		markBody(components, items, seen)
	}
}

// zeroIsAValue says whether schema is a boolean, integer or number that the service accepts
// false or 0 for: every boolean; a number unless its minimum (or exclusive minimum) excludes 0.
func zeroIsAValue(schema map[string]any) bool {
	if schema == nil {
		return false
	}
	switch schema["type"] {
	case "boolean":
		return true
	case "integer", "number":
		if min, ok := schema["minimum"].(float64); ok && (min > 0 || (min == 0 && schema["exclusiveMinimum"] == true)) {
			return false
		}
		if min, ok := schema["exclusiveMinimum"].(float64); ok && min >= 0 {
			return false
		}
		return true
	}
	return false
}
