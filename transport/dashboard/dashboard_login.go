package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/transport"
)

// The dashboard's sign-in: the wallet page (dash.js signs the API login's EIP-712 challenge),
// and in development a one-time link that `payledger dev merchant` prints.

const (
	devLinkTTL        = 5 * time.Minute
	devLinksPerWallet = 5      // outstanding links of one merchant: more are refused until some expire
	devLinkMemory     = 10_000 // outstanding links of the instance, only to bound its memory
)

// devLinks are the outstanding one-time sign-in links of this instance, by the SHA-256 of their
// token (development only: one instance, and a restart simply forgets them).
type devLinks struct {
	mu    sync.Mutex
	links map[string]devLink
}

type devLink struct {
	wallet  string
	expires time.Time
}

var errDevOnly = transport.NewError(http.StatusForbidden, "forbidden", "Sign-in links exist only in development")

func newDevLinks() *devLinks { return &devLinks{links: map[string]devLink{}} }

// issue returns a fresh token signing wallet in until now+devLinkTTL.
func (d *devLinks) issue(wallet string, now time.Time) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, l := range d.links {
		if !now.Before(l.expires) {
			delete(d.links, k)
		}
	}
	mine := 0
	var mineFreed, anyFreed time.Time // when the first of the wallet's links, and of all, expires
	for _, l := range d.links {
		if anyFreed.IsZero() || l.expires.Before(anyFreed) {
			anyFreed = l.expires
		}
		if l.wallet == wallet {
			mine++
			if mineFreed.IsZero() || l.expires.Before(mineFreed) {
				mineFreed = l.expires
			}
		}
	}
	// Per merchant (DESIGN 10): one merchant issuing links never blocks another's. A 429 says
	// when a link's place frees (the spec's resetAt, and Retry-After from it).
	if mine >= devLinksPerWallet || len(d.links) >= devLinkMemory {
		freed := anyFreed
		if mine >= devLinksPerWallet {
			freed = mineFreed
		}
		refused := transport.NewError(http.StatusTooManyRequests, "rate_limited", "Too many outstanding sign-in links; wait a few minutes")
		refused.Extra = map[string]any{"resetAt": freed.UnixMilli()}
		return "", refused
	}
	token := randomHex(32)
	d.links[hashHex(token)] = devLink{wallet: wallet, expires: now.Add(devLinkTTL)}
	return token, nil
}

// consume returns the wallet of token and forgets the token: a link works once, before it expires.
func (d *devLinks) consume(token string, now time.Time) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := hashHex(token)
	l, ok := d.links[key]
	delete(d.links, key)
	return l.wallet, ok && now.Before(l.expires)
}

// issueDevLink answers POST /api/auth/dev-link (session + CSRF): a one-time link that signs the
// caller's wallet in to the dashboard. Refused in production.
func (s *dash) issueDevLink(c echo.Context) error {
	if s.cfg.Production {
		return errDevOnly
	}
	sess, _ := transport.SessionFrom(c)
	token, err := s.devLinks.issue(sess.Wallet, s.now())
	if err != nil {
		return err
	}
	link := strings.TrimRight(s.cfg.PublicBaseURL, "/") + "/dashboard/login/link?token=" + token
	return c.JSON(http.StatusOK, map[string]any{"url": link, "expiresAt": s.now().Add(devLinkTTL).UnixMilli()})
}

// dashLogin is the sign-in page; next is where to go afterwards (a dashboard path only).
func (s *dash) dashLogin(c echo.Context) error {
	return s.ui.Render(c.Response(), http.StatusOK, "login", Frame{Title: "Sign in"},
		map[string]string{"Next": dashNext(c.QueryParam("next"))})
}

// dashNext keeps a return path on the dashboard, so the sign-in page cannot send anyone elsewhere.
func dashNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || next == "" || u.Scheme != "" || u.Host != "" || strings.Contains(next, "//") || strings.Contains(next, `\`) ||
		u.Path != path.Clean(u.Path) || (u.Path != "/dashboard" && !strings.HasPrefix(u.Path, "/dashboard/")) {
		return "/dashboard"
	}
	return next
}

// dashLinkPage shows the button that uses a sign-in link: the link itself (a GET, which mail
// and chat previews fetch) changes nothing.
func (s *dash) dashLinkPage(c echo.Context) error {
	data := map[string]string{"Token": c.QueryParam("token")}
	code := http.StatusOK
	if s.cfg.Production {
		data["Error"], code = "Sign-in links exist only in development.", http.StatusForbidden
	}
	return s.ui.Render(c.Response(), code, "link", Frame{Title: "Sign in"}, data)
}

// dashLinkSignIn uses a sign-in link (POST, form field token): the session starts and the
// dashboard opens; an unknown, used or expired token signs nobody in.
func (s *dash) dashLinkSignIn(c echo.Context) error {
	if s.cfg.Production {
		return s.ui.Render(c.Response(), http.StatusForbidden, "link", Frame{Title: "Sign in"},
			map[string]string{"Error": "Sign-in links exist only in development."})
	}
	if !sameOrigin(c.Request(), s.cfg.PublicBaseURL) {
		return s.ui.Render(c.Response(), http.StatusForbidden, "link", Frame{Title: "Sign in"},
			map[string]string{"Error": "This sign-in came from another site. Open the link again."})
	}
	token := c.FormValue("token")
	now := s.now()
	wallet, ok := "", false
	if len(token) == 64 {
		wallet, ok = s.devLinks.consume(token, now)
	}
	if !ok {
		return s.ui.Render(c.Response(), http.StatusBadRequest, "link", Frame{Title: "Sign in"},
			map[string]string{"Error": "This sign-in link is unknown, used or expired. Run `payledger dev merchant` again for a new one."})
	}
	if err := s.r.StartSession(c, wallet, now); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/dashboard")
}

// dashPage wraps a dashboard page: without a valid session it redirects (303) to the sign-in
// page, which comes back here afterwards.
func (s *dash) dashPage(h func(echo.Context, transport.Session, Frame) error) echo.HandlerFunc {
	return func(c echo.Context) error {
		// The forms send the CSRF token issued with this session (the script reads it here).
		sess, csrf, err := s.r.PageSession(c)
		if errors.Is(err, transport.ErrNoSession) {
			return c.Redirect(http.StatusSeeOther, "/dashboard/login?next="+url.QueryEscape(c.Request().URL.RequestURI()))
		}
		if err != nil {
			return err
		}
		return h(c, sess, Frame{Wallet: sess.Wallet, CSRF: csrf})
	}
}

// sameOrigin reports whether a form POST comes from this service's own pages: its Origin (or,
// without one, its Referer) names the host the request was sent to or the public base URL's.
// Signing in is a state change without a session, so the session's CSRF token cannot guard it
// (login CSRF: a page elsewhere signing the victim in to the attacker's account); browsers send
// Origin with every POST, so a POST with neither header, or with Origin "null", is refused.
func sameOrigin(r *http.Request, publicBaseURL string) bool {
	from := r.Header.Get("Origin")
	if from == "" {
		from = r.Header.Get("Referer")
	}
	u, err := url.Parse(from)
	if from == "" || from == "null" || err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	base, err := url.Parse(publicBaseURL)
	return err == nil && base.Host != "" && strings.EqualFold(u.Host, base.Host)
}
