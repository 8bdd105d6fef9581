package transport

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/readmodels"
)

// An issued receipt's answer, {"ok":true,"receipt":{...}}, written by hand (issue 38): encoding/json
// walked the map and the receipt's ~40 fields by reflection on every order, about 5% of serve's
// CPU. appendReceipt writes the bytes encoding/json writes for a receiptView (the same field
// order, escaping and number formats; TestReceiptJSONAsEncodingJSON compares them on many
// receipts), into a pooled buffer. Anything it does not write the same way (a non-finite number,
// which encoding/json refuses; echo's indented output for ?pretty) takes c.JSON as before.

var jsonBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// answerIssued writes {"ok":true,"receipt":view} with status, as c.JSON would.
func answerIssued(c echo.Context, status int, view receiptView) error {
	if c.Echo().Debug || c.Request().URL.RawQuery != "" && c.QueryParams().Has("pretty") {
		return c.JSON(status, map[string]any{"ok": true, "receipt": view})
	}
	bp := jsonBuffers.Get().(*[]byte)
	defer jsonBuffers.Put(bp)
	b := append((*bp)[:0], `{"ok":true,"receipt":`...)
	b, ok := appendReceipt(b, &view)
	if !ok {
		return c.JSON(status, map[string]any{"ok": true, "receipt": view})
	}
	b = append(b, "}\n"...) // json.Encoder ends each value with a newline
	*bp = b
	return c.Blob(status, echo.MIMEApplicationJSON, b)
}

// appendReceipt appends v as encoding/json would; false if a number is not finite.
func appendReceipt(b []byte, v *receiptView) ([]byte, bool) {
	if !finite(v.ProcessingFeeUSD, v.SubtotalUSD, v.TaxRate, v.TaxUSD, v.TotalUSD, v.RefundedUSD, v.RefundedBeforePaymentUSD, v.RefundedExcessUSD) {
		return b, false
	}
	b = appendKey(b, `{"brandName":`, v.BrandName)
	b = append(b, `,"createdAt":`...)
	b = strconv.AppendInt(b, v.CreatedAt, 10)
	b = appendKey(b, `,"currency":`, v.Currency)
	b = appendNullable(append(b, `,"jurisdictionCode":`...), v.JurisdictionCode)
	b, ok := appendLines(append(b, `,"lineItems":`...), v.LineItems)
	if !ok {
		return b, false
	}
	b = appendKey(b, `,"merchantWallet":`, v.MerchantWallet)
	b = appendStringMap(append(b, `,"metadata":`...), v.Metadata)
	b = appendFloat(append(b, `,"processingFeeUsd":`...), v.ProcessingFeeUSD)
	b = appendKey(b, `,"receiptId":`, v.ReceiptID)
	b = appendKey(b, `,"status":`, v.Status)
	b = appendFloat(append(b, `,"subtotalUsd":`...), v.SubtotalUSD)
	b = appendStrings(append(b, `,"taxComponents":`...), v.TaxComponents)
	b = appendFloat(append(b, `,"taxRate":`...), v.TaxRate)
	b = appendFloat(append(b, `,"taxUsd":`...), v.TaxUSD)
	b = appendFloat(append(b, `,"totalUsd":`...), v.TotalUSD)
	b = appendNullable(append(b, `,"transactionId":`...), v.TransactionID)
	b = appendNullable(append(b, `,"depositAddress":`...), v.DepositAddress)
	b = appendNullable(append(b, `,"amountRequired":`...), v.AmountRequired)
	b = appendNullable(append(b, `,"amountReceived":`...), v.AmountReceived)
	b = appendKey(b, `,"amountToken":`, v.AmountToken)
	b = strconv.AppendBool(append(b, `,"paidLate":`...), v.PaidLate)
	b = appendFloat(append(b, `,"refundedUsd":`...), v.RefundedUSD)
	if v.RefundedBeforePaymentUSD != 0 { // omitempty
		b = appendFloat(append(b, `,"refundedBeforePaymentUsd":`...), v.RefundedBeforePaymentUSD)
	}
	if v.RefundedExcessUSD != 0 { // omitempty (stop 70)
		b = appendFloat(append(b, `,"refundedExcessUsd":`...), v.RefundedExcessUSD)
	}
	b, ok = appendRefunds(append(b, `,"refunds":`...), v.Refunds)
	b = strconv.AppendInt(append(b, `,"processorPaymentsToRefund":`...), int64(v.ProcessorPaymentsToRefund), 10)
	if v.ProcessorToRefundUSD != 0 { // omitempty (stop 70)
		b = appendFloat(append(b, `,"processorToRefundUsd":`...), v.ProcessorToRefundUSD)
	}
	if v.ProcessorRefundedUSD != 0 { // omitempty (stop 71)
		b = appendFloat(append(b, `,"processorRefundedUsd":`...), v.ProcessorRefundedUSD)
	}
	if len(v.UnvaluedExcess) > 0 { // omitempty (stop 71)
		out, err := json.Marshal(v.UnvaluedExcess)
		if err != nil {
			return b, false
		}
		b = append(append(b, `,"unvaluedExcess":`...), out...)
	}
	return append(b, '}'), ok
}

func appendLines(b []byte, lines []lineView) ([]byte, bool) {
	if lines == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i := range lines {
		l := &lines[i]
		if !finite(l.PriceUSD) || l.UnitPriceUSD != nil && !finite(*l.UnitPriceUSD) {
			return b, false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, `{"label":`, l.Label)
		b = appendFloat(append(b, `,"priceUsd":`...), l.PriceUSD)
		if l.UnitPriceUSD != nil {
			b = appendFloat(append(b, `,"unitPriceUsd":`...), *l.UnitPriceUSD)
		}
		if l.Qty != nil {
			b = strconv.AppendInt(append(b, `,"qty":`...), *l.Qty, 10)
		}
		b = appendOmitEmpty(b, `,"thumb":`, l.Thumb)
		b = appendOmitEmpty(b, `,"itemId":`, l.ItemID)
		b = append(appendOmitEmpty(b, `,"sku":`, l.SKU), '}')
	}
	return append(b, ']'), true
}

// appendRefunds encodes the refunds with encoding/json: a new order has none, so the hand-written
// path buys nothing here, and a field added to readmodels.RefundPayload is encoded without a
// second edit.
func appendRefunds(b []byte, refunds []readmodels.RefundPayload) ([]byte, bool) {
	if refunds == nil {
		return append(b, "null"...), true
	}
	out, err := json.Marshal(refunds)
	if err != nil {
		return b, false
	}
	return append(b, out...), true
}

func appendKey(b []byte, key, s string) []byte { return appendJSONString(append(b, key...), s) }

func appendOmitEmpty(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendKey(b, key, s)
}

func appendNullable(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendStringMap writes m with its keys sorted, as encoding/json does.
func appendStringMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONString(b, k), ':')
		b = appendJSONString(b, m[k])
	}
	return append(b, '}')
}

// appendJSONString writes s as encoding/json does. Printable ASCII other than the characters it
// escapes (" \ and, for HTML, < > &) is copied; any other string is left to encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func finite(fs ...float64) bool {
	for _, f := range fs {
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return false
		}
	}
	return true
}

// appendFloat writes a finite float64 as encoding/json does: the shortest representation,
// in exponent form below 1e-6 and from 1e21 on, with a one-digit negative exponent unpadded.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
