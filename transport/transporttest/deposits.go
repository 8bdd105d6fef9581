package transporttest

import (
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/onramp"
)

// PortalUSDC is the USDC of the tests' payment chain.
const PortalUSDC = "0x00000000000000000000000000000000000a11ce"

// PortalFactory is the deposit factory of the tests' receipts (nothing is deployed: the deposit
// address is computed off-chain).
var PortalFactory = common.HexToAddress("0x" + strings.Repeat("f", 40))

// WithDeposits gives new receipts a deposit address (under PortalFactory) and a payment window
// of one hour.
func WithDeposits(c *app.Config) {
	c.Deposits = chain.DepositAddresses{Factory: PortalFactory}
	c.PaymentWindow = time.Hour
}

// Portal are the options of the payment page's tests: deposit addresses, and wallet payments in
// USDC on the development chain.
func Portal() Options {
	return Options{App: WithDeposits, HTTP: func(c *transport.Config) {
		c.PaymentChain = transport.PaymentChain{ChainID: 1337, Tokens: []transport.PaymentToken{{Symbol: "USDC", Address: PortalUSDC, Decimals: 6}}}
	}}
}

// PortalWithCard is Portal with a card/bank processor configured (one no test reaches: the
// page's tests only need the card button it brings).
func PortalWithCard() Options {
	o := Portal()
	o.App = func(c *app.Config) {
		WithDeposits(c)
		c.Processor = onramp.New("http://127.0.0.1:1", "sk_test_page")
	}
	return o
}
