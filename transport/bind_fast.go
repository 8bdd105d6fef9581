package transport

import (
	"bytes"
	"reflect"
	"unicode/utf8"
)

// The one-pass check of a request body (issue 38): decodeWith used to read every body three
// times with encoding/json (checkShape's token walk, the struct decode, a generic tree decode
// for checkTypes), about a tenth of serve's CPU per order. quickCheck walks the bytes once,
// without allocating, beside the target type, and answers true only when it is certain that
// checkShape and checkTypes would both accept the body and that the body is one JSON object
// followed by whitespace only. Anything else, a problem or merely something it does not handle
// (escaped keys, many keys, a case-insensitive key match), answers false and the body takes the
// three-pass path, which names the problem exactly as before: the fast path never refuses
// anything itself, so every refusal keeps its message.

// maxQuickKeys bounds the keys of the open objects that quickCheck keeps to compare pairwise for
// duplicates; a body with more at once takes the slow path.
const maxQuickKeys = 64

type quickScanner struct {
	b      []byte
	i      int
	depth  int
	nullOK bool
	keys   [maxQuickKeys][2]int // offsets of the keys of the open objects, for duplicates
	nkeys  int
}

// quickCheck reports whether the three-pass check is certain to accept b for a value of type t
// (see above). utf8 validity is checked here too, so the caller may call it first.
func quickCheck(b []byte, t reflect.Type, nullOK bool) bool {
	if !utf8.Valid(b) {
		return false
	}
	s := quickScanner{b: b, nullOK: nullOK}
	s.ws()
	if s.i >= len(b) || b[s.i] != '{' {
		return false
	}
	if !s.value(t, true) {
		return false
	}
	s.ws()
	return s.i == len(b)
}

func (s *quickScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// value checks the value at s.i against t (nil: its shape only, as checkTypes does not look
// inside unknown fields, raw messages and interfaces). emptyPath is checkTypes' path == "".
func (s *quickScanner) value(t reflect.Type, emptyPath bool) bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	u := shapeOnly(t)
	switch s.b[s.i] {
	case 'n':
		return s.literal("null") && (t == nil || nullAccepted(t, emptyPath || s.nullOK))
	case 't':
		return u != numberType && s.literal("true")
	case 'f':
		return u != numberType && s.literal("false")
	case '"':
		_, _, ok := s.str()
		return ok && u != numberType
	case '{':
		return u != numberType && s.object(u, emptyPath)
	case '[':
		return u != numberType && s.array(u)
	}
	return s.number()
}

// shapeOnly is t without pointers, or nil where checkTypes stops looking.
func shapeOnly(t reflect.Type) reflect.Type {
	if t == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawType || t.Kind() == reflect.Interface {
		return nil
	}
	return t
}

// nullAccepted mirrors checkTypes' answer for null.
func nullAccepted(t reflect.Type, lenient bool) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return true
	}
	return lenient
}

func (s *quickScanner) literal(lit string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return false
	}
	s.i += len(lit)
	return true
}

// str scans a string at s.i and returns its raw content's offsets. It refuses control characters, malformed escapes and \u0000 (checkShape's NUL).
func (s *quickScanner) str() (start, end int, ok bool) {
	s.i++ // opening quote
	start = s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			end = s.i
			s.i++
			return start, end, true
		case c < 0x20:
			return 0, 0, false
		case c == '\\':
			if !s.escape() {
				return 0, 0, false
			}
			continue
		}
		s.i++
	}
	return 0, 0, false
}

func (s *quickScanner) escape() bool {
	if s.i+1 >= len(s.b) {
		return false
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
		return true
	case 'u':
		if s.i+6 > len(s.b) {
			return false
		}
		hex := s.b[s.i+2 : s.i+6]
		for _, h := range hex {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return false
			}
		}
		if string(hex) == "0000" {
			return false
		}
		s.i += 6
		return true
	}
	return false
}

