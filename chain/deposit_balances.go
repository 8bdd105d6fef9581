package chain

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Balances of many addresses in ONE JSON-RPC request: an eth_call that "deploys" (without a
// transaction, nothing is stored) a constructor reading BALANCE of each address appended to its
// code and returning them. A batch of eth_getBalance costs a request per address, which a
// provider bills per request; this costs one per BalancesPerCall addresses, on any node (no
// deployed helper contract, no state override).
//
// The constructor (49 bytes, hand-assembled; args = 32-byte address words after the code):
//
//	PUSH2 49 DUP1 CODESIZE SUB SWAP1 DUP2 SWAP1 PUSH1 0 CODECOPY      mem[0,len) = args
//	PUSH1 0                                                           i = 0
//	loop: JUMPDEST DUP2 DUP2 LT ISZERO PUSH1 end JUMPI                while i < len
//	  DUP1 MLOAD BALANCE PUSH1 128 SHL                                v = balance(mem[i]) << 128
//	  DUP2 PUSH1 1 SHR DUP4 ADD MSTORE                                mem[len + i/2] = v
//	  PUSH1 32 ADD PUSH1 loop JUMP                                    i += 32
//	end: JUMPDEST POP DUP1 PUSH1 1 SHR SWAP1 RETURN                   return mem[len, len + len/2)
//
// Each balance comes back as 16 bytes (uint128: far above all the ether there is), so the
// returned "code" stays under EIP-170's 24,576 bytes, and the init code under EIP-3860's 49,152.
var balancesInitCode = common.FromHex("0x6100318038039081906000396000" + "5b81811015602957" + "8051316080" + "1b8160011c830152" + "602001600e56" + "5b5080" + "60011c90f3")

// BalancesPerCall is how many addresses one balances call reads at most (EIP-3860 and EIP-170
// both allow 1,534).
const BalancesPerCall = 1500

// BalancesAt reads the ETH balance of each address at the block block (its hash, EIP-1898: the
// state of exactly that block, whatever the node now has at its number), one eth_call per
// BalancesPerCall addresses. Asked by number, a node whose block at that number is another (a
// reorg since the block was read, a load balancer's node on another branch) answered another
// block's balances, which the detector credited as the named block's: ETH the block that is
// judged at the depth never held. Errors: the node's (a block it does not have), or an answer
// of the wrong length.
func (c *RPC) BalancesAt(ctx context.Context, addresses []common.Address, block common.Hash) ([]*big.Int, error) {
	if err := c.sameChain(ctx); err != nil {
		return nil, err
	}
	out := make([]*big.Int, 0, len(addresses))
	for lo := 0; lo < len(addresses); lo += BalancesPerCall {
		part := addresses[lo:min(lo+BalancesPerCall, len(addresses))]
		data := make([]byte, len(balancesInitCode), len(balancesInitCode)+32*len(part))
		copy(data, balancesInitCode)
		for _, a := range part {
			data = append(data, common.LeftPadBytes(a.Bytes(), 32)...)
		}
		var ret hexutil.Bytes
		c.count(1)
		at := map[string]any{"blockHash": block}
		if err := c.rpc.CallContext(ctx, &ret, "eth_call", map[string]any{"data": hexutil.Bytes(data)}, at); err != nil {
			return nil, fmt.Errorf("chain: balances of %d addresses at block %s: %w", len(part), block, err)
		}
		if len(ret) != 16*len(part) {
			return nil, fmt.Errorf("chain: balances of %d addresses at block %s: %d bytes answered", len(part), block, len(ret))
		}
		for i := range part {
			out = append(out, new(big.Int).SetBytes(ret[16*i:16*i+16]))
		}
	}
	return out, nil
}
