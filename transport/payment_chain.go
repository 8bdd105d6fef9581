package transport

import (
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// PaymentChain is the chain configuration the payment page shows to the customer: where to pay
// (CHAIN_ID, the ERC-20 tokens of CHAIN_TOKENS; ETH is native) and, for the development chain
// only, the node a wallet may add. The zero value means no chain: no QR, no wallet button.
type PaymentChain struct {
	ChainID int64
	Name    string // shown in the instructions and wallet_addEthereumChain
	// RPCURL is offered to wallet_addEthereumChain. Only a public endpoint may be set here: the
	// service's own ETH_RPC_URL may carry a provider key (serve sets it for the development
	// chain only).
	RPCURL string
	Tokens []PaymentToken
	// ExplorerURL is the chain's block explorer (EXPLORER_URL, e.g. https://basescan.org): the
	// dashboard links each transfer to <ExplorerURL>/tx/<hash>; "" (the development chain): none.
	ExplorerURL string
}

// PaymentToken is a configured ERC-20.
type PaymentToken struct {
	Symbol   string
	Address  string // 0x hex
	Decimals uint8
}

// Configured reports whether wallet payments can be shown.
func (c PaymentChain) Configured() bool { return c.ChainID > 0 }

// token finds a payable token: ETH (native, 18 decimals, no address) or one of Tokens.
func (c PaymentChain) token(symbol string) (PaymentToken, bool) {
	if !c.Configured() {
		return PaymentToken{}, false
	}
	if symbol == "ETH" {
		return PaymentToken{Symbol: "ETH", Decimals: 18}, true
	}
	for _, t := range c.Tokens {
		if strings.EqualFold(t.Symbol, symbol) {
			t.Address = common.HexToAddress(t.Address).Hex()
			return t, true
		}
	}
	return PaymentToken{}, false
}

// ChainName is the display name of a chain id.
func ChainName(id int64) string {
	switch id {
	case 1:
		return "Ethereum"
	case 8453:
		return "Base"
	case 84532:
		return "Base Sepolia"
	case 11155111:
		return "Sepolia"
	case 1337:
		return "payledger development chain"
	}
	return "chain " + strconv.FormatInt(id, 10)
}
