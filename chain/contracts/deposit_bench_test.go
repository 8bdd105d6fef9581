package contracts_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain/contracts"
)

// sweepGas funds n new deposits with 1 USDC each (and 1 ETH every third one when withETH), then
// sweeps them in one transaction from the stranger listing tokens, and returns its gas used and
// its gas limit (as estimated: the gas before refunds, which the transaction cap bounds). Only the
// sweep runs with the benchmark's timer on.
func (e *depositEnv) sweepGas(b *testing.B, prefix string, n int, withETH bool, tokens ...common.Address) (used, limit uint64, keys []contracts.DepositFactoryDepositKey) {
	b.StopTimer()
	var wei *big.Int
	if withETH {
		wei = eth(1)
	}
	keys = e.fundDeposits(prefix, n, e.usdc, 1_000_000, wei)
	b.StartTimer()
	r := e.sweep(e.stranger, keys, tokens...)
	b.StopTimer()
	tx, _, err := e.client.TransactionByHash(context.Background(), r.TxHash)
	if err != nil {
		b.Fatal(err)
	}
	return r.GasUsed, tx.Gas(), keys
}

// BenchmarkDepositSweep measures, on the simulated chain (30M gas blocks; mainnet's Osaka rules,
// 2^24 gas a transaction, and the simulated backend's default rules), the gas a sweep costs per deposit against a plain ERC-20 transfer, and how
// many deposits one sweep transaction holds. Gas is deterministic: the metrics are those of the
// last iteration; ns/op is the time of one 100-deposit sweep on the simulated chain.
func BenchmarkDepositSweep(b *testing.B) {
	b.Run("osaka", func(b *testing.B) { benchmarkDepositSweep(b, newDepositEnvRules(b, osakaRules)) })
	// The simulated backend's default (the development chain's): Amsterdam's state-gas metering.
	b.Run("dev-default", func(b *testing.B) { benchmarkDepositSweep(b, newDepositEnvRules(b, nil)) })
}

func benchmarkDepositSweep(b *testing.B, e *depositEnv) {
	const n = 100
	two := []common.Address{e.usdcAddr, e.usdtAddr}
	var transfer, first, firstTwo, firstETH, again, limitTwo, limitOne uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		prefix := "rcpt_bench" + itoa(i)
		// What a customer's payment costs: 1 USDC to a new deposit address.
		b.StopTimer()
		// A fixed recipient per iteration: its zero bytes, which calldata prices lower, do not vary.
		to := common.BytesToAddress(crypto.Keccak256([]byte(prefix)))
		transfer = e.mined(e.usdc.Transfer(e.opts(e.payer), to, big.NewInt(1_000_000))).GasUsed
		b.StartTimer()
		var keys []contracts.DepositFactoryDepositKey
		first, _, keys = e.sweepGas(b, prefix+"a", n, false, e.usdcAddr)
		firstTwo, limitTwo, _ = e.sweepGas(b, prefix+"b", n, false, two...)
		_, limitOne, _ = e.sweepGas(b, prefix+"c", 1, false, two...)
		// USDC in every deposit and 1 ETH in every third, both swept (the ETH to the
		// PaymentSplit's receive()), per deposit.
		firstETH, _, _ = e.sweepGas(b, prefix+"d", n, true, two...)
		// Late payments to the same, now deployed, deposits, swept again.
		opNonce := e.nonce(e.operator)
		gas := e.mintGas(e.usdc, 1_000_000)
		txs := make([]*types.Transaction, 0, n)
		for _, k := range keys {
			o := e.opts(e.operator)
			o.Nonce, o.GasLimit = new(big.Int).SetUint64(opNonce), gas
			opNonce++
			tx, err := e.usdc.Mint(o, e.depositOf(k.ReceiptId, k.Split), big.NewInt(1_000_000))
			if err != nil {
				b.Fatal(err)
			}
			txs = append(txs, tx)
		}
		e.minedAll(txs...)
		b.StartTimer()
		again = e.sweep(e.stranger, keys, e.usdcAddr).GasUsed
		b.StopTimer()
	}
	// The most deposits (USDC and USDT listed, each holding USDC) one transaction holds under the
	// cap, from the marginal gas limit between a 1- and a 100-deposit sweep; then checked by a
	// sweep of exactly that many.
	marginal := (limitTwo - limitOne) / (n - 1)
	most := int((txGasCap - (limitOne - marginal)) / marginal)
	b.StopTimer()
	keys := e.fundDeposits("rcpt_bench_most", most, e.usdc, 1_000_000, nil)
	r := e.sweep(e.stranger, keys, two...)
	if swept, failed := e.sweptAndFailed(r); len(swept) != most || len(failed) != 0 {
		b.Fatalf("the largest sweep: %d Swept and %d SweepFailed, want %d and 0", len(swept), len(failed), most)
	}
	b.ReportMetric(float64(transfer), "gas/erc20-transfer")
	b.ReportMetric(float64(first)/n, "gas/deposit-first")
	b.ReportMetric(float64(firstTwo)/n, "gas/deposit-first-2tokens")
	b.ReportMetric(float64(firstETH)/n, "gas/deposit-first-with-eth")
	b.ReportMetric(float64(again)/n, "gas/deposit-again")
	b.ReportMetric(float64(most), "deposits/tx")
	b.ReportMetric(float64(r.GasUsed), "gas/largest-sweep")
	b.ReportMetric(float64(blockGasLimit/marginal), "deposits/30M-block")
}
