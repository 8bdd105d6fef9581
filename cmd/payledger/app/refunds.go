package app

import (
	"context"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
)

// refundInterval paces the refund verifier: a claim is read once a step, and the development
// chain seals a block every 2 s.
const refundInterval = 2 * time.Second

// refundVerifier proves claimed refunds on chain (DESIGN 10): without a chain it does nothing
// (claims stay claimed); with one, it dials until the node answers (unless it answered at start)
// and runs the verifier. Every instance may run it: the pipeline records each verdict once.
func refundVerifier(d Deps) Worker {
	c := d.Chain
	return workerFunc(func(ctx context.Context) error {
		if c.Dial == nil {
			return nil
		}
		rpc := c.RPC
		if rpc == nil { // dialled here: closed here (the one dialled at start is serve's)
			var err error
			if rpc, err = c.Dial(ctx, "refund verifications"); err != nil {
				return err
			}
			defer rpc.Close()
		}
		v := &settlement.RefundVerifier{Chain: chain.RefundReader{RPC: rpc, Tokens: c.Tokens}, Claims: readmodels.NewRefundClaims(d.Pool),
			Events: d.Store, Confirmations: c.Confirmations, Now: d.Now, Log: d.Log}
		return v.Run(ctx, refundInterval)
	})
}
