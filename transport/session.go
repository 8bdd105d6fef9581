package transport

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/domain/address"
	"github.com/payledger/payledger/readmodels"
)

// Session cookie names (spec, Authentication point 5).
const (
	SessionCookie = "cb_auth_token"
	CSRFCookie    = "cb_csrf"
	CSRFHeader    = "x-csrf-token"
	sessionTTL    = 24 * time.Hour
	nonceTTL      = 5 * time.Minute
)

// sessionClockSkew is how far apart the instances' clocks may be for sessions. A token issued by
// an instance whose clock is ahead carries an issue time (iat) in the others' future: it is
// accepted up to sessionClockSkew ahead (without leeway another instance refused it for the
// skew). Expiry is not widened: a token is refused from its exp on, on the instance's clock.
// Logout-all does not depend on it for the tokens issued now, which carry the wallet's cutoff
// they were issued after (sessionClaims.Cutoff); for a token without one (issued before stop 70)
// it ends the sessions issued up to sessionClockSkew past its own clock, so those issued just
// before it by a faster instance are ended too.
const sessionClockSkew = 5 * time.Second

// NonceCookie holds the login nonce last issued to this client (HttpOnly, sent to /api/auth/
// only), which a login without a nonce tries first.
const NonceCookie = "cb_login_nonce"

// Roles.
const (
	RoleMerchant = "merchant"
	RoleAdmin    = "admin"
)

// ValidWallet reports whether s is a 0x-prefixed 40-hex-character address (address.Valid).
func ValidWallet(s string) bool { return address.Valid(s) }

// NonceStore keeps single-use login nonces.
type NonceStore interface {
	Issue(ctx context.Context, n readmodels.LoginNonce) error
	Unused(ctx context.Context, wallet, nonce string, now time.Time, max int) ([]readmodels.LoginNonce, error)
	Consume(ctx context.Context, wallet, nonce string, now time.Time) error
}

// SessionStore remembers the sessions ended before their token expired (logout, logout-all),
// in the datastore so that every instance refuses them.
type SessionStore interface {
	Revoke(ctx context.Context, tokenID string, expiresAt, now time.Time) error
	RevokeAll(ctx context.Context, wallet string, issuedThrough time.Time, ttl time.Duration) error
	Cutoff(ctx context.Context, wallet string) (time.Time, error)
	Revoked(ctx context.Context, tokenID, wallet string, issuedAt time.Time) (bool, error)
}

// loginCandidates is how many of a wallet's unused nonces a login without a nonce tries its
// signature against: nonces issued for the wallet by someone else then cannot shadow the one the
// wallet signed.
const loginCandidates = 10

// LoginSigner builds the EIP-712 login document and recovers who signed it.
type LoginSigner interface {
	Challenge(wallet, nonce string, issuedAt, expiresAt time.Time) any
	Signer(wallet, nonce string, issuedAt, expiresAt time.Time, signature string) (string, error)
}

// Session is the signed-in wallet of an admin request.
type Session struct {
	Wallet    string
	Roles     []string
	ExpiresAt time.Time
}

type sessionKey struct{}

// SessionFrom returns the admin session of the request, set by the admin middleware.
func SessionFrom(c echo.Context) (Session, bool) {
	s, ok := c.Request().Context().Value(sessionKey{}).(Session)
	return s, ok
}

type sessionClaims struct {
	Roles []string `json:"roles"`
	// CSRF is the SHA-256 of the cb_csrf value issued with this token, which binds the header
	// to this session: a cookie planted by another site cannot match it.
	CSRF string `json:"csrf"`
	// Cutoff is the wallet's logout-all cutoff (readmodels.Sessions.Cutoff, Unix microseconds)
	// read as the session was issued: the session is ended exactly by the logout-alls after it,
	// in the database's order. By clocks (iat against a cutoff 5 s ahead) a sign-in up to ~10 s
	// after a logout-all fell under it and was answered 429. Absent from tokens issued before
	// stop 70, which keep the iat rule.
	Cutoff *int64 `json:"cutoff,omitempty"`
	jwt.RegisteredClaims
}

