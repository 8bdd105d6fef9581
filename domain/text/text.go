// Package text holds the rule every single-line text shown to someone else follows (names,
// labels, profile entries): no control characters, no line or paragraph separator (U+2028,
// U+2029: a renderer breaks the line there as at a line feed), and none of the bidi embeddings, overrides
// and isolates that make it read as something else ("Coffee" then U+202E reversing what
// follows). The direction marks (LRM, RLM, ALM) that real Hebrew and Arabic text carries stay
// allowed.
package text

import "unicode"

// Reorders reports a control character, a line or paragraph separator (U+2028, U+2029), or a
// bidi embedding, override or isolate (U+202A-U+202E, U+2066-U+2069).
func Reorders(r rune) bool {
	return unicode.IsControl(r) || r == 0x2028 || r == 0x2029 || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}
