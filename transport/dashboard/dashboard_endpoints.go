package dashboard

import (
	"context"
	"strconv"
	"strings"

	"github.com/payledger/payledger/webhooks"
)

// dashEndpointDeliveries is how many of an endpoint's latest delivery attempts the settings page
// shows (a merchant has at most 20 endpoints, so the page reads at most 200 attempts).
const dashEndpointDeliveries = 10

type dashEndpointDelivery struct {
	EventID, Type, At, AtISO, HTTPStatus, Error, Kind string
	OK                                                bool
}

type dashEndpoint struct {
	ID, URL, Events, Created, CreatedISO string
	Deliveries                           []dashEndpointDelivery
}

// dashEndpointsView is the settings page's webhook endpoints.
type dashEndpointsView struct {
	List  []dashEndpoint
	Types []string
}

// dashEndpoints reads the merchant's endpoints and each one's latest delivery attempts, through
// the same store the /api/webhooks/endpoints routes use; the page's forms call those routes.
func (s *dash) dashEndpoints(ctx context.Context, wallet string) (dashEndpointsView, error) {
	v := dashEndpointsView{Types: webhooks.EventTypes}
	list, err := s.Endpoints.List(ctx, wallet)
	if err != nil {
		return v, err
	}
	for _, ep := range list {
		created, iso := dashTime(ep.CreatedAt.UnixMilli())
		d := dashEndpoint{ID: ep.ID.String(), URL: ep.URL, Events: strings.Join(ep.Events, ", "), Created: created, CreatedISO: iso}
		if d.Events == "*" {
			d.Events = "all events"
		}
		attempts, err := s.Endpoints.Attempts(ctx, wallet, ep.ID, dashEndpointDeliveries)
		if err != nil {
			return v, err
		}
		for _, a := range attempts {
			at, aiso := dashTime(a.AttemptedAt.UnixMilli())
			x := dashEndpointDelivery{EventID: a.EventID.String(), Type: a.Type, At: at, AtISO: aiso, Error: a.Error, Kind: a.Kind, OK: a.Error == ""}
			if a.HTTPStatus != nil {
				x.HTTPStatus = strconv.Itoa(*a.HTTPStatus)
			}
			d.Deliveries = append(d.Deliveries, x)
		}
		v.List = append(v.List, d)
	}
	return v, nil
}