var (
	errSession = NewError(http.StatusUnauthorized, "unauthorized", "JWT authentication failed")
	errCSRF    = NewError(http.StatusForbidden, "forbidden", "Missing or invalid CSRF token")
	errRole    = NewError(http.StatusForbidden, "forbidden", "Insufficient scope or not allowed")
	errLogin   = NewError(http.StatusUnauthorized, "unauthorized", "Login failed: signature, wallet or nonce invalid")
)

func (s *Server) rolesOf(wallet string) []string {
	roles := []string{RoleMerchant}
	if slices.Contains(s.cfg.AdminWallets, strings.ToLower(wallet)) {
		roles = append(roles, RoleAdmin)
	}
	return roles
}

// admin checks the session cookie, the CSRF header on state-changing requests and the role, then
// applies the per-wallet limit.
func (s *Server) admin(role string, changesState bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			sess, claims, err := s.parseSession(c)
			if err != nil {
				return err
			}
			if changesState {
				header := c.Request().Header.Get(CSRFHeader)
				cookie, _ := c.Cookie(CSRFCookie)
				if header == "" || cookie == nil || !equalSecret(header, cookie.Value) || !equalSecret(hashHex(header), claims.CSRF) {
					return errCSRF
				}
			}
			if role != "" && !slices.Contains(sess.Roles, role) {
				return errRole
			}
			if err := s.limit(c, "wallet:"+sess.Wallet, s.cfg.KeyLimitPerMinute); err != nil {
				return err
			}
			c.SetRequest(c.Request().WithContext(context.WithValue(c.Request().Context(), sessionKey{}, sess)))
			return next(c)
		}
	}
}

func (s *Server) parseSession(c echo.Context) (Session, *sessionClaims, error) {
	cookie, err := c.Cookie(SessionCookie)
	if err != nil || cookie.Value == "" {
		return Session{}, nil, errSession
	}
	claims := &sessionClaims{}
	_, err = jwt.ParseWithClaims(cookie.Value, claims, func(*jwt.Token) (any, error) { return []byte(s.cfg.JWTSecret), nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.now), jwt.WithIssuer(sessionIssuer), jwt.WithAudience(s.audience))
	if err != nil || !ValidWallet(claims.Subject) || claims.ID == "" || claims.IssuedAt == nil ||
		claims.IssuedAt.After(s.now().Add(sessionClockSkew)) { // issued in the future, past another instance's skew
		return Session{}, nil, errSession
	}
	// A logged-out token stays refused until it expires; the datastore down means no session can
	// be checked, so none is accepted (fail closed).
	issued := claims.IssuedAt.Time
	if claims.Cutoff != nil {
		issued = readmodels.AfterCutoff(time.UnixMicro(*claims.Cutoff))
	}
	revoked, err := s.sessions.Revoked(c.Request().Context(), claims.ID, claims.Subject, issued)
	if err != nil {
		return Session{}, nil, err
	}
	if revoked {
		return Session{}, nil, errSession
	}
	// Roles come from the current configuration, so removing a wallet from ADMIN_WALLETS takes
	// effect at once; the token only says who signed in.
	return Session{Wallet: claims.Subject, Roles: s.rolesOf(claims.Subject), ExpiresAt: claims.ExpiresAt.Time}, claims, nil
}

func hashHex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

type nonceRequest struct {
	Wallet string `json:"wallet"`
}

func (s *Server) issueNonce(c echo.Context) error {
	var req nonceRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	if !ValidWallet(req.Wallet) {
		return InvalidInput("wallet must be a 0x-prefixed 40-hex-character address")
	}
	wallet := strings.ToLower(req.Wallet)
	now := s.now().Truncate(time.Second)
	n := readmodels.LoginNonce{Nonce: randomHex(16), Wallet: wallet, IssuedAt: now, ExpiresAt: now.Add(nonceTTL)}
	if err := s.nonces.Issue(c.Request().Context(), n); err != nil {
		return err
	}
	c.SetCookie(&http.Cookie{Name: NonceCookie, Value: n.Nonce, Path: "/api/auth/", HttpOnly: true, Secure: s.cfg.Production,
		SameSite: http.SameSiteStrictMode, Expires: n.ExpiresAt})
	return c.JSON(http.StatusOK, map[string]any{
		"typedData": s.signer.Challenge(wallet, n.Nonce, n.IssuedAt, n.ExpiresAt),
		"nonce":     n.Nonce,
		"expiresAt": n.ExpiresAt.UnixMilli(),
	})
}

