// Package onramp is the HTTP client of the card/bank onramp processor's session API
// (DESIGN.md section 6): create a session for a payment attempt, read a session's status.
package onramp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// CreateRequest starts a session for one payment attempt.
type CreateRequest struct {
	ReceiptID         string      `json:"receiptId"`
	AttemptID         string      `json:"attemptId"`
	AmountUSD         json.Number `json:"amountUsd"`
	Token             string      `json:"token"`
	DestinationWallet string      `json:"destinationWallet"`
	RedirectURL       string      `json:"redirectUrl,omitempty"`
}

// Session is the processor's view of a session.
type Session struct {
	ID              string       `json:"id"`
	Status          string       `json:"status"`
	RedirectURL     string       `json:"redirectUrl"`
	ErrorCode       string       `json:"errorCode"`
	RequestID       string       `json:"requestId"`
	TransactionHash string       `json:"transactionHash"`
	WalletAddress   string       `json:"walletAddress"`
	SourceAmountUSD *json.Number `json:"sourceAmountUsd"`
}

// Client talks to PROCESSOR_API_URL with PROCESSOR_API_KEY.
type Client struct {
	base string
	key  string
	http *http.Client
}

// New returns a client for the API at base.
func New(base, key string) *Client {
	return &Client{base: strings.TrimRight(base, "/"), key: key, http: &http.Client{Timeout: 10 * time.Second}}
}

// Create starts a session.
func (c *Client) Create(ctx context.Context, req CreateRequest) (Session, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Session{}, err
	}
	return c.do(ctx, http.MethodPost, "/v1/onramp_sessions", body)
}

// Get reads a session.
func (c *Client) Get(ctx context.Context, id string) (Session, error) {
	return c.do(ctx, http.MethodGet, "/v1/onramp_sessions/"+url.PathEscape(id), nil)
}

func (c *Client) do(ctx context.Context, method, path string, body []byte) (Session, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return Session{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return Session{}, &Error{err: fmt.Errorf("onramp %s %s: %w", method, path, err), unavailable: true}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Session{}, &Error{err: fmt.Errorf("onramp %s %s: %w", method, path, err), unavailable: true}
	}
	if resp.StatusCode/100 != 2 {
		return Session{}, &Error{err: fmt.Errorf("onramp %s %s: status %d: %.200s", method, path, resp.StatusCode, raw),
			unavailable: unavailableStatus(resp.StatusCode)}
	}
	var s Session
	if err := json.Unmarshal(raw, &s); err != nil || s.ID == "" {
		return Session{}, &Error{err: fmt.Errorf("onramp %s %s: unexpected answer %.200s", method, path, raw), unavailable: true}
	}
	return s, nil
}

// Error is a failed call to the processor's API; its text is the call's and the cause.
type Error struct {
	err         error
	unavailable bool
}

func (e *Error) Error() string { return e.err.Error() }
func (e *Error) Unwrap() error { return e.err }

// Unavailable reports whether the processor could not be asked at all: no answer (a network
// error, a timeout), a server error or a rate limit (5xx, 429), a refusal of the service's key
// (401, 403: no session can be read with it) or an answer that is no session. A 4xx about the
// session itself (404: a session the processor no longer answers for) is the processor's answer
// about that session, not its absence. The reconciliation stops a pass after a few calls that
// were not answered in a row, rather than waiting out every open attempt's timeout.
func (e *Error) Unavailable() bool { return e.unavailable }

// unavailableStatus is whether an HTTP status says the processor could not be asked (Unavailable).
func unavailableStatus(code int) bool {
	return code >= 500 || code == http.StatusTooManyRequests || code == http.StatusUnauthorized || code == http.StatusForbidden
}
