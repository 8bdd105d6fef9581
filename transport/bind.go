package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// Limits of a request body's shape, beyond its size (the body limit answers 413). No request
// needs more than a few levels of nesting; numbers are money, rates and counts.
const (
	maxJSONDepth     = 32
	maxNumberLiteral = 64  // characters
	maxExponent      = 308 // |exponent| of a number literal, the float64 range
)

// readBody reads the whole request body (the body limit answers 413).
func readBody(c echo.Context) ([]byte, error) {
	b, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return nil, he
		}
		return nil, InvalidInput("Invalid request parameters: unreadable body")
	}
	return b, nil
}

// noBody refuses a body on an action that takes none (a test event, a redelivery, a delete):
// an empty body or an empty JSON object passes, anything else is 400 invalid_input before the
// action runs, as a field the route does not read is refused everywhere else rather than ignored.
func noBody(c echo.Context) error {
	body, err := readBody(c)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return err
	}
	var none struct{}
	return decodeBytes(body, &none)
}

// decodeBytes decodes b strictly: one JSON value, known fields only, each field of its own JSON
// type (a json.Number field takes a JSON number, never a string), valid UTF-8 without NUL
// characters, no duplicate keys, at most maxJSONDepth levels, finite numbers. Every problem is
// 400 invalid_input naming it.
func decodeBytes(b []byte, v any) error { return decodeWith(b, v, true) }

// decodeEvent is decodeBytes for a partner's signed events: unknown fields are ignored (the
// processor may add some), everything else is as strict.
func decodeEvent(b []byte, v any) error { return decodeWith(b, v, false) }

func decodeWith(b []byte, v any, knownOnly bool) error {
	if quickCheck(b, reflect.TypeOf(v), !knownOnly) {
		// One pass has shown that the checks below all pass: only the decode is left, and it
		// answers as it would have (the body is one object, followed by whitespace only).
		return decodeStruct(b, v, knownOnly)
	}
	return decodeChecked(b, v, knownOnly)
}

// decodeStruct decodes b, already checked, into v.
func decodeStruct(b []byte, v any, knownOnly bool) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if knownOnly {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return InvalidInput(describeJSONError(err))
	}
	return nil
}

// decodeChecked checks b in three passes and names the first problem it finds.
func decodeChecked(b []byte, v any, knownOnly bool) error {
	if !utf8.Valid(b) {
		return InvalidInput("Invalid request parameters: body is not valid UTF-8")
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] != '{' {
		return InvalidInput("Invalid request parameters: body must be a JSON object")
	}
	if err := checkShape(b); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if knownOnly {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return InvalidInput(describeJSONError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return InvalidInput("Invalid request parameters: body must hold a single JSON value")
	}
	var tree any
	tdec := json.NewDecoder(bytes.NewReader(b))
	tdec.UseNumber()
	if err := tdec.Decode(&tree); err != nil {
		return InvalidInput(describeJSONError(err))
	}
	return checkTypes(reflect.TypeOf(v), tree, "", !knownOnly)
}

// DecodeJSON reads the request body as one JSON value into v. Malformed JSON, a value of the
// wrong type, unknown fields or trailing data give 400 invalid_input naming the problem.
func DecodeJSON(c echo.Context, v any) error {
	b, err := readBody(c)
	if err != nil {
		return err
	}
	return decodeBytes(b, v)
}

// shapeFrame is one open object or array while checkShape walks the tokens.
type shapeFrame struct {
	obj     bool
	wantKey bool
	keys    map[string]struct{}
}

// checkShape walks b's tokens without recursion: nesting depth, duplicate keys (exact; keys that
// differ only in case are caught by checkTypes where they name one field), NUL characters in
// strings (PostgreSQL text cannot hold them) and number literals. A syntax error is left to the
// decoder, which describes it.
func checkShape(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var st []shapeFrame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				if len(st) >= maxJSONDepth {
					return InvalidInput(fmt.Sprintf("Invalid request parameters: nesting deeper than %d levels", maxJSONDepth))
				}
				st = append(st, shapeFrame{obj: t == '{', wantKey: t == '{', keys: map[string]struct{}{}})
				continue
			}
			st = st[:len(st)-1]
		case string:
			if strings.IndexByte(t, 0) >= 0 {
				return InvalidInput("Invalid request parameters: strings must not contain NUL characters")
			}
			if n := len(st); n > 0 && st[n-1].obj && st[n-1].wantKey {
				if _, dup := st[n-1].keys[t]; dup {
					return InvalidInput(fmt.Sprintf("Invalid request parameters: duplicate key %q", t))
				}
				st[n-1].keys[t], st[n-1].wantKey = struct{}{}, false
				continue
			}
		case json.Number:
			if err := checkNumber(t.String()); err != nil {
				return err
			}
		}
		if n := len(st); n > 0 && st[n-1].obj {
			st[n-1].wantKey = true
		}
	}
}

