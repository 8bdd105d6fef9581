package webhooks

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
)

// The categories of a failed delivery, as merchants see them (DESIGN 10). A merchant sees what
// went wrong on their side of the wire, never the text of a Go error: that text names the
// service's resolver (`lookup x on 10.255.255.53:53`), internal addresses, and would tell a name
// that resolves to a private address (refused by the dialer) from one that does not resolve.
const (
	ErrorDNS               = "dns_error"          // the name did not resolve to an address the service may connect to
	ErrorConnectionRefused = "connection_refused" // the receiver's host refused the connection
	ErrorConnection        = "connection_error"   // the connection broke (reset, closed early)
	ErrorTimeout           = "timeout"            // no answer within the dispatcher's timeout
	ErrorTLS               = "tls_error"          // the TLS handshake or the receiver's certificate failed
	ErrorHTTPStatus        = "http_status"        // the receiver answered outside 2xx (the status is shown beside it)
	ErrorInvalidURL        = "invalid_url"        // the URL is not one the service sends to (not https in production)
	ErrorInternal          = "internal_error"     // the service could not prepare the delivery; it retries
)

// httpToHTTPS is net/http's error (an unexported errors.New) when an https URL's server answers
// in plain HTTP: a TLS failure as the merchant sees it.
const httpToHTTPS = "server gave HTTP response to HTTPS client"

// errInvalidURL marks checkURL's refusals of a URL's form.
var errInvalidURL = errors.New("invalid webhook URL")

// errReceiverStatus marks an answer outside 2xx.
var errReceiverStatus = errors.New("receiver answered outside 2xx")

// deliveryError is the category shown for a delivery that failed with err. A name that
// resolves only to refused addresses is a dns_error, like a name that does not resolve.
func deliveryError(err error) string {
	var dnsErr *net.DNSError
	var netErr net.Error
	var certInvalid x509.CertificateInvalidError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	switch {
	case errors.Is(err, errReceiverStatus):
		return ErrorHTTPStatus
	case errors.Is(err, errInvalidURL):
		return ErrorInvalidURL
	case errors.Is(err, errBlockedAddress), errors.As(err, &dnsErr):
		return ErrorDNS
	case errors.Is(err, syscall.ECONNREFUSED):
		return ErrorConnectionRefused
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return ErrorTimeout
	case errors.As(err, &certInvalid), errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &verify),
		errors.As(err, &record), errors.As(err, &alert), strings.Contains(err.Error(), httpToHTTPS):
		return ErrorTLS
	case errors.As(err, &netErr), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ErrorConnection
	}
	return ErrorInternal
}