type loginRequest struct {
	Wallet    string `json:"wallet"`
	Signature string `json:"signature"`
	Nonce     string `json:"nonce"` // optional: the client's last issued nonce (NonceCookie), else one of the wallet's newest
}

// validNonce reports whether s has the form of an issued nonce (randomHex(16)).
func validNonce(s string) bool {
	if len(s) != 32 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

func (s *Server) login(c echo.Context) error {
	var req loginRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	if !ValidWallet(req.Wallet) || req.Signature == "" {
		return InvalidInput("wallet (0x + 40 hex) and signature are required")
	}
	wallet := strings.ToLower(req.Wallet)
	now := s.now()
	var nonce string
	var err error = errLogin
	if req.Nonce == "" {
		// The nonce this client was issued last (its cookie) first: nonces issued for the wallet
		// by anyone else since then cannot push it out of the newest candidates.
		if ck, cerr := c.Cookie(NonceCookie); cerr == nil && validNonce(ck.Value) {
			nonce, err = s.verifiedNonce(c.Request().Context(), wallet, ck.Value, req.Signature, now)
		}
	}
	if errors.Is(err, errLogin) {
		nonce, err = s.verifiedNonce(c.Request().Context(), wallet, req.Nonce, req.Signature, now)
	}
	if err != nil {
		return err
	}
	// Consumed only now that the signature over it verified: a request without the wallet's
	// signature cannot use up its nonce. A nonce is single-use: a second login with it fails.
	if err := s.nonces.Consume(c.Request().Context(), wallet, nonce, now); errors.Is(err, readmodels.ErrNotFound) {
		return errLogin
	} else if err != nil {
		return err
	}
	body, err := s.issueSession(c, wallet, now)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

// sessionIssuer is every session token's iss.
const sessionIssuer = "payledger"

// sessionAudience is the deployment a session token is for (its aud): the public base URL's host
// name. The signature alone would accept a token of another deployment that shares JWT_SECRET (a
// staging copy of production's settings); its host is another. The port is left out: a restart
// on another port (a development machine) is the same deployment, and cookies are per host.
func sessionAudience(publicBaseURL string) string {
	if u, err := url.Parse(publicBaseURL); err == nil && u.Hostname() != "" {
		return strings.ToLower(u.Hostname())
	}
	return sessionIssuer
}

// startSession signs wallet in from now: the session cookie and the CSRF cookie bound to it
// (the API login, and the dashboard's development sign-in link). It returns the login's answer.
func (s *Server) startSession(c echo.Context, wallet string, now time.Time) (map[string]any, error) {
	return s.issueSession(c, wallet, now)
}

// issueSession signs the session in, carrying the wallet's logout-all cutoff read now: a
// logout-all that commits before this read leaves it alone, one after ends it.
func (s *Server) issueSession(c echo.Context, wallet string, now time.Time) (map[string]any, error) {
	cut, err := s.sessions.Cutoff(c.Request().Context(), wallet)
	if err != nil {
		return nil, err
	}
	cutoff := cut.UnixMicro()
	csrf := randomHex(32)
	roles := s.rolesOf(wallet)
	exp := now.Add(sessionTTL)
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, sessionClaims{
		Roles: roles, CSRF: hashHex(csrf), Cutoff: &cutoff,
		RegisteredClaims: jwt.RegisteredClaims{Subject: wallet, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp), ID: randomHex(8),
			Issuer: sessionIssuer, Audience: jwt.ClaimStrings{s.audience}},
	}).SignedString([]byte(s.cfg.JWTSecret))
	if err != nil {
		return nil, err
	}
	s.setCookie(c, SessionCookie, token, true, exp)
	s.setCookie(c, CSRFCookie, csrf, false, exp)
	return map[string]any{"ok": true, "wallet": wallet, "roles": roles, "expiresAt": exp.UnixMilli(), "csrfToken": csrf}, nil
}

