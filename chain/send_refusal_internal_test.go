package chain

import (
	"errors"
	"fmt"
	"testing"
)

// answered is a JSON-RPC error answer (rpc.Error), as ethclient returns a node's refusal.
type answered string

func (a answered) Error() string  { return string(a) }
func (a answered) ErrorCode() int { return -32000 }

// Stop 64: which errors of a send are the node refusing the transaction itself (RefusedError),
// which the operator's settle pass replaces at its nonce once they last.
func TestRefusalOfATransaction(t *testing.T) {
	for _, c := range []struct {
		name    string
		err     error
		refused bool
	}{
		{"fee over the cap", answered("tx fee (2.10 ether) exceeds the configured cap (1.00 ether)"), true},
		{"over the block gas limit", fmt.Errorf("send: %w", answered("exceeds block gas limit")), true},
		{"no funds", answered("insufficient funds for gas * price + value"), false},
		{"another at the nonce", answered("replacement transaction underpriced"), false},
		{"a tip under the pool's floor", answered("transaction underpriced: tip needed 1, tip permitted 0"), true},
		{"rate limited", answered("project ID request rate exceeded: rate limit"), false},
		{"a provider's limit", answered("limit exceeded"), false},
		{"a connection", errors.New("dial tcp 127.0.0.1:8545: connect: connection refused"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r *RefusedError
			if got := errors.As(refusal(c.err), &r); got != c.refused {
				t.Fatalf("refused %v, want %v", got, c.refused)
			}
		})
	}
}
