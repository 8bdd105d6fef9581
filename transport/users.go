package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/gql"
)

// UserStore keeps profiles, presence and follows, and answers the user search and the GraphQL
// reads (DESIGN 8).
type UserStore interface {
	gql.Store
	UpdateProfile(ctx context.Context, wallet string, p readmodels.ProfilePatch, now time.Time) (readmodels.User, error)
	Heartbeat(ctx context.Context, wallet string, p readmodels.Presence, now time.Time) (readmodels.User, error)
	Follow(ctx context.Context, follower, followee string, now time.Time) error
	Unfollow(ctx context.Context, follower, followee string) (bool, error)
	Search(ctx context.Context, q readmodels.UserQuery) ([]readmodels.User, int, error)
	Live(ctx context.Context, now time.Time, limit int) ([]readmodels.User, error)
}

var _ UserStore = (*readmodels.Users)(nil)

// Limits of the user routes (spec, Limits; DESIGN 8).
const (
	userSearchDefaultLimit = 25
	userSearchMaxLimit     = 100
	userSearchDefaultScan  = 400
	userSearchMaxScan      = 1000
	userLiveMax            = 1000 // the spec sets no bound; a listing stays bounded
	userNameMax            = 64
	userTagsMax            = 20
	userTagMax             = 32
	userURLMax             = 2048
)

func (s *Server) userRoutes() {
	read := Policy{Access: Developer, Scope: "users:read"}
	s.handle(http.MethodGet, "/api/users/search", read, s.searchUsers)
	s.handle(http.MethodGet, "/api/users/live", read, s.liveUsers)
	s.handle(http.MethodPost, "/api/users/profile", Policy{Access: Admin}, s.postProfile)
	s.handle(http.MethodPost, "/api/users/presence", Policy{Access: Admin}, s.postPresence)
	s.handle(http.MethodPost, "/api/users/follow", Policy{Access: Admin}, s.follow)
	s.handle(http.MethodDelete, "/api/users/follow", Policy{Access: Admin}, s.unfollow)
}

// userView is the spec's User (search result). A struct, not a map: encoding/json then writes
// it from cached field encoders, without sorting keys or boxing values (the search's hot path).
type userView struct {
	Wallet        string   `json:"wallet"`
	DisplayName   string   `json:"displayName"`
	PfpURL        string   `json:"pfpUrl"`
	XP            int64    `json:"xp"`
	Live          bool     `json:"live"`
	LastSeen      int64    `json:"lastSeen"`
	LastHeartbeat int64    `json:"lastHeartbeat"`
	Domains       []string `json:"domains"`
	Platforms     []string `json:"platforms"`
	Languages     []string `json:"languages"`
}

// ownUserView is the signed-in wallet's own user: the search fields plus what only it sees.
type ownUserView struct {
	userView
	SpacePublic bool   `json:"spacePublic"`
	SpaceURL    string `json:"spaceUrl"`
	Platform    string `json:"platform"`
	LiveSince   int64  `json:"liveSince"`
}

// liveUserView is the spec's LiveUser.
type liveUserView struct {
	Wallet        string   `json:"wallet"`
	DisplayName   string   `json:"displayName"`
	PfpURL        string   `json:"pfpUrl"`
	SpaceURL      string   `json:"spaceUrl"`
	LiveSince     int64    `json:"liveSince"`
	LastHeartbeat int64    `json:"lastHeartbeat"`
	Languages     []string `json:"languages"`
	Domains       []string `json:"domains"`
	Platform      string   `json:"platform"`
}

// viewUser is u as others see it (its presence, lastSeen included, withheld unless public:
// User.Presence).
func viewUser(u readmodels.User, now time.Time) userView {
	live, heartbeat, seen := u.Presence(now)
	return userView{
		Wallet: u.Wallet, DisplayName: u.DisplayName, PfpURL: u.PfpURL, XP: u.XP,
		Live: live, LastSeen: unixMs(seen), LastHeartbeat: unixMs(heartbeat),
		Domains: tags(u.Domains), Platforms: tags(u.Platforms), Languages: tags(u.Languages),
	}
}

