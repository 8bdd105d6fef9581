package transport

import (
	"reflect"
	"strings"
	"testing"
)

// Issue 38: decodeWith checks a body in one pass (quickCheck) and falls back to the three-pass
// check for anything it is not sure of. Whatever the body, both paths answer the same: the same
// refusal message, or the same decoded value.

// quickBodies are bodies at the edges of the checks, beside the fuzz seeds.
var quickBodies = []string{
	`{"items":[{"sku":"latte","qty":2},{"sku":"beans","qty":1},{"sku":"mug","qty":1}],"jurisdictionCode":"US-CA"}`,
	` {"items":[{"sku":"a","qty":1e2}],"currency":"USD"} `, `{"items":[{"sku":"a","qty":1e400}]}`,
	`{"items":[{"sku":"a","qty":-0.5E-3}]}`, `{"items":[{"sku":"a","qty":01}]}`, `{"items":[{"sku":"a","qty":1.}]}`,
	`{"items":[{"sku":"a","qty":-}]}`, `{"items":[{"sku":"a","qty":"1"}]}`, `{"items":[{"sku":"a","qty":true}]}`,
	`{"items":[{"sku":"a","qty":{}}]}`, `{"items":[{"sku":"a","qty":[]}]}`, `{"items":[{"sku":"a","qty":null}]}`,
	`{"items":[null]}`, `{"items":null}`, `{"items":{}}`, `{"items":"x"}`, `{"currency":null}`, `{"taxRate":null}`,
	`{"taxRate":"1"}`, `{"taxComponents":[null]}`, `{"taxComponents":["a",null]}`, `{"Currency":"USD"}`,
	`{"currency":"USD","CURRENCY":"EUR"}`, `{"currency":"USD","currency":"EUR"}`, `{"cur\u0072ency":"USD"}`,
	`{"currency":"a\u0000b"}`, `{"currency":"a\\u0000b"}`, `{"currency":"\u00e9\ud800"}`, `{"currency":"\x01"}`,
	`{"currency":"\q"}`, `{"currency":"\u12"}`, `{"currency":"USD"} x`, `{"currency":"USD"}{}`, `{"currency":"USD"`,
	`{"currency":"USD",}`, `{,}`, `{"a" 1}`, `{"zz":{"a":1,"a":2}}`, `{"zz":[1,2,}`, `{"zz":nul}`, `{"zz":tru}`,
	`{"items":[{"sku":"a","qty":1,"x":2}]}`, `{"ſku":1}`, `{"ſ":1}`, `{"K":1}`, `{"":null}`, `{"metadata":{"":null}}`,
	`{"metadata":{"a":null,"b":"x"}}`, `{"metadata":{"a":1}}`, `{"metadata":[]}`, "{\"currency\":\"\xff\"}",
	`{"a":` + strings.Repeat("[", 31) + strings.Repeat("]", 31) + `}`, `{"a":` + strings.Repeat("[", 32) + strings.Repeat("]", 32) + `}`,
	`{"a":` + strings.Repeat(`{"b":`, 31) + `1` + strings.Repeat("}", 31) + `}`, `{"a":` + strings.Repeat(`{"b":`, 32) + `1` + strings.Repeat("}", 32) + `}`,
	`{"items":[{"sku":"a","qty":` + strings.Repeat("1", 64) + `}]}`, `{"items":[{"sku":"a","qty":` + strings.Repeat("1", 65) + `}]}`,
	`{"id":"e","type":"t","created":1,"data":{"status":null},"extra":{"x":[1,{"y":null}]}}`, `{"id":null,"created":null}`,
	`{"data":{"receiptId":"a","ReceiptId":"b"}}`, `{"tokens":{"ETH":3000,"USDC":"1"}}`, `{"tokens":{"ETH":null}}`,
	"{\t\"currency\"\r\n:\n\"USD\" }\n", `{}`, `{ }`, `[]`, `null`, ``, `  `, `"x"`, `1`,
}

func TestQuickCheckAnswersAsTheThreePassCheck(t *testing.T) {
	t.Parallel()
	bodies := quickBodies
	for i, r := range jsonRoutes("rcpt_0123456789abcdef0123") {
		bodies = append(bodies, malformedBodies(r)...)
		bodies = append(bodies, validBodies("rcpt_0123456789abcdef0123")[i], r.wrongType, r.null)
	}
	keys := `{`
	for i := range maxQuickKeys + 1 { // more than the one-pass check keeps
		keys += `"k` + strings.Repeat("x", i) + `":1,`
	}
	bodies = append(bodies, keys+`"currency":"USD"}`)
	for _, b := range bodies {
		for i := range requestTargets {
			compareDecodes(t, i, []byte(b))
		}
	}
}

// compareDecodes fails t if decodeWith and decodeChecked answer body differently.
func compareDecodes(t *testing.T, target int, body []byte) {
	t.Helper()
	knownOnly := target != len(requestTargets)-1
	quick, slow := requestTargets[target](), requestTargets[target]()
	qerr, serr := decodeWith(body, quick, knownOnly), decodeChecked(body, slow, knownOnly)
	if msg(qerr) != msg(serr) && !(foldedDuplicate(qerr) && foldedDuplicate(serr)) {
		t.Fatalf("%T %q: one pass says %q, three passes %q", quick, body, msg(qerr), msg(serr))
	}
	if serr == nil && !reflect.DeepEqual(quick, slow) {
		t.Fatalf("%T %q: one pass decoded %+v, three passes %+v", quick, body, quick, slow)
	}
}

// foldedDuplicate: two keys naming one field ignoring case. The three-pass check names them in
// the order it meets them in a Go map, which varies from run to run.
func foldedDuplicate(err error) bool {
	return err != nil && strings.Contains(err.Error(), "duplicate key") && strings.Contains(err.Error(), "(also")
}

func msg(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// The order the load benchmark sends takes the one-pass path, without allocating for the check.
// Not parallel: AllocsPerRun counts the whole process's allocations.
func TestQuickCheckTakesTheOrderWithoutAllocating(t *testing.T) {
	body := []byte(quickBodies[0])
	typ := reflect.TypeOf(new(orderRequest))
	if !quickCheck(body, typ, false) {
		t.Fatal("the benchmark's order takes the three-pass path")
	}
	if n := testing.AllocsPerRun(100, func() { quickCheck(body, typ, false) }); n != 0 {
		t.Fatalf("quickCheck allocates %v times per order, want 0", n)
	}
}

// FuzzQuickCheck: for any body and target, the one-pass path answers as the three-pass one.
func FuzzQuickCheck(f *testing.F) {
	for _, b := range quickBodies {
		f.Add(uint8(0), []byte(b))
		f.Add(uint8(6), []byte(b))
	}
	f.Fuzz(func(t *testing.T, target uint8, body []byte) {
		compareDecodes(t, int(target)%len(requestTargets), body)
	})
}
