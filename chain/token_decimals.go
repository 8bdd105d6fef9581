package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
)

// ErrTokenDecimals: a CHAIN_TOKENS entry's decimals are not its contract's. Every amount in that
// token would be off by a power of ten (6 configured for an 18-decimal token asks 10^12 times too
// little), so serve refuses to start, as it does on another chain's CHAIN_ID.
var ErrTokenDecimals = errors.New("CHAIN_TOKENS decimals differ from the token contract's")

// decimalsSelector is the 4-byte selector of ERC-20's decimals().
var decimalsSelector = []byte{0x31, 0x3c, 0xe5, 0x67}

// CheckTokenDecimals asks each token's contract for its decimals() and compares them with the
// configuration: ErrTokenDecimals (naming the token) on a difference. A contract that does not
// answer decimals() (no code at the address, a call that reverts or returns no number) is
// returned in unread, for the caller to report: it cannot be told wrong, and its transfers are
// still read from its logs.
func (c *RPC) CheckTokenDecimals(ctx context.Context, tokens []Token) (unread []string, err error) {
	if err := c.sameChain(ctx); err != nil {
		return nil, fmt.Errorf("chain: tokens' decimals(): %w", err)
	}
	for _, t := range tokens {
		to := t.Address
		out, err := c.eth.CallContract(ctx, ethereum.CallMsg{To: &to, Data: decimalsSelector}, nil)
		if err != nil && ctx.Err() != nil {
			return unread, fmt.Errorf("chain: %s decimals(): %w", t.Symbol, err)
		}
		if err != nil || len(out) != 32 || new(big.Int).SetBytes(out).Cmp(big.NewInt(255)) > 0 {
			unread = append(unread, t.Symbol)
			continue
		}
		if got := out[31]; got != t.Decimals {
			return unread, fmt.Errorf("%w: %s at %s has %d decimals, CHAIN_TOKENS says %d", ErrTokenDecimals, t.Symbol, t.Address.Hex(), got, t.Decimals)
		}
	}
	return unread, nil
}
