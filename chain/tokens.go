package chain

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/domain/address"
)

// Token is a configured ERC-20: one entry of CHAIN_TOKENS.
type Token struct {
	Symbol   string
	Address  common.Address
	Decimals uint8
}

var symbolRE = regexp.MustCompile(`^[A-Za-z0-9]{1,16}$`)

// ParseTokens reads CHAIN_TOKENS: SYMBOL=0xaddress:decimals, comma-separated (DESIGN 8). ETH is
// native and never listed; symbols (case-insensitive) and addresses are unique. Empty: none.
func ParseTokens(s string) ([]Token, error) {
	var out []Token
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		sym, rest, ok1 := strings.Cut(item, "=")
		addr, dec, ok2 := strings.Cut(rest, ":")
		d, err := strconv.ParseUint(dec, 10, 8)
		if !ok1 || !ok2 || !symbolRE.MatchString(sym) || !address.Valid(addr) || err != nil || d > 36 {
			return nil, fmt.Errorf("CHAIN_TOKENS: %q is not SYMBOL=0x<40 hex>:<decimals 0-36>", item)
		}
		sym = strings.ToUpper(sym)
		if sym == "ETH" {
			return nil, fmt.Errorf("CHAIN_TOKENS: ETH is native and is not listed")
		}
		a := common.HexToAddress(addr)
		if seen[sym] || seen[a.Hex()] {
			return nil, fmt.Errorf("CHAIN_TOKENS: %q repeats a symbol or an address", item)
		}
		seen[sym], seen[a.Hex()] = true, true
		out = append(out, Token{Symbol: sym, Address: a, Decimals: uint8(d)})
	}
	return out, nil
}

// FormatTokens is the CHAIN_TOKENS form of tokens.
func FormatTokens(tokens []Token) string {
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		parts[i] = fmt.Sprintf("%s=%s:%d", t.Symbol, t.Address.Hex(), t.Decimals)
	}
	return strings.Join(parts, ",")
}

// FindToken returns the token with symbol (case-insensitive).
func FindToken(tokens []Token, symbol string) (Token, bool) {
	for _, t := range tokens {
		if strings.EqualFold(t.Symbol, symbol) {
			return t, true
		}
	}
	return Token{}, false
}
