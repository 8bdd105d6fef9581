package transport

import (
	"context"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/split"
)

// TEMPORARY during the commands/ restructuring (issue 15): the payment handlers still call these
// until they go through their commands. Removed when the last caller moves.

func (s *Server) split(ctx context.Context, wallet string) (split.State, error) {
	return s.splits.Get(ctx, wallet)
}

func (s *Server) pricingFor(ctx context.Context, wallet string) (commands.MerchantPricing, error) {
	return s.pricing.Pricing(ctx, wallet)
}
