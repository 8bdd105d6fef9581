package transport

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/readmodels"
)

// keptCreations are the POSTs whose kept answer is the secret of what they made (an API key, a
// webhook endpoint, an endpoint's rotated secret), with the refusal a retry gets once that is
// gone (revoked, deleted) and how to tell.
var keptCreations = map[string]struct {
	status int // of the answer that holds the secret
	gone   *Error
	live   func(s *Server, c echo.Context, id uuid.UUID) error // nil, readmodels.ErrNotFound or the datastore's error
}{
	"/api/admin/keys": {
		status: http.StatusCreated,
		gone: NewError(http.StatusConflict, "conflict",
			"The API key this Idempotency-Key created has been revoked: send a new Idempotency-Key to create another"),
		live: func(s *Server, c echo.Context, id uuid.UUID) error {
			_, err := s.keys.ByID(c.Request().Context(), id) // live keys only
			return err
		},
	},
	"/api/webhooks/endpoints": {
		status: http.StatusCreated,
		gone: NewError(http.StatusConflict, "conflict",
			"The webhook endpoint this Idempotency-Key created has been deleted: send a new Idempotency-Key to create another"),
		live: liveEndpoint,
	},
	"/api/webhooks/endpoints/:id/secret/rotate": {
		status: http.StatusOK,
		gone:   errEndpointMissing, // as a rotation of a deleted endpoint answers
		live:   liveEndpoint,
	},
}

// liveEndpoint: nil while the merchant's endpoint id is not deleted.
func liveEndpoint(s *Server, c echo.Context, id uuid.UUID) error {
	_, err := s.endpoints.Get(c.Request().Context(), merchantOf(c), id)
	return err
}

// keptCreationGone refuses the replay of a kept creation (keptCreations) whose key was revoked,
// endpoint deleted, or endpoint secret replaced by later rotations since: that answer is its
// secret, and replayed as "201, made" it hands a retrying script a dead key, an endpoint that
// receives nothing, or a secret that signs no delivery. The kept answer becomes the refusal
// (Supersede), so the secret is not kept for the rest of the 24 h either, and every later retry
// gets the same refusal.
func (s *Server) keptCreationGone(c echo.Context, principal, key string, kept readmodels.Kept) error {
	route, ok := keptCreations[c.Path()]
	if !ok || kept.Status != route.status {
		return nil
	}
	var made struct {
		APIKey   struct{ ID uuid.UUID } `json:"apiKey"`
		Endpoint struct {
			ID     uuid.UUID
			Secret string
		} `json:"endpoint"`
	}
	if json.Unmarshal(kept.Body, &made) != nil {
		return nil
	}
	id := cmp.Or(made.APIKey.ID, made.Endpoint.ID)
	if id == uuid.Nil {
		return nil
	}
	refusal, err := s.keptRefusal(c, route.live, route.gone, id, made.Endpoint.Secret)
	if refusal == nil || err != nil {
		return err // live, or the datastore's error
	}
	body, err := json.Marshal(refusal.body())
	body = append(body, '\n') // as echo writes JSON
	if err == nil {
		err = s.idem.Supersede(context.WithoutCancel(c.Request().Context()), principal, key, refusal.Status, echo.MIMEApplicationJSON, body)
	}
	if err != nil { // refused all the same; the next retry tries again
		zerolog.Ctx(c.Request().Context()).Error().Err(err).Msg("replace the kept answer of a revoked key, deleted endpoint or replaced secret")
	}
	return refusal
}

// errSecretReplaced refuses the replay of an endpoint's creation or rotation whose secret later
// rotations replaced (it no longer signs, not even as the previous secret).
var errSecretReplaced = NewError(http.StatusConflict, "conflict",
	"The webhook secret this Idempotency-Key's answer holds was replaced by a later rotation: rotate again for a secret that signs")

// keptRefusal is the refusal a kept creation's replay gets now (nil while what it made is live
// and, for an endpoint, its secret still signs).
func (s *Server) keptRefusal(c echo.Context, live func(*Server, echo.Context, uuid.UUID) error, gone *Error, id uuid.UUID, secret string) (*Error, error) {
	if err := live(s, c, id); errors.Is(err, readmodels.ErrNotFound) {
		return gone, nil
	} else if err != nil || secret == "" {
		return nil, err
	}
	signs, err := s.endpoints.Signs(c.Request().Context(), merchantOf(c), id, secret, s.now())
	switch {
	case errors.Is(err, readmodels.ErrNotFound):
		return gone, nil
	case err != nil || signs:
		return nil, err
	}
	return errSecretReplaced, nil
}

// boundRefused says whether a 400 of a creation the merchant's bound limits (live API keys,
// webhook endpoints) came with the bound reached: then it is the "revoke (delete) one first"
// refusal, and kept it would be replayed for 24 h to the very retry it asks for. Not kept, the
// retry runs again; a validation 400 made at the bound runs again too, and is refused again.
func (s *Server) boundRefused(c echo.Context, status int) bool {
	if status != http.StatusBadRequest {
		return false
	}
	ctx, merchant := c.Request().Context(), merchantOf(c)
	switch c.Path() {
	case "/api/admin/keys":
		keys, err := s.keys.List(ctx, merchant)
		live := 0
		for _, k := range keys {
			if k.RevokedAt == nil {
				live++
			}
		}
		return err == nil && live >= readmodels.MaxLiveKeys
	case "/api/webhooks/endpoints":
		eps, err := s.endpoints.List(ctx, merchant) // live ones
		return err == nil && len(eps) >= readmodels.MaxEndpoints
	}
	return false
}
