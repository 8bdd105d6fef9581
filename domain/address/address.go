// Package address is the one rule for the shape of an account or contract address as payledger
// takes it on every input (API bodies, configuration, chain settings): "0x" and 40 hexadecimal
// digits, in any case. Checksums are not required (wallets and explorers differ); the value is
// compared case-insensitively wherever it is used.
package address

// Valid reports whether s is "0x" followed by exactly 40 hexadecimal digits.
func Valid(s string) bool {
	if len(s) != 42 || s[0] != '0' || s[1] != 'x' {
		return false
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
