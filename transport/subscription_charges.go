package transport

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/settlement"
)

// subscriptionChargeRoutes are the internal charging routes (x-cron-secret): one charge, and
// every due subscription (the daily cron). Without a charger (no chain, operator key, manager or
// USDC) both answer 503 subscriptions_not_configured.
func (s *Server) subscriptionChargeRoutes(charger *settlement.ChargeSubscriptionsHandler) {
	s.handle(http.MethodPost, "/api/subscriptions/charge", Policy{Access: Cron}, func(c echo.Context) error {
		var b struct {
			SubscriptionID string `json:"subscriptionId"`
		}
		if err := DecodeJSON(c, &b); err != nil {
			return err
		}
		if b.SubscriptionID == "" {
			return InvalidInput("subscriptionId is required")
		}
		if charger == nil {
			return commands.ErrSubscriptionsNotSetUp
		}
		res, err := charger.Handle(c.Request().Context(), settlement.ChargeSubscription{ID: b.SubscriptionID, Meta: s.metadata(c, "cron")})
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"success": true, "charge": res})
	})
	s.handle(http.MethodPost, "/api/cron/charge-subscriptions", Policy{Access: Cron}, func(c echo.Context) error {
		if charger == nil {
			return commands.ErrSubscriptionsNotSetUp
		}
		run, err := charger.ChargeDue(c.Request().Context(), s.metadata(c, "cron"))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"success": true, "processed": run.Processed, "succeeded": run.Succeeded,
			"failed": run.Failed, "durationMs": run.Duration.Milliseconds(), "results": run.Results})
	})
}