// number scans a JSON number literal and applies checkNumber's limits.
func (s *quickScanner) number() bool {
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	exp := false
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		exp = true
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	lit := s.b[start:s.i]
	if len(lit) > maxNumberLiteral {
		return false
	}
	// Without an exponent, at most 64 characters are within float64's range: only literals
	// with one need checkNumber's parse (and its allocation).
	return !exp || checkNumber(string(lit)) == nil
}

func (s *quickScanner) digits() int {
	n := 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// open enters an object or array, refusing what checkShape refuses as too deep.
func (s *quickScanner) open() bool {
	if s.depth >= maxJSONDepth {
		return false
	}
	s.depth++
	s.i++
	s.ws()
	return true
}

// next moves past the ',' between members (true) or the closing delimiter (false); ok is false
// on anything else.
func (s *quickScanner) next(closing byte) (more, ok bool) {
	s.ws()
	if s.i >= len(s.b) {
		return false, false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return true, true
	case closing:
		s.i++
		s.depth--
		return false, true
	}
	return false, false
}

func (s *quickScanner) array(t reflect.Type) bool {
	if !s.open() {
		return false
	}
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !s.value(elem, false) {
			return false
		}
		more, ok := s.next(']')
		if !ok {
			return false
		}
		if !more {
			return true
		}
	}
}

func (s *quickScanner) object(t reflect.Type, emptyPath bool) bool {
	if !s.open() {
		return false
	}
	var fields []jsonField
	var elem reflect.Type
	switch {
	case t != nil && t.Kind() == reflect.Struct:
		if fields = jsonFields(t); len(fields) > 64 {
			return false
		}
	case t != nil && t.Kind() == reflect.Map:
		elem = t.Elem()
	}
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.depth--
		return true
	}
	base, seen := s.nkeys, uint64(0)
	for {
		key, ok := s.key(base)
		if !ok {
			return false
		}
		vt, childEmpty := elem, emptyPath && len(key) == 0
		if fields != nil {
			i := matchFieldBytes(fields, key)
			if i == foldedField {
				return false
			} else if i == noField {
				vt = nil // unknown: the decoder refuses it where that matters
			} else if seen&(1<<i) != 0 {
				return false // two keys naming one field
			} else {
				seen |= 1 << i
				vt, childEmpty = fields[i].typ, false
			}
		}
		if !s.value(vt, childEmpty) {
			return false
		}
		more, ok := s.next('}')
		if !ok {
			return false
		}
		if !more {
			s.nkeys = base
			return true
		}
	}
}

// key scans an object's key and its colon. A key with an escape, a duplicate of an earlier key
// of the object (from base on) or one key too many answers false.
func (s *quickScanner) key(base int) ([]byte, bool) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start, end, ok := s.str()
	if !ok || s.nkeys >= maxQuickKeys {
		return nil, false
	}
	key := s.b[start:end]
	if bytes.IndexByte(key, '\\') >= 0 {
		return nil, false
	}
	for _, k := range s.keys[base:s.nkeys] {
		if bytes.Equal(s.b[k[0]:k[1]], key) {
			return nil, false
		}
	}
	s.keys[s.nkeys] = [2]int{start, end}
	s.nkeys++
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return nil, false
	}
	s.i++
	return key, true
}

// matchFieldBytes is matchField for an unescaped key as bytes, without allocating: the index of
// the field the key names exactly, noField, or foldedField where matchField could match it only
// ignoring case (or where non-ASCII letters make that hard to tell): the slow path decides those.
func matchFieldBytes(fields []jsonField, key []byte) int {
	for i, f := range fields {
		if f.name == string(key) {
			return i
		}
	}
	if !isASCII(key) {
		return foldedField
	}
	for _, f := range fields {
		if !isASCII(f.name) || asciiEqualFold(f.name, key) {
			return foldedField
		}
	}
	return noField
}

const (
	noField     = -1
	foldedField = -2
)

func isASCII[T string | []byte](b T) bool {
	for i := range len(b) {
		if b[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiEqualFold(name string, key []byte) bool {
	if len(name) != len(key) {
		return false
	}
	for i := range len(key) {
		a, b := name[i], key[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}
