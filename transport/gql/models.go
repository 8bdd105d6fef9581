package gql

import (
	"time"

	"github.com/payledger/payledger/readmodels"
)

// User is the schema's User: the search result's fields, fixed at the request's clock;
// followerCount and followingCount are its methods, answered from the request's count loader.
// Methods without a context, not resolvers: gqlgen then resolves them inline, in the user's own
// field loop, instead of one goroutine per count field (200 for a leaderboard of 100), each
// queued on the loader's lock while the first one loads.
type User struct {
	Wallet        string
	DisplayName   string
	PfpURL        string
	Xp            int64
	Live          bool
	LastSeen      int64
	LastHeartbeat int64
	Domains       []string
	Platforms     []string
	Languages     []string

	counts *countLoader
}

// FollowerCount is the schema's User.followerCount.
func (u User) FollowerCount() (int, error) {
	c, err := u.counts.load(u.Wallet)
	return c.Followers, err
}

// FollowingCount is the schema's User.followingCount.
func (u User) FollowingCount() (int, error) {
	c, err := u.counts.load(u.Wallet)
	return c.Following, err
}

// LiveUser is the spec's LiveUser with the full user.
type LiveUser struct {
	Wallet        string
	DisplayName   string
	PfpURL        string
	SpaceURL      string
	LiveSince     int64
	LastHeartbeat int64
	Languages     []string
	Domains       []string
	Platform      string
	User          User
}

// FollowEdge is one follow of a connection page.
type FollowEdge struct {
	Cursor     string
	Node       User
	FollowedAt int64
}

// FollowConnection is a page of follows; totalCount is resolved only when asked for.
type FollowConnection struct {
	Edges     []FollowEdge
	PageInfo  PageInfo
	wallet    string
	followers bool
}

// newUser is u at now; it announces u's wallet to the request's count loader.
func newUser(u readmodels.User, now time.Time, counts *countLoader) User {
	counts.expect(u.Wallet)
	live, heartbeat, seen := u.Presence(now) // withheld unless public
	return User{counts: counts, Wallet: u.Wallet, DisplayName: u.DisplayName, PfpURL: u.PfpURL, Xp: u.XP, Live: live,
		LastSeen: unixMs(seen), LastHeartbeat: unixMs(heartbeat),
		Domains: tags(u.Domains), Platforms: tags(u.Platforms), Languages: tags(u.Languages)}
}

func newLiveUser(u readmodels.User, now time.Time, counts *countLoader) LiveUser {
	return LiveUser{Wallet: u.Wallet, DisplayName: u.DisplayName, PfpURL: u.PfpURL, SpaceURL: u.SpaceURL,
		LiveSince: unixMs(u.LiveSince), LastHeartbeat: unixMs(u.LastHeartbeat),
		Languages: tags(u.Languages), Domains: tags(u.Domains), Platform: u.Platform, User: newUser(u, now, counts)}
}

// unixMs is t in Unix ms, 0 when never (as the REST routes answer).
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
