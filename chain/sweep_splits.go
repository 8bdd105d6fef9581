package chain

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain/contracts"
)

// splitCodes remembers which splits hold the operator's own PaymentSplit runtime code (the same
// for every deployment: it has no immutables). Code once deployed does not change (no
// SELFDESTRUCT since Cancun), so answers are kept, up to maxSplitCodes of them.
type splitCodes struct {
	mu   sync.Mutex
	want common.Hash // keccak256 of PaymentSplit's runtime code, once read
	seen map[common.Address]bool
}

const maxSplitCodes = 100_000

// StandardSplit says whether split holds PaymentSplit's code (deployed by the operator, or the
// same contract deployed by anyone): its receive() only emits an event. Any other contract (a
// merchant's own PaymentSplitter, stop 60) runs its own receive() when a deposit's ETH is flushed
// to it, with all the gas left, so the sweeper sweeps its deposits apart. A split without code
// counts as standard (nothing runs) and is asked again next time. Errors: the node's.
func (s *Sweeper) StandardSplit(ctx context.Context, split string) (bool, error) {
	a := common.HexToAddress(split)
	s.codes.mu.Lock()
	ok, known := s.codes.seen[a]
	want := s.codes.want
	s.codes.mu.Unlock()
	if known {
		return ok, nil
	}
	if want == (common.Hash{}) {
		var err error
		if want, err = s.paymentSplitCodeHash(ctx); err != nil {
			return false, fmt.Errorf("PaymentSplit's runtime code: %w", err)
		}
	}
	code, err := s.b.CodeAt(ctx, a, nil)
	if err != nil || len(code) == 0 {
		return err == nil, err
	}
	ok = crypto.Keccak256Hash(code) == want
	s.codes.mu.Lock()
	defer s.codes.mu.Unlock()
	s.codes.want = want
	if s.codes.seen == nil || len(s.codes.seen) >= maxSplitCodes {
		s.codes.seen = map[common.Address]bool{}
	}
	s.codes.seen[a] = ok
	return ok, nil
}

// paymentSplitCodeHash is the hash of PaymentSplit's runtime code, which a call running its
// creation code (one payee, all shares) returns.
func (s *Sweeper) paymentSplitCodeHash(ctx context.Context) (common.Hash, error) {
	a, err := contracts.PaymentSplitMetaData.GetAbi()
	if err != nil {
		return common.Hash{}, err
	}
	args, err := a.Pack("", []common.Address{common.HexToAddress("0x0000000000000000000000000000000000000001")}, []*big.Int{big.NewInt(10_000)})
	if err != nil {
		return common.Hash{}, err
	}
	data := append(common.FromHex(contracts.PaymentSplitMetaData.Bin), args...)
	code, err := s.b.CallContract(ctx, ethereum.CallMsg{From: s.from, Data: data}, nil)
	if err != nil {
		return common.Hash{}, err
	}
	if len(code) == 0 {
		return common.Hash{}, fmt.Errorf("creating a PaymentSplit returned no code")
	}
	return crypto.Keccak256Hash(code), nil
}
