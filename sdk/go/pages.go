package payledger

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
)

// The paged lists (inventory, receipts, webhook deliveries, a wallet's subscriptions) answer a
// page and next, the cursor of the following page ("" after the last). The All* methods walk
// them page by page; a loop that breaks stops fetching.

// APIError is an answer a helper did not expect: its HTTP status and the error envelope.
type APIError struct {
	StatusCode int
	Envelope   Error  // the {"error", "message"} body; zero when the body is not one
	Body       []byte // the body as received
}

func (e *APIError) Error() string {
	if e.Envelope.Error != "" {
		return fmt.Sprintf("payledger: %d %s: %s", e.StatusCode, e.Envelope.Error, e.Envelope.Message)
	}
	return fmt.Sprintf("payledger: %d: %.200s", e.StatusCode, e.Body)
}

func apiError(res *http.Response, body []byte) error {
	e := &APIError{Body: body}
	if res != nil {
		e.StatusCode = res.StatusCode
	}
	_ = json.Unmarshal(body, &e.Envelope)
	return e
}

// pages yields every item of the pages that page returns, from the cursor first (nil: the first
// page), and stops at the first error, which it yields.
func pages[T any](first *string, page func(cursor *string) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		cursor := first
		for {
			items, next, err := page(cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			if cursor != nil && next == *cursor { // a page naming itself next would loop forever
				yield(zero, fmt.Errorf("payledger: the list answered its own cursor %q as next", next))
				return
			}
			cursor = &next
		}
	}
}

// AllReceipts yields the merchant's receipts (newest first), as ListReceipts pages them with
// params (nil: every receipt, pages of the default size).
func (c *ClientWithResponses) AllReceipts(ctx context.Context, params *ListReceiptsParams) iter.Seq2[Receipt, error] {
	p := ListReceiptsParams{}
	if params != nil {
		p = *params
	}
	return pages(p.Cursor, func(cursor *string) ([]Receipt, string, error) {
		p.Cursor = cursor
		res, err := c.ListReceiptsWithResponse(ctx, &p)
		if err != nil {
			return nil, "", err
		}
		if res.JSON200 == nil {
			return nil, "", apiError(res.HTTPResponse, res.Body)
		}
		return res.JSON200.Receipts, res.JSON200.Next, nil
	})
}

// AllInventory yields the merchant's inventory items, as ListInventory pages them with params.
func (c *ClientWithResponses) AllInventory(ctx context.Context, params *ListInventoryParams) iter.Seq2[Item, error] {
	p := ListInventoryParams{}
	if params != nil {
		p = *params
	}
	return pages(p.Cursor, func(cursor *string) ([]Item, string, error) {
		p.Cursor = cursor
		res, err := c.ListInventoryWithResponse(ctx, &p)
		if err != nil {
			return nil, "", err
		}
		if res.JSON200 == nil {
			return nil, "", apiError(res.HTTPResponse, res.Body)
		}
		return res.JSON200.Items, res.JSON200.Next, nil
	})
}

// AllWebhookDeliveries yields the receipt webhook deliveries, as ListWebhookDeliveries pages them.
func (c *ClientWithResponses) AllWebhookDeliveries(ctx context.Context, params *ListWebhookDeliveriesParams) iter.Seq2[Delivery, error] {
	p := ListWebhookDeliveriesParams{}
	if params != nil {
		p = *params
	}
	return pages(p.Cursor, func(cursor *string) ([]Delivery, string, error) {
		p.Cursor = cursor
		res, err := c.ListWebhookDeliveriesWithResponse(ctx, &p)
		if err != nil {
			return nil, "", err
		}
		if res.JSON200 == nil {
			return nil, "", apiError(res.HTTPResponse, res.Body)
		}
		return res.JSON200.Deliveries, res.JSON200.Next, nil
	})
}

// AllSubscriptions yields a customer's or merchant's subscriptions (params names one of them), as
// GetSubscriptionStatus pages them.
func (c *ClientWithResponses) AllSubscriptions(ctx context.Context, params GetSubscriptionStatusParams) iter.Seq2[Subscription, error] {
	p := params
	return pages(p.Cursor, func(cursor *string) ([]Subscription, string, error) {
		p.Cursor = cursor
		res, err := c.GetSubscriptionStatusWithResponse(ctx, &p)
		if err != nil {
			return nil, "", err
		}
		if res.JSON200 == nil {
			return nil, "", apiError(res.HTTPResponse, res.Body)
		}
		return res.JSON200.Subscriptions, res.JSON200.Next, nil
	})
}
