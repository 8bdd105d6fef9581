package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/payledger/payledger/webhooks"
)

const listenUsage = `usage: payledger listen --forward-to URL [--api-key KEY] [--base-url URL] [--secret whsec_...]

  Streams the merchant's events from the service (GET /api/webhooks/stream) and posts each to
  URL as a webhook endpoint would receive it (Standard Webhooks headers, signed with the secret
  it prints), printing one line per event with the receiver's answer. A dropped stream is
  resumed after the last event received; an answer that asking again cannot change (a refused
  key, no stream at --base-url: 404) ends listen with exit 1. --api-key defaults to the key
  ` + "`payledger dev merchant`" + ` kept in DEV_DATA_DIR/dev-merchant.env; --base-url to PUBLIC_BASE_URL.
`

// listener forwards the event stream to a local receiver.
type listener struct {
	base, key, forward, secret string
	stream, post               *http.Client
	out                        io.Writer
	retry                      time.Duration // wait before reconnecting
	quiet                      time.Duration // a stream silent this long is resumed (0: streamQuiet)
	lastID                     string        // the last event id received (Last-Event-ID)
}

// listenCommand parses the flags and runs the listener until ctx ends.
func listenCommand(ctx context.Context, cfg config, getenv func(string) string, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("listen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	forward := fs.String("forward-to", "", "URL to post each event to")
	key := fs.String("api-key", "", "API key with receipts:read (default: the dev merchant's)")
	base := fs.String("base-url", cfg.PublicBaseURL, "the service's base URL")
	secret := fs.String("secret", "", "the whsec_ secret to sign with (default: a new one, printed)")
	if err := fs.Parse(args); err != nil {
		return badUsage(err, listenUsage)
	}
	if *forward == "" || fs.NArg() > 0 {
		return badUsage("listen needs --forward-to URL and takes no arguments", listenUsage)
	}
	for _, f := range []struct{ name, value string }{{"--forward-to", *forward}, {"--base-url", *base}} {
		if err := httpURLFlag(f.name, f.value); err != nil {
			return badUsage(err, listenUsage)
		}
	}
	if *key == "" {
		*key = readDevchainEnv(filepath.Join(devDataDir(getenv), devMerchantEnvFile))["PAYLEDGER_API_KEY"]
		if *key == "" {
			return errors.New("no --api-key, and no dev merchant key kept (run payledger dev merchant first)")
		}
	}
	if *base == "" {
		*base = "http://localhost:8080"
	}
	if *secret == "" {
		s, err := webhooks.NewSecret()
		if err != nil {
			return err
		}
		*secret = s
	}
	if _, err := webhooks.StandardSignature(*secret, "msg_check", 0, nil); err != nil {
		return fmt.Errorf("--secret: %w", err)
	}
	l := &listener{base: strings.TrimRight(*base, "/"), key: *key, forward: *forward, secret: *secret, out: stdout, retry: time.Second,
		stream: &http.Client{CheckRedirect: keepKeyHome}, post: forwardClient()}
	fmt.Fprintf(stdout, "Forwarding events to %s, signed with secret %s\n", l.forward, l.secret)
	return l.run(ctx)
}

// forwardClient posts the events to the receiver as the service's dispatcher does: within its
// timeout, and following no redirect (the receiver's 3xx is its answer, printed). Followed, a 301
// or 302 turned the POST into a GET without the body, whose 200 was printed as the event's answer
// and the event passed as handled: the handler never received it.
func forwardClient() *http.Client {
	return &http.Client{Timeout: webhooks.DefaultTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// keepKeyHome is the stream client's redirect rule: the API key goes with every request, and
// net/http keeps a header of its own naming (Ocp-Apim-Subscription-Key) on a redirect to any
// host, so a redirect is followed only on the same host and never from https to http; any other
// refuses the stream (listen exits saying where the redirect led).
func keepKeyHome(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if req.URL.Host != first.Host || (first.Scheme == "https" && req.URL.Scheme != "https") {
		return fmt.Errorf("%w: --base-url redirected to %s://%s; the API key is sent only to --base-url (use that address if it is the service)",
			errRefused, req.URL.Scheme, req.URL.Host)
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// httpURLFlag checks a URL flag: empty (its default applies), or an absolute http(s) URL with a
// host. A bare host and port ("localhost:3000/webhooks", as other tools' forwarders take it)
// parses as a URL of scheme "localhost": every forward, or every connection to the stream,
// failed, and listen retried it each second for ever instead of saying what was wrong.
func httpURLFlag(name, v string) error {
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s must be an http(s) URL such as http://localhost:3000/webhooks, not %q", name, v)
	}
	return nil
}

// run reads the stream, reconnecting after the last event received, until ctx ends.
func (l *listener) run(ctx context.Context) error {
	for ctx.Err() == nil {
		err := l.readStream(ctx)
		if ctx.Err() != nil {
			break
		}
		if errors.Is(err, errRefused) {
			return err
		}
		wait := l.retry
		var later *retryLater
		if errors.As(err, &later) {
			wait = max(wait, later.after)
			fmt.Fprintf(l.out, "%v; trying again in %s\n", err, wait.Round(time.Second))
		} else if errors.Is(err, errUnknownID) {
			fmt.Fprintf(l.out, "%v; events recorded meanwhile were not forwarded; starting again with new events\n", err)
		} else if errors.Is(err, errNoAnswer) {
			fmt.Fprintf(l.out, "the receiver did not answer (%v); resuming after event %q\n", err, l.lastID)
		} else {
			fmt.Fprintf(l.out, "stream dropped (%v); resuming after event %q\n", err, l.lastID)
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	return nil
}

// retryLater is the service's 429: the stream is refused until after (its Retry-After, or the
// envelope's resetAt). Reconnecting each second, listen printed "stream answered 429" with no
// reason (too many streams open for the merchant, the key's request limit) and spent the key's
// requests while it was limited.
type retryLater struct {
	after   time.Duration
	message string
}

func (e *retryLater) Error() string {
	return "the service refused the stream for now (429 " + e.message + ")"
}

// maxRetryLater bounds the wait a 429 asks for.
const maxRetryLater = 5 * time.Minute

// tooMany reads a 429 answer: its message and when to try again.
func tooMany(resp *http.Response, now time.Time) *retryLater {
	var env struct {
		Message string `json:"message"`
		ResetAt int64  `json:"resetAt"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	_ = json.Unmarshal(b, &env)
	e := &retryLater{message: cmp.Or(env.Message, "rate_limited")}
	if s, err := strconv.ParseInt(strings.TrimSpace(resp.Header.Get("Retry-After")), 10, 64); err == nil && s > 0 {
		e.after = time.Duration(min(s, int64(maxRetryLater/time.Second))) * time.Second
	} else if env.ResetAt > 0 {
		e.after = min(time.UnixMilli(env.ResetAt).Sub(now), maxRetryLater)
	}
	return e
}

var (
	errRefused  = errors.New("the service refused the stream")
	errNoAnswer = errors.New("no answer from the receiver")
	errQuiet    = errors.New("the stream sent nothing, not even its keep-alive")
	// errUnknownID: the service refused the event id to resume after (a reset or restored log).
	errUnknownID = errors.New("the service's event log does not have the last event received")
)

// streamQuiet is how long a stream may send nothing before listen drops it and resumes: three of
// the service's keep-alive comments (every 15 s). A connection a NAT or proxy dropped without a
// word, or a stuck proxy, is otherwise read for ever.
const streamQuiet = 45 * time.Second

// readStream reads one connection of the stream and forwards its events. The connection is
// dropped (errQuiet) when it sends nothing for the quiet time; forwarding does not count.
func (l *listener) readStream(ctx context.Context) error {
	quiet := cmp.Or(l.quiet, streamQuiet)
	streamCtx, drop := context.WithCancelCause(ctx)
	defer drop(nil)
	silent := time.AfterFunc(quiet, func() { drop(errQuiet) })
	defer silent.Stop()
	err := l.readEvents(ctx, streamCtx, func() { silent.Reset(quiet) })
	if errors.Is(err, errRefused) || errors.Is(err, errNoAnswer) {
		return err
	}
	if cause := context.Cause(streamCtx); errors.Is(cause, errQuiet) && ctx.Err() == nil {
		return fmt.Errorf("%w for %s", errQuiet, quiet)
	}
	return err
}

// readEvents reads the stream on streamCtx and forwards its events on ctx (a forward is not cut
// short by the stream's drop), calling heard at every line read.
func (l *listener) readEvents(ctx, streamCtx context.Context, heard func()) error {
	req, err := http.NewRequestWithContext(streamCtx, http.MethodGet, l.base+"/api/webhooks/stream", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Ocp-Apim-Subscription-Key", l.key)
	req.Header.Set("Accept", "text/event-stream")
	if l.lastID != "" {
		req.Header.Set("Last-Event-ID", l.lastID)
	}
	resp, err := l.stream.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := l.streamAnswered(resp); err != nil {
		return err
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var id, data string
	for sc.Scan() {
		heard()
		line := sc.Text()
		switch {
		case line == "" && data == "":
			// An id with no data is the stream's position, no event: the stream says where it
			// starts, so that a connection dropped before any event resumes there. Resumed
			// without Last-Event-ID, the stream started again from the events recorded after the
			// reconnection, and those recorded in between (the retry's second, the connection)
			// were never forwarded: at every stream's end (10 minutes) with no event yet.
			if id != "" {
				l.lastID = id
			}
			id = ""
		case line == "":
			if err := l.forwardEvent(ctx, data); err != nil {
				// The receiver is down: the stream is read again from this event once it answers
				// (a first event read without Last-Event-ID: from the position before it).
				if n, perr := strconv.ParseInt(id, 10, 64); l.lastID == "" && perr == nil && n > 0 {
					l.lastID = strconv.FormatInt(n-1, 10)
				}
				return err
			}
			if id != "" {
				l.lastID = id // only once the receiver answered
			}
			id, data = "", ""
		case strings.HasPrefix(line, "id:"):
			id = eventID(line[3:])
		case strings.HasPrefix(line, "data:"):
			data += strings.TrimPrefix(line[5:], " ")
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return io.ErrUnexpectedEOF
}

// streamAnswered is nil when the stream's answer is the stream, else the reason it is not.
func (l *listener) streamAnswered(resp *http.Response) error {
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("%w: %d %s", errRefused, resp.StatusCode, bytes.TrimSpace(b))
	}
	if resp.StatusCode == http.StatusBadRequest && l.lastID != "" {
		// The service refuses the id to resume after: its log was reset or restored and never sent
		// it. Resumed after it, nothing of the new log would come until it passed the id; the
		// stream starts again with the events from now on.
		gone := l.lastID
		l.lastID = ""
		return fmt.Errorf("%w: %q", errUnknownID, gone)
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return tooMany(resp, time.Now())
	}
	if lasting(resp.StatusCode) {
		// The same request gets the same answer: a 404 (a --base-url with a path, or no payledger
		// there) was retried each second for ever, "stream answered 404", and listen never exited.
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("%w: %s answered %d %s; there is no event stream there for this key (is --base-url the service's address, without a path?)",
			errRefused, l.base+"/api/webhooks/stream", resp.StatusCode, bytes.TrimSpace(b))
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("stream answered %d", resp.StatusCode)
	}
	// Only an event stream is read: any other 200 (a web app's page for every path, at a wrong
	// --base-url) was read as one, each of its data: lines forwarded signed with the secret, and
	// its end taken for a dropped stream, again each second.
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "text/event-stream" {
		return fmt.Errorf("%s answered %q, not an event stream (is --base-url the service?)", l.base+"/api/webhooks/stream", resp.Header.Get("Content-Type"))
	}
	return nil
}

// lasting reports whether a stream's 4xx answer is one that asking again cannot change (every
// 4xx but 408 Request Timeout and 429, which streamAnswered reads before).
func lasting(status int) bool {
	return status/100 == 4 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests
}

// eventID is an id: line's value when it is one the stream can resume after (the service's ids
// are positions: decimal integers), else "" (no id: the last one stays). Any other text became
// the next connection's Last-Event-ID, which the service refuses (400) or, with a control
// character, the HTTP client cannot send: listen then reconnected each second for ever,
// forwarding nothing.
func eventID(v string) string {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseUint(v, 10, 63); err != nil || strconv.FormatUint(n, 10) != v {
		return ""
	}
	return v
}

// forwardEvent posts one streamed event to the receiver, signed, and prints the outcome. It
// returns errNoAnswer when the receiver gave no answer (down, timed out): the event is to be
// forwarded again. Any answer, 2xx or not, is the receiver's: the event was handled.
func (l *listener) forwardEvent(ctx context.Context, data string) error {
	var ev struct {
		WebhookID string          `json:"webhookId"`
		Type      string          `json:"type"`
		Body      json.RawMessage `json:"body"`
	}
	now := time.Now()
	if err := json.Unmarshal([]byte(data), &ev); err != nil || ev.WebhookID == "" || len(ev.Body) == 0 {
		fmt.Fprintf(l.out, "%s  unreadable event skipped\n", now.Format(time.TimeOnly))
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.forward, bytes.NewReader(ev.Body))
	if err == nil {
		err = webhooks.SetStandardHeaders(req.Header, l.secret, ev.WebhookID, now, ev.Body)
	}
	if err != nil { // the request cannot be made: retrying changes nothing
		fmt.Fprintf(l.out, "%s  %-28s %s  -> error: %v\n", now.Format(time.TimeOnly), ev.Type, ev.WebhookID, err)
		return nil
	}
	resp, err := l.post.Do(req)
	if err != nil {
		fmt.Fprintf(l.out, "%s  %-28s %s  -> error: %v\n", now.Format(time.TimeOnly), ev.Type, ev.WebhookID, err)
		return fmt.Errorf("%w: %v", errNoAnswer, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	fmt.Fprintf(l.out, "%s  %-28s %s  -> %d\n", now.Format(time.TimeOnly), ev.Type, ev.WebhookID, resp.StatusCode)
	return nil
}
