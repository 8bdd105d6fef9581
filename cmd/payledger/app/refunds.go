package app

import (
	"context"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// refundInterval paces the refund verifier: a claim is read once a step, and the development
// chain seals a block every 2 s.
const refundInterval = 2 * time.Second

// refundVerifier proves claimed refunds on chain (DESIGN 10); a node unreachable at start is
// dialled until it answers. Nil without a chain (claims stay claimed; Capabilities says why).
// Every instance may run it: the pipeline records each verdict once. A step that reads the
// chain's head progressed, whether or not a claim was decided.
func refundVerifier(d Config, health *Health) Worker {
	c := d.Chain
	if c.Dial == nil {
		return nil
	}
	return health.Stepped("refund verification", refundInterval, func(ctx context.Context, loop func(context.Context, Step) error) error {
		rpc, release, err := c.node(ctx, "refund verifications")
		if err != nil {
			return err
		}
		defer release()
		v := &settlement.RefundVerifier{Chain: chain.RefundReader{RPC: rpc, Tokens: c.Tokens}, Claims: pgstore.NewRefundClaims(d.Pool),
			Events: d.Store, Confirmations: c.Confirmations, Now: d.Now, Log: d.Log}
		return loop(ctx, func(ctx context.Context) (bool, error) {
			res, err := v.Step(ctx)
			if res != (settlement.RefundStepResult{}) {
				d.Log.Info().Int("processed", res.Processed).Int("refused", res.Refused).Int("reverted", res.Reverted).
					Msg("refunds: claims decided")
			}
			return true, err
		})
	})
}
