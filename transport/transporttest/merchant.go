package transporttest

import (
	"context"
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/transport"
)

// Merchant is a signed-up merchant: wallet, a key with every scope, session, and (when asked)
// a configured split.
type Merchant struct {
	Wallet  string
	Key     string
	Cookies []*http.Cookie
	CSRF    string
	Priv    *ecdsa.PrivateKey
}

// Merchant signs up a merchant.
func (e *Env) Merchant(withSplit bool) Merchant {
	e.T.Helper()
	priv, _ := crypto.GenerateKey()
	m := Merchant{Wallet: WalletOf(priv), Priv: priv}
	secret, _, err := e.Svc.Keys.Create(context.Background(), m.Wallet, "test", transport.Scopes)
	if err != nil {
		e.T.Fatal(err)
	}
	m.Key = secret
	m.Cookies, m.CSRF = e.Login(priv)
	if withSplit {
		rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/split/deploy", `{"splitAddress":"0x`+strings.Repeat("c", 40)+`"}`)
		if rec.Code == http.StatusConflict { // another merchant of this env has it: one of its own
			rec = e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/split/deploy", `{"splitAddress":"0xc`+m.Wallet[3:]+`"}`)
		}
		if rec.Code != 200 {
			e.T.Fatalf("split: %d %s", rec.Code, rec.Body)
		}
	}
	return m
}

// Dev is a developer request with m's key (extra: header name, value, ...).
func (e *Env) Dev(m Merchant, method, path, body string, extra ...string) *httptest.ResponseRecorder {
	h := map[string]string{"Ocp-Apim-Subscription-Key": m.Key}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return e.Do(Req{Method: method, Path: path, Body: body, Header: h})
}

// AdminCall performs a state-changing admin request with the session and CSRF token.
func (e *Env) AdminCall(cookies []*http.Cookie, csrf, method, path, body string) *httptest.ResponseRecorder {
	return e.Do(Req{Method: method, Path: path, Body: body, Cookies: cookies, Header: map[string]string{transport.CSRFHeader: csrf}})
}

// Count is the number of rows of table.
func (e *Env) Count(table string) int {
	var n int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// ReceiptFor creates a receipt of total USD for m and returns its id.
func (e *Env) ReceiptFor(m Merchant, total string) string {
	e.T.Helper()
	rec := e.Dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"Order","priceUsd":`+total+`}],"totalUsd":`+total+`}`)
	if rec.Code != 201 {
		e.T.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	return Decode(e.T, rec)["receipt"].(map[string]any)["receiptId"].(string)
}

// ProcessorEvent posts a signed onramp processor event.
func (e *Env) ProcessorEvent(id, receiptID, attemptID, sessionID, status string, extra string) *httptest.ResponseRecorder {
	body := fmt.Sprintf(`{"id":%q,"type":"crypto.onramp_session.updated","created":%d,"data":{"sessionId":%q,"receiptId":%q,"attemptId":%q,"status":%q%s}}`,
		id, e.Clk.Now().Unix(), sessionID, receiptID, attemptID, status, extra)
	ts := e.Clk.Now().Unix()
	mac := hmac.New(sha256.New, []byte(ProcessorSecret))
	mac.Write([]byte(strconv.FormatInt(ts, 10) + "." + body))
	sig := fmt.Sprintf("t=%d,v1=%s", ts, hex.EncodeToString(mac.Sum(nil)))
	return e.Do(Req{Method: http.MethodPost, Path: "/api/processor/webhook", Body: body, Header: map[string]string{"Processor-Signature": sig}})
}

// Pay completes receipt id's onramp payment (processor event evt).
func (e *Env) Pay(id, evt string) {
	e.T.Helper()
	// A success pays only with the amount due: the receipt's USD total.
	var cents int64
	if err := e.Pool.QueryRow(context.Background(), `SELECT (data->>'totalCents')::bigint FROM events WHERE stream_id = $1 AND version = 1`,
		receipt.Stream(id)).Scan(&cents); err != nil {
		e.T.Fatalf("pay: the receipt's total: %v", err)
	}
	amount := fmt.Sprintf(`,"sourceAmountUsd":%d.%02d`, cents/100, cents%100)
	if rec := e.ProcessorEvent(evt, id, "att_1", "cos_1", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("A", 64)+`","walletAddress":"0x`+strings.Repeat("b", 40)+`"`+amount); rec.Code != 200 {
		e.T.Fatalf("pay: %d %s", rec.Code, rec.Body)
	}
}

// CreateEndpoint registers a webhook endpoint for m and returns its id and secret.
func (e *Env) CreateEndpoint(m Merchant, url string, events ...string) (string, string) {
	e.T.Helper()
	b, _ := json.Marshal(map[string]any{"url": url, "events": events})
	rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/webhooks/endpoints", string(b))
	if rec.Code != http.StatusCreated {
		e.T.Fatalf("create endpoint: %d %s", rec.Code, rec.Body)
	}
	ep := Decode(e.T, rec)["endpoint"].(map[string]any)
	secret := ep["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") {
		e.T.Fatalf("secret %q", secret)
	}
	return ep["id"].(string), secret
}

// Change appends to receipt id what change decides, as a process would, and waits until the
// receipts read model has it.
func (e *Env) Change(id string, change func(receipt.State) ([]receipt.Event, error)) {
	e.T.Helper()
	ctx := context.Background()
	_, res, err := commands.ChangeReceipt(ctx, e.Svc.Events, id, eventstore.Metadata{Actor: "test"}, change)
	if err != nil {
		e.T.Fatal(err)
	}
	if err := e.Svc.Projections.Receipts.WaitFor(ctx, res.Position); err != nil {
		e.T.Fatal(err)
	}
}

// DepositCredit records a transfer of units of token to receipt id's deposit address, seen (and
// confirmed when confirmed), as the deposit detector does, and waits until the read model has it.
func (e *Env) DepositCredit(id, tx, token, units string, confirmed bool) {
	e.T.Helper()
	seen := receipt.DepositTransferSeen{TransactionHash: tx, LogIndex: 0, BlockNumber: 7, BlockHash: "0xb7", Sender: "0xbuyer",
		Token: token, AmountUnits: units, Decimals: 6, At: e.Clk.Now().UnixMilli()}
	e.Change(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveDeposit(st, receipt.DepositObservation{Transfer: seen, Confirmed: confirmed, At: seen.At})
	})
}

// Receiver is a local HTTP receiver answering the statuses of answers in order, then 200.
type Receiver struct {
	mu      sync.Mutex
	answers []int
	Srv     *httptest.Server
}

// NewReceiver starts a receiver, closed when the test ends.
func NewReceiver(t testing.TB, answers ...int) *Receiver {
	r := &Receiver{answers: answers}
	r.Srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		r.mu.Lock()
		code := 200
		if len(r.answers) > 0 {
			code, r.answers = r.answers[0], r.answers[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(r.Srv.Close)
	return r
}
