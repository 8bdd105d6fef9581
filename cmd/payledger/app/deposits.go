package app

import (
	"cmp"
	"context"
	"time"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// depositInterval is how often the deposit detector looks for new blocks.
const depositInterval = time.Second

// depositDetector is the worker that credits transfers to deposit addresses (DESIGN 9: the
// process that decides `paid`); a node unreachable at start is dialled until it answers. Nil
// without a chain. A step that reads no block makes no progress: every chain in use seals a
// block well within the stall window, so a detector that reads none for that long (a node that
// stopped answering; a cursor ahead of the chain's head or saved on another chain, whose steps
// fail with settlement.ErrCursorAhead or ErrOtherChain) is stuck, and /healthz says so; so is
// one whose look-back for deposits watched late keeps failing (settlement.StepResult.LookBack),
// or that keeps holding transfers of a receipt it cannot read (StepResult.Unreadable).
func depositDetector(d Config, health *Health) Worker {
	c := d.Chain
	if c.Dial == nil {
		return nil
	}
	return health.Stepped("deposit detection", depositInterval, func(ctx context.Context, loop func(context.Context, Step) error) error {
		rpc, release, err := c.node(ctx, "deposit detection")
		if err != nil {
			return err
		}
		defer release()
		det := &settlement.DepositDetector{Chain: chain.DepositScanner{RPC: rpc, Tokens: c.Tokens}, Store: pgstore.NewDeposits(d.Pool),
			Events: d.Store, Confirmations: c.Confirmations, Monitor: d.PaymentMonitorWindow, LateWatch: d.PaymentLateWatch, Now: d.Now, Log: d.Log,
			Prices: PriceSource(d.Pool), MaxRange: c.LogRange}
		return loop(ctx, func(ctx context.Context) (bool, error) {
			res, err := det.Step(ctx)
			if err == nil && (res.Transfers > 0 || res.Receipts > 0) {
				d.Log.Info().Uint64("from", res.From).Uint64("to", res.To).Int("transfers", res.Transfers).Int("receipts", res.Receipts).
					Msg("deposits: transfers credited")
			}
			return detectionProgress(res, err)
		})
	})
}

// detectionProgress is a detector step's outcome for its health: progress when it read blocks.
// A step whose look-back for deposits watched late failed read its blocks, but those deposits
// are still to be looked for: no progress, and its error, so a look-back refused for the stall
// window marks detection stuck, with why on /healthz and in the log. So does a receipt whose
// stream this build cannot read (StepResult.Unreadable): the others are credited, but its
// transfers wait, kept, until an operator deploys a build that reads it.
func detectionProgress(res settlement.StepResult, err error) (bool, error) {
	if err == nil {
		if held := cmp.Or(res.LookBack, res.Unreadable); held != nil {
			return false, held
		}
	}
	return res.To > 0, err
}

// node is the chain client a process works with: the one serve dialled at start, or, when the
// node did not answer then, one dialled here until it answers (waiting names the process in the
// log). release closes a client dialled here and leaves serve's alone.
func (c Chain) node(ctx context.Context, waiting string) (*chain.RPC, func(), error) {
	if c.RPC != nil {
		return c.RPC, func() {}, nil
	}
	rpc, err := c.Dial(ctx, waiting)
	if err != nil {
		return nil, nil, err
	}
	return rpc, rpc.Close, nil
}
