package eventstore

import (
	"bytes"
	"encoding/json"
)

// Prepare's encodings, fast for what the commands append. Every event's data is the JSON of a
// struct (json.Marshal: valid and already compact) and every metadata a few plain strings, yet
// json.Compact and json.Marshal cost about 3% of the service's CPU per order (issue 38). The
// fast paths below only recognise input whose encoding needs no work; anything else takes the
// encoding/json path, so the stored bytes and the errors are exactly encoding/json's.

// compactData returns data with its insignificant white space removed, as json.Compact does, in
// a new slice; errors are json.Compact's.
func compactData(data []byte) ([]byte, error) {
	if end, ok := compactValue(data, 0, 0); ok && end == len(data) {
		return bytes.Clone(data), nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// validJSON is json.Valid(data), at once for data that is already compact (compactValue).
func validJSON(data []byte) bool {
	if end, ok := compactValue(data, 0, 0); ok && end == len(data) {
		return true
	}
	return json.Valid(data)
}

// maxFastDepth bounds compactValue's recursion; deeper values take json.Compact's path.
const maxFastDepth = 64

// compactValue reports whether b[i:] starts with one valid JSON value without any white space,
// and where it ends. False means "not known to be": the caller falls back to encoding/json.
func compactValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxFastDepth {
		return i, false
	}
	switch c := b[i]; {
	case c == '{':
		return compactObject(b, i+1, depth+1)
	case c == '[':
		return compactArray(b, i+1, depth+1)
	case c == '"':
		return compactString(b, i+1)
	case c == '-' || ('0' <= c && c <= '9'):
		return compactNumber(b, i)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	}
	return i, false
}

func compactObject(b []byte, i, depth int) (int, bool) {
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		var ok bool
		if i, ok = compactString(b, i+1); !ok || i >= len(b) || b[i] != ':' {
			return i, false
		}
		if i, ok = compactValue(b, i+1, depth); !ok || i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

func compactArray(b []byte, i, depth int) (int, bool) {
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = compactValue(b, i, depth); !ok || i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i++
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// compactString scans a string's body from b[i] (after its opening quote) to after its closing
// quote. Like encoding/json, it does not check UTF-8.
func compactString(b []byte, i int) (int, bool) {
	for i < len(b) {
		for i < len(b) && plainByte[b[i]] { // the common bytes, in a tight loop
			i++
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !hex4(b[i+2:i+6]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		default:
			i++
		}
	}
	return i, false
}

// plainByte marks the bytes a string holds as they are: not a quote, a backslash or a control.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func hex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// compactNumber scans a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func compactNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

func literal(b []byte, i int, word string) (int, bool) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return i, false
	}
	return i + len(word), true
}

// encodeMetadata is json.Marshal(m): written directly when every field is plain text (printable
// ASCII that JSON writes as is), else by encoding/json.
func encodeMetadata(m Metadata) ([]byte, error) {
	fields := [4]struct{ name, value string }{{"correlationId", m.CorrelationID}, {"causationId", m.CausationID},
		{"actor", m.Actor}, {"source", m.Source}}
	out := make([]byte, 0, 16+len(m.CorrelationID)+len(m.CausationID)+len(m.Actor)+len(m.Source)+4*16)
	out = append(out, '{')
	for _, f := range fields {
		if f.value == "" {
			continue // omitempty
		}
		if !plain(f.value) {
			return json.Marshal(m)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, f.name...)
		out = append(out, `":"`...)
		out = append(out, f.value...)
		out = append(out, '"')
	}
	return append(out, '}'), nil
}

// plain says whether encoding/json writes s as it is: printable ASCII without the characters it
// escapes (quote, backslash, and <, > and & as HTML-safe escapes).
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
