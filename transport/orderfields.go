package transport

import (
	"encoding/json"
	"maps"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/payledger/payledger/domain/receipt"
	linetext "github.com/payledger/payledger/domain/text"
	"github.com/payledger/payledger/webhooks"
)

// The optional fields of orders and direct receipts: buyer details, links, metadata and the
// webhook URL, each with its snake_case or camelCase alias. Text bounds count characters, as
// their messages say (a buyer's name of 70 Japanese characters is 210 bytes).

// optionalFields are the optional order and receipt fields; snake_case aliases are accepted.
type optionalFields struct {
	RedirectURL        string          `json:"redirect_url"`
	RedirectURLAlias   string          `json:"redirectUrl"`
	SuccessURL         string          `json:"successUrl"`
	SuccessURLAlias    string          `json:"success_url"`
	PostPaymentAction  string          `json:"postPaymentAction"`
	PostPaymentAlias   string          `json:"post_payment_action"`
	BuyerEmail         string          `json:"buyerEmail"`
	BuyerEmailAlias    string          `json:"buyer_email"`
	BuyerFirstName     string          `json:"buyerFirstName"`
	BuyerFirstAlias    string          `json:"buyer_first_name"`
	BuyerLastName      string          `json:"buyerLastName"`
	BuyerLastAlias     string          `json:"buyer_last_name"`
	BillingEmail       string          `json:"billingEmail"`
	BillingEmailAlias  string          `json:"billing_email"`
	Phone              string          `json:"phone"`
	AddressLine1       string          `json:"addressLine1"`
	AddressLine1Alias  string          `json:"address_line1"`
	AddressLine2       string          `json:"addressLine2"`
	AddressLine2Alias  string          `json:"address_line2"`
	City               string          `json:"city"`
	State              string          `json:"state"`
	PostalCode         string          `json:"postalCode"`
	PostalCodeAlias    string          `json:"postal_code"`
	Country            string          `json:"country"`
	TransactionID      string          `json:"transactionId"`
	TransactionIDAlias string          `json:"transaction_id"`
	Metadata           json.RawMessage `json:"metadata"`
	WebhookURL         string          `json:"webhook_url"`
	WebhookURLAlias    string          `json:"webhookUrl"`
}

func first(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

var countryRE = regexp.MustCompile(`^[A-Z]{2}$`)

// namedField is a request field's name and value, for checks that name the field they refuse.
type namedField struct{ name, v string }

// parseOptional validates the optional fields and fills them into g.
func (s *Server) parseOptional(o optionalFields, g *receipt.Generated) error {
	g.RedirectURL = first(o.RedirectURL, o.RedirectURLAlias)
	g.SuccessURL = first(o.SuccessURL, o.SuccessURLAlias)
	g.PostPaymentAction = first(o.PostPaymentAction, o.PostPaymentAlias)
	// Fields are checked in a fixed order (arrays, not maps): a request with two bad fields gets
	// the same message every time, and nothing is allocated for the lists.
	for _, f := range [...]namedField{{"redirect_url", g.RedirectURL}, {"successUrl", g.SuccessURL}} {
		if f.v != "" && !httpURL(f.v) {
			return InvalidInput(f.name + " must be an http(s) URL")
		}
	}
	if utf8.RuneCountInString(g.PostPaymentAction) > 2000 {
		return InvalidInput("postPaymentAction must be at most 2000 characters")
	}
	b := receipt.Buyer{
		Email: first(o.BuyerEmail, o.BuyerEmailAlias), FirstName: first(o.BuyerFirstName, o.BuyerFirstAlias),
		LastName: first(o.BuyerLastName, o.BuyerLastAlias), BillingEmail: first(o.BillingEmail, o.BillingEmailAlias),
		Phone: first(o.Phone), AddressLine1: first(o.AddressLine1, o.AddressLine1Alias), AddressLine2: first(o.AddressLine2, o.AddressLine2Alias),
		City: first(o.City), State: first(o.State), PostalCode: first(o.PostalCode, o.PostalCodeAlias), Country: strings.ToUpper(first(o.Country)),
	}
	for _, f := range [...]namedField{{"buyerEmail", b.Email}, {"billingEmail", b.BillingEmail}} {
		if f.v != "" {
			if a, err := mail.ParseAddress(f.v); err != nil || a.Address != f.v {
				return InvalidInput(f.name + " must be an email address")
			}
		}
	}
	if b.Country != "" && !countryRE.MatchString(b.Country) {
		return InvalidInput("country must be an ISO 3166-1 alpha-2 code such as US")
	}
	for _, f := range [...]namedField{{"buyerFirstName", b.FirstName}, {"buyerLastName", b.LastName}, {"phone", b.Phone}, {"addressLine1", b.AddressLine1},
		{"addressLine2", b.AddressLine2}, {"city", b.City}, {"state", b.State}, {"postalCode", b.PostalCode}} {
		if utf8.RuneCountInString(f.v) > 200 {
			return InvalidInput(f.name + " must be at most 200 characters")
		}
	}
	g.Buyer = b
	g.TransactionID = first(o.TransactionID, o.TransactionIDAlias)
	if utf8.RuneCountInString(g.TransactionID) > 200 {
		return InvalidInput("transactionId must be at most 200 characters")
	}
	if strings.IndexFunc(g.TransactionID, linetext.Reorders) >= 0 { // one line, as the CSV and the dashboard show it
		return InvalidInput("transactionId must be one line of text, without control or bidi override characters")
	}
	md, err := parseMetadata(o.Metadata)
	if err != nil {
		return err
	}
	if md != nil {
		g.Metadata = md
	}
	g.WebhookURL = first(o.WebhookURL, o.WebhookURLAlias)
	if g.WebhookURL != "" {
		if err := s.checkWebhookURL("webhook_url", g.WebhookURL); err != nil {
			return err
		}
	}
	return nil
}

// checkWebhookURL enforces, on the webhook URL given as field (a receipt's webhook_url, the
// shop's webhookUrl), https and no local or private hosts in production; development allows
// http and localhost.
func (s *Server) checkWebhookURL(field, raw string) error {
	if !httpURL(raw) {
		return InvalidInput(field + " must be an http(s) URL")
	}
	if !s.cfg.Production {
		return nil
	}
	if !strings.HasPrefix(strings.ToLower(raw), "https://") {
		return InvalidInput(field + " must use https in production")
	}
	if webhooks.PrivateHost(raw) {
		return InvalidInput(field + " must not point at localhost or a private address in production")
	}
	return nil
}

// parseMetadata reads the metadata object: at most 50 keys with string values; nil when absent.
func parseMetadata(m json.RawMessage) (map[string]string, error) {
	if m == nil || isNull(m) {
		return nil, nil
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(m, &raw) != nil {
		return nil, InvalidInput("metadata must be an object of string values")
	}
	if len(raw) > 50 {
		return nil, InvalidInput("metadata may hold at most 50 keys")
	}
	// Keys in order: with two bad keys the same one is named every time (maps iterate at random).
	out := make(map[string]string, len(raw))
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if k == "" || utf8.RuneCountInString(k) > 100 {
			return nil, InvalidInput("metadata keys must be 1 to 100 characters")
		}
		var sv string
		if json.Unmarshal(raw[k], &sv) != nil || utf8.RuneCountInString(sv) > 500 {
			return nil, InvalidInput("metadata." + k + " must be a string of at most 500 characters")
		}
		out[k] = sv
	}
	return out, nil
}