// viewOwnUser is u as u sees itself: its presence whether public or not.
func viewOwnUser(u readmodels.User, now time.Time) ownUserView {
	v := ownUserView{userView: viewUser(u, now), SpacePublic: u.SpacePublic, SpaceURL: u.SpaceURL,
		Platform: u.Platform, LiveSince: unixMs(u.LiveSince)}
	v.Live, v.LastHeartbeat, v.LastSeen = u.LiveAt(now), unixMs(u.LastHeartbeat), unixMs(u.LastSeen)
	return v
}

func viewLiveUser(u readmodels.User) liveUserView {
	return liveUserView{
		Wallet: u.Wallet, DisplayName: u.DisplayName, PfpURL: u.PfpURL, SpaceURL: u.SpaceURL,
		LiveSince: unixMs(u.LiveSince), LastHeartbeat: unixMs(u.LastHeartbeat),
		Languages: tags(u.Languages), Domains: tags(u.Domains), Platform: u.Platform,
	}
}

// unixMs is t in Unix ms, 0 when never.
func unixMs(t *time.Time) int64 {
	if t == nil {
		return 0
	}
	return t.UnixMilli()
}

func tags(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

func (s *Server) searchUsers(c echo.Context) error {
	q, err := userQuery(c, s.now())
	if err != nil {
		return err
	}
	users, total, err := s.users.Search(c.Request().Context(), q)
	if unavailable(err) {
		zerolog.Ctx(c.Request().Context()).Warn().Err(err).Msg("degraded mode: user search")
		return c.JSON(http.StatusOK, map[string]any{"users": []any{}, "degraded": true, "reason": "datastore_unavailable"})
	}
	if err != nil {
		return err
	}
	out := make([]userView, len(users))
	for i, u := range users {
		out[i] = viewUser(u, q.Now)
	}
	return wholeJSON(c, struct {
		Users []userView `json:"users"`
		Total int        `json:"total"`
	}{out, total})
}

func (s *Server) liveUsers(c echo.Context) error {
	now := s.now()
	users, err := s.users.Live(c.Request().Context(), now, userLiveMax)
	if unavailable(err) {
		zerolog.Ctx(c.Request().Context()).Warn().Err(err).Msg("degraded mode: live users")
		return c.JSON(http.StatusOK, map[string]any{"live": []any{}, "degraded": true, "reason": "datastore_unavailable"})
	}
	if err != nil {
		return err
	}
	out := make([]liveUserView, len(users))
	for i, u := range users {
		out[i] = viewLiveUser(u)
	}
	return wholeJSON(c, map[string]any{"live": out})
}

// wholeJSON answers 200 with v encoded in one piece, with its length: one write to the connection
// instead of the encoder's chunked writes of a body larger than the response buffer.
func wholeJSON(c echo.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentLength, strconv.Itoa(len(b)))
	return c.JSONBlob(http.StatusOK, b)
}

// userQuery reads the search parameters: domains, platforms and languages by a profile's rule for
// the same lists (checkTags), limit clamped to [1, 100] (default 25), scan to [limit, 1000]
// (default 400); minXp and maxXp must be numbers >= 0 (inclusive bounds).
func userQuery(c echo.Context, now time.Time) (readmodels.UserQuery, error) {
	q := readmodels.UserQuery{Q: strings.TrimSpace(c.QueryParam("q")), Now: now}
	if err := checkSearchText("q", q.Q); err != nil {
		return q, err
	}
	for _, l := range []struct {
		name string
		dst  *[]string
	}{{"domains", &q.Domains}, {"platforms", &q.Platforms}, {"languages", &q.Languages}} {
		v, err := checkTags(list(c.QueryParam(l.name)))
		if err != nil {
			return q, InvalidInput(l.name + " " + err.Error())
		}
		*l.dst = v
	}
	limit, err := clampedInt(c, "limit", userSearchDefaultLimit, 1, userSearchMaxLimit)
	if err != nil {
		return q, err
	}
	scan, err := clampedInt(c, "scan", userSearchDefaultScan, limit, userSearchMaxScan)
	if err != nil {
		return q, err
	}
	q.Limit, q.Scan = limit, scan
	if q.MinXP, err = xpBound(c, "minXp", math.Ceil); err != nil {
		return q, err
	}
	if q.MaxXP, err = xpBound(c, "maxXp", math.Floor); err != nil {
		return q, err
	}
	if v := c.QueryParam("live"); v != "" {
		live, err := strconv.ParseBool(v)
		if err != nil {
			return q, InvalidInput("live must be true or false")
		}
		q.Live = live
	}
	return q, nil
}