// verifiedNonce is the unused, unexpired nonce of wallet (the one named, else one of the newest)
// that signature signs, or errLogin.
func (s *Server) verifiedNonce(ctx context.Context, wallet, nonce, signature string, now time.Time) (string, error) {
	candidates, err := s.nonces.Unused(ctx, wallet, nonce, now, loginCandidates)
	if err != nil {
		return "", err
	}
	for _, n := range candidates {
		if signer, err := s.signer.Signer(wallet, n.Nonce, n.IssuedAt, n.ExpiresAt, signature); err == nil && signer == wallet {
			return n.Nonce, nil
		}
	}
	return "", errLogin
}

func (s *Server) setCookie(c echo.Context, name, value string, httpOnly bool, exp time.Time) {
	ck := &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: httpOnly, Secure: s.cfg.Production, SameSite: http.SameSiteLaxMode}
	if value == "" {
		ck.MaxAge = -1
	} else {
		ck.Expires = exp
	}
	c.SetCookie(ck)
}

// logout ends the presented session on the server (its token id is refused until it expires),
// then clears both cookies. A cookie that is not a valid session only gets cleared. A browser's
// request from another site's page changes nothing (errForeignOrigin).
func (s *Server) logout(c echo.Context) error {
	if foreignOrigin(c.Request(), s.cfg.PublicBaseURL) {
		return errForeignOrigin
	}
	if _, claims, err := s.parseSession(c); err == nil {
		if err := s.sessions.Revoke(c.Request().Context(), claims.ID, claims.ExpiresAt.Time, s.now()); err != nil {
			return err // not ended: the cookies stay, so the caller can retry
		}
	} else if !errors.Is(err, errSession) {
		return err
	}
	s.clearSession(c)
	return c.JSON(http.StatusOK, map[string]any{"ok": true})
}

var errForeignOrigin = NewError(http.StatusForbidden, "forbidden", "Insufficient scope or origin enforcement failed")

// foreignOrigin reports whether r was sent by a browser from another site's page: its Origin is
// "null" or names neither the host r was sent to nor the public base URL's. Logout takes no CSRF
// token (a client that lost it must still be able to end its session), so a page elsewhere could
// end a merchant's session (on a sibling host, whose POSTs carry the Lax cookie) or clear its
// cookies; browsers send Origin with every cross-origin POST. A request without Origin is not a
// browser's cross-site one.
func foreignOrigin(r *http.Request, publicBaseURL string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return true
	}
	if strings.EqualFold(u.Host, r.Host) {
		return false
	}
	base, err := url.Parse(publicBaseURL)
	return err != nil || base.Host == "" || !strings.EqualFold(u.Host, base.Host)
}

// logoutAll ends every session of the signed-in wallet issued up to now, on every device (a
// compromised session's remedy), and clears this caller's cookies. Sessions that carry their
// cutoff are ended because the cutoff moves past the one they read (RevokeAll). For those that
// do not, up to now on every instance's clock: the cutoff is sessionClockSkew past this one's, or
// a session issued just before on an instance whose clock runs ahead (its iat past this clock's
// now) outlived the logout.
func (s *Server) logoutAll(c echo.Context) error {
	sess, _ := SessionFrom(c)
	if err := s.sessions.RevokeAll(c.Request().Context(), sess.Wallet, s.now().Add(sessionClockSkew), sessionTTL); err != nil {
		return err
	}
	s.clearSession(c)
	return c.JSON(http.StatusOK, map[string]any{"ok": true})
}

func (s *Server) clearSession(c echo.Context) {
	s.setCookie(c, SessionCookie, "", true, time.Time{})
	s.setCookie(c, CSRFCookie, "", false, time.Time{})
}

func (s *Server) me(c echo.Context) error {
	sess, _ := SessionFrom(c)
	return c.JSON(http.StatusOK, map[string]any{"wallet": sess.Wallet, "roles": sess.Roles, "expiresAt": sess.ExpiresAt.UnixMilli()})
}
