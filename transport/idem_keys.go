package transport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/readmodels"
)

// errIdemKeyRevoked answers a retry of POST /api/admin/keys whose key has been revoked since.
var errIdemKeyRevoked = NewError(http.StatusConflict, "conflict",
	"The API key this Idempotency-Key created has been revoked: send a new Idempotency-Key to create another")

// keptKeyRevoked refuses the replay of a kept POST /api/admin/keys answer whose key is revoked:
// that answer is the key's secret, and replayed as "201, made" it hands a retrying script a dead
// key. The kept answer becomes the refusal (Supersede), so the revoked secret is not kept for the
// rest of the key's 24 h either, and every later retry gets the same 409.
func (s *Server) keptKeyRevoked(c echo.Context, principal, key string, kept readmodels.Kept) error {
	if c.Path() != "/api/admin/keys" || kept.Status != http.StatusCreated {
		return nil
	}
	var made struct {
		APIKey struct {
			ID uuid.UUID `json:"id"`
		} `json:"apiKey"`
	}
	if json.Unmarshal(kept.Body, &made) != nil || made.APIKey.ID == uuid.Nil {
		return nil
	}
	_, err := s.keys.ByID(c.Request().Context(), made.APIKey.ID) // live keys only
	if !errors.Is(err, readmodels.ErrNotFound) {
		return err // live (nil), or the datastore's error
	}
	body, err := json.Marshal(errIdemKeyRevoked.body())
	body = append(body, '\n') // as echo writes JSON
	if err == nil {
		err = s.idem.Supersede(context.WithoutCancel(c.Request().Context()), principal, key, errIdemKeyRevoked.Status, echo.MIMEApplicationJSON, body)
	}
	if err != nil { // refused all the same; the next retry tries again
		zerolog.Ctx(c.Request().Context()).Error().Err(err).Msg("replace a revoked key's kept answer")
	}
	return errIdemKeyRevoked
}