// clampedInt reads an integer parameter and clamps it to [lo, hi]; absent gives def (clamped too).
func clampedInt(c echo.Context, name string, def, lo, hi int) (int, error) {
	n := def
	if v := c.QueryParam(name); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) {
			return 0, InvalidInput(name + " must be a number")
		}
		f = math.Trunc(math.Max(math.Min(f, float64(hi)), float64(lo)))
		n = int(f)
	}
	return min(max(n, lo), hi), nil
}

// xpBound reads minXp or maxXp: a number >= 0, rounded inward to whole XP.
func xpBound(c echo.Context, name string, round func(float64) float64) (*int64, error) {
	v := c.QueryParam(name)
	if v == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > math.MaxInt64/2 {
		return nil, InvalidInput(name + " must be a number >= 0")
	}
	n := int64(round(f))
	return &n, nil
}

// list splits a comma-separated parameter, dropping empty entries.
func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (s *Server) postProfile(c echo.Context) error {
	var body map[string]json.RawMessage
	if err := DecodeJSON(c, &body); err != nil {
		return err
	}
	patch, err := profilePatch(body)
	if err != nil {
		return err
	}
	sess, _ := SessionFrom(c)
	now := s.now()
	u, err := s.users.UpdateProfile(c.Request().Context(), sess.Wallet, patch, now)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "user": viewOwnUser(u, now)})
}

// profilePatch validates each present field (DESIGN 8); the first bad one gives invalid_input.
// pfpUrl "" clears the picture (a picture set by mistake could otherwise only be replaced).
// Texts others are shown (displayName, the lists) refuse control and bidirectional formatting
// characters, as a shop's name does (checkLine).
func profilePatch(body map[string]json.RawMessage) (readmodels.ProfilePatch, error) {
	var p readmodels.ProfilePatch
	for field, raw := range body {
		bad := func(why string) error { return InvalidInput(field + " " + why) }
		switch field {
		case "displayName":
			var v string
			if json.Unmarshal(raw, &v) != nil || isNull(raw) {
				return p, bad("must be a string")
			}
			if n := utf8.RuneCountInString(v); strings.TrimSpace(v) == "" || n > userNameMax {
				return p, bad("must be 1 to 64 characters")
			}
			if err := checkLine(v, userNameMax); err != nil {
				return p, bad(err.Error())
			}
			p.DisplayName = &v
		case "pfpUrl":
			// "" removes the picture: the profile then shows none, as before one was set.
			var v string
			if json.Unmarshal(raw, &v) != nil || isNull(raw) || (v != "" && !httpsURL(v)) {
				return p, bad(`must be an https URL, or "" for no picture`)
			}
			p.PfpURL = &v
		case "domains", "platforms", "languages":
			v, err := tagList(raw)
			if err != nil {
				return p, bad(err.Error())
			}
			*map[string]**[]string{"domains": &p.Domains, "platforms": &p.Platforms, "languages": &p.Languages}[field] = &v
		case "spacePublic":
			var v bool
			if json.Unmarshal(raw, &v) != nil || isNull(raw) {
				return p, bad("must be a boolean")
			}
			p.SpacePublic = &v
		default:
			return p, InvalidInput("Invalid request parameters: unknown field " + strconv.Quote(field))
		}
	}
	return p, nil
}

