package transport

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/readmodels"
)

// keyView is a key as listed: never the secret.
type keyView struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Scopes    []string  `json:"scopes"`
	Prefix    string    `json:"prefix"`
	Wallet    string    `json:"wallet"`
	CreatedAt int64     `json:"createdAt"`
	RevokedAt *int64    `json:"revokedAt"`
}

func viewKey(k readmodels.APIKey) keyView {
	v := keyView{ID: k.ID, Name: k.Name, Scopes: k.Scopes, Prefix: k.Prefix, Wallet: k.Wallet, CreatedAt: k.CreatedAt.UnixMilli()}
	if k.RevokedAt != nil {
		ms := k.RevokedAt.UnixMilli()
		v.RevokedAt = &ms
	}
	return v
}

// ValidateScopes checks a key's scopes: at least one, each from the spec's list, no repeats.
func ValidateScopes(scopes []string) error {
	if len(scopes) == 0 {
		return InvalidInput("scopes must name at least one of: " + strings.Join(Scopes, ", "))
	}
	for i, sc := range scopes {
		if !slices.Contains(Scopes, sc) {
			return InvalidInput("unknown scope " + sc + "; allowed: " + strings.Join(Scopes, ", "))
		}
		if slices.Contains(scopes[:i], sc) {
			return InvalidInput("scope " + sc + " is repeated")
		}
	}
	return nil
}

// maxKeyName is a key name's length in characters (the dashboard form's maxlength).
const maxKeyName = 100

// CheckKeyName is the rule of a key's name, shown in the dashboard's key list: at most
// maxKeyName characters, none of them control or bidirectional formatting characters (checkLine).
// `payledger keys create --name` follows it too.
func CheckKeyName(name string) error {
	if err := checkLine(name, maxKeyName); err != nil {
		return InvalidInput("name " + err.Error())
	}
	return nil
}

type createKeyRequest struct {
	Name   string   `json:"name"`
	Scopes []string `json:"scopes"`
}

// KeyCreatesPerHour is how many API keys a wallet may create an hour. MaxLiveKeys bounds the live
// keys only, and revoked keys stay (for the audit): a create/revoke loop at the per-wallet rate
// added a row each time without end, and each revocation of a live key empties every instance's
// key cache and wakes every open stream and export. A merchant keeps a key per integration and
// replaces one now and then, far below this.
const KeyCreatesPerHour = 100

func (s *Server) createKey(c echo.Context) error {
	var req createKeyRequest
	if err := DecodeJSON(c, &req); err != nil {
		return err
	}
	if err := CheckKeyName(req.Name); err != nil {
		return err
	}
	if err := ValidateScopes(req.Scopes); err != nil {
		return err
	}
	sess, _ := SessionFrom(c)
	// Counted once the body is valid: bad input costs nothing.
	if err := s.limitEvery(c, "keycreate", "keycreate:"+sess.Wallet, KeyCreatesPerHour, time.Hour); err != nil {
		return err
	}
	secret, key, err := s.keys.Create(c.Request().Context(), sess.Wallet, req.Name, req.Scopes)
	if errors.Is(err, readmodels.ErrTooManyKeys) {
		return InvalidInput(fmt.Sprintf("a merchant has at most %d live API keys; revoke one first", readmodels.MaxLiveKeys))
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"ok": true, "key": secret, "apiKey": viewKey(key)})
}

func (s *Server) listKeys(c echo.Context) error {
	sess, _ := SessionFrom(c)
	keys, err := s.keys.List(c.Request().Context(), sess.Wallet)
	if err != nil {
		return err
	}
	out := make([]keyView, len(keys))
	for i, k := range keys {
		out[i] = viewKey(k)
	}
	return c.JSON(http.StatusOK, map[string]any{"keys": out})
}

func (s *Server) revokeKey(c echo.Context) error {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return NewError(http.StatusNotFound, "not_found", "Key not found")
	}
	if err := noBody(c); err != nil {
		return err
	}
	sess, _ := SessionFrom(c)
	err = s.keys.Revoke(c.Request().Context(), sess.Wallet, id)
	if err == nil {
		s.known.revoked(id) // degraded mode must not accept it either
	}
	if errors.Is(err, readmodels.ErrNotFound) {
		return NewError(http.StatusNotFound, "not_found", "Key not found")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true})
}

func (s *Server) ping(c echo.Context) error {
	p, _ := PrincipalFrom(c)
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "wallet": p.Wallet, "scopes": p.Scopes, "time": s.now().UnixMilli()})
}