// checkNumber refuses number literals outside float64's range (1e400) or too long to be a
// price: exact decimal arithmetic on them would cost without bound.
func checkNumber(lit string) error {
	bad := InvalidInput("Invalid request parameters: number " + clip(lit) + " is out of range")
	if len(lit) > maxNumberLiteral {
		return bad
	}
	if _, err := strconv.ParseFloat(lit, 64); err != nil {
		return bad
	}
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+"))
		if err != nil || exp > maxExponent || exp < -maxExponent {
			return bad
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}

var numberType = reflect.TypeFor[json.Number]()
var rawType = reflect.TypeFor[json.RawMessage]()

// checkTypes walks the decoded tree beside the target type: a json.Number field must hold a JSON
// number (encoding/json also takes a string such as "12"), two keys may not name one struct
// field (encoding/json matches names without regard to case, the last one winning), and null
// is refused where it would silently become a zero value (a string, number, boolean or object
// that is not optional) unless nullOK. Optional fields are pointers, slices, maps or raw.
func checkTypes(t reflect.Type, val any, path string, nullOK bool) error {
	if val == nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
			return nil
		}
		if nullOK || path == "" {
			return nil
		}
		return InvalidInput(fmt.Sprintf("Invalid request parameters: field %q must not be null", path))
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == numberType:
		if _, ok := val.(json.Number); !ok {
			return InvalidInput(fmt.Sprintf("Invalid request parameters: field %q must be a number", path))
		}
		return nil
	case t == rawType:
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := val.(map[string]any)
		if !ok {
			return nil
		}
		return checkStruct(t, obj, path, nullOK)
	case reflect.Map:
		obj, _ := val.(map[string]any)
		for k, v := range obj {
			if err := checkTypes(t.Elem(), v, join(path, k), nullOK); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		arr, _ := val.([]any)
		for i, v := range arr {
			if err := checkTypes(t.Elem(), v, fmt.Sprintf("%s[%d]", path, i), nullOK); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkStruct(t reflect.Type, obj map[string]any, path string, nullOK bool) error {
	fields := jsonFields(t)
	seen := map[int]string{}
	for k, v := range obj {
		i := matchField(fields, k)
		if i < 0 {
			continue // unknown: refused by the decoder where that matters
		}
		if other, dup := seen[i]; dup {
			return InvalidInput(fmt.Sprintf("Invalid request parameters: duplicate key %q (also %q)", join(path, k), other))
		}
		seen[i] = k
		if err := checkTypes(fields[i].typ, v, join(path, fields[i].name), nullOK); err != nil {
			return err
		}
	}
	return nil
}

type jsonField struct {
	name string
	typ  reflect.Type
}

// fieldsOfType memoises jsonFields, as encoding/json memoises its own field lists: a type's
// fields never change, and listing them by reflection on every request cost about 6% of an
// order's CPU in the service. It is a pure function's cache, not state: a key's value is the
// same whoever computes it first.
var fieldsOfType sync.Map // reflect.Type -> []jsonField

// jsonFields lists the fields encoding/json decodes into, embedded structs' included.
func jsonFields(t reflect.Type) []jsonField {
	if f, ok := fieldsOfType.Load(t); ok {
		return f.([]jsonField)
	}
	f, _ := fieldsOfType.LoadOrStore(t, listJSONFields(t))
	return f.([]jsonField)
}

func listJSONFields(t reflect.Type) []jsonField {
	var out []jsonField
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: f.Type})
	}
	return out
}

func matchField(fields []jsonField, key string) int {
	for i, f := range fields {
		if f.name == key {
			return i
		}
	}
	for i, f := range fields {
		if strings.EqualFold(f.name, key) {
			return i
		}
	}
	return -1
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func describeJSONError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "Invalid request parameters: body is empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "Invalid request parameters: truncated JSON"
	case errors.As(err, &syn):
		return fmt.Sprintf("Invalid request parameters: malformed JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("Invalid request parameters: body must be %s, not %s", jsonKind(typ.Type), typ.Value)
		}
		return fmt.Sprintf("Invalid request parameters: field %q must be %s", typ.Field, jsonKind(typ.Type))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "Invalid request parameters: unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return "Invalid request parameters"
}

// jsonKind names the JSON type a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == numberType:
		return "a number"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Bool:
		return "a boolean"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		return "a number"
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return "an array"
	case t.Kind() == reflect.Struct || t.Kind() == reflect.Map:
		return "an object"
	}
	return t.String()
}