// tagList reads an array of strings held by checkTags' rule.
func tagList(raw json.RawMessage) ([]string, error) {
	var v []string
	if json.Unmarshal(raw, &v) != nil || isNull(raw) {
		return nil, errors.New("must be an array of strings")
	}
	return checkTags(v)
}

// checkTags is the rule of a user's domains, platforms and languages: at most userTagsMax
// entries of 1 to userTagMax characters without commas (a search list is comma-separated) and
// without control or bidirectional formatting characters (checkLine: they are shown to every
// key holder's users), each trimmed. A search's lists follow it too: an entry no profile can
// hold matches no one, and each entry is compared with the list of every scanned user, so an
// unbounded list let one request cost seconds (300,000 entries: 8 s).
func checkTags(v []string) ([]string, error) {
	if len(v) > userTagsMax {
		return nil, fmt.Errorf("must hold at most %d strings", userTagsMax)
	}
	out := make([]string, 0, len(v))
	for _, t := range v {
		t = strings.TrimSpace(t)
		if t == "" || utf8.RuneCountInString(t) > userTagMax || strings.Contains(t, ",") {
			return nil, fmt.Errorf("must hold strings of 1 to %d characters without commas", userTagMax)
		}
		if checkLine(t, userTagMax) != nil {
			return nil, errors.New("must hold strings without control characters")
		}
		out = append(out, t)
	}
	return out, nil
}

func httpsURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && len(s) <= userURLMax && u.Scheme == "https" && u.Host != ""
}

func (s *Server) postPresence(c echo.Context) error {
	var body struct {
		Live     *bool   `json:"live"`
		SpaceURL *string `json:"spaceUrl"`
		Platform *string `json:"platform"`
	}
	if err := DecodeJSON(c, &body); err != nil {
		return err
	}
	if body.Live == nil {
		return InvalidInput("live is required (a boolean)")
	}
	if body.SpaceURL != nil && *body.SpaceURL != "" && (!httpURL(*body.SpaceURL) || len(*body.SpaceURL) > userURLMax) {
		return InvalidInput("spaceUrl must be an http(s) URL")
	}
	if body.Platform != nil {
		if err := checkLine(*body.Platform, userTagMax); err != nil {
			return InvalidInput("platform " + err.Error())
		}
	}
	sess, _ := SessionFrom(c)
	now := s.now()
	u, err := s.users.Heartbeat(c.Request().Context(), sess.Wallet,
		readmodels.Presence{Live: *body.Live, SpaceURL: body.SpaceURL, Platform: body.Platform}, now)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "user": viewOwnUser(u, now)})
}

// followee reads {wallet} and refuses the signed-in wallet itself.
func followee(c echo.Context) (string, string, error) {
	var body struct {
		Wallet string `json:"wallet"`
	}
	if err := DecodeJSON(c, &body); err != nil {
		return "", "", err
	}
	if !ValidWallet(body.Wallet) {
		return "", "", InvalidInput("wallet must be a 0x-prefixed 40-hex-character address")
	}
	sess, _ := SessionFrom(c)
	me, them := strings.ToLower(sess.Wallet), strings.ToLower(body.Wallet)
	if me == them {
		return "", "", InvalidInput("wallet cannot follow itself")
	}
	return me, them, nil
}

func (s *Server) follow(c echo.Context) error {
	me, them, err := followee(c)
	if err != nil {
		return err
	}
	if err := s.users.Follow(c.Request().Context(), me, them, s.now()); err != nil {
		if errors.Is(err, readmodels.ErrTooManyFollows) {
			return InvalidInput(err.Error())
		}
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "wallet": them, "following": true})
}

func (s *Server) unfollow(c echo.Context) error {
	me, them, err := followee(c)
	if err != nil {
		return err
	}
	if _, err := s.users.Unfollow(c.Request().Context(), me, them); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "wallet": them, "following": false})
}
