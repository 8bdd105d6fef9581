// Package readmodels holds the PostgreSQL tables and queries behind the read endpoints and the
// plain CRUD stores (keys, nonces, inventory, configuration).
package readmodels

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/internal/cache"
)

// ErrNotFound is returned when a row does not exist or belongs to someone else.
var ErrNotFound = errors.New("not found")

// KeyPrefix starts every subscription key, so leaked keys are easy to recognise.
const KeyPrefix = "plk_"

// APIKey is a subscription key's record; the secret itself is never stored.
type APIKey struct {
	ID        uuid.UUID  `json:"id"`
	Wallet    string     `json:"wallet"`
	Name      string     `json:"name"`
	Scopes    []string   `json:"scopes"`
	Prefix    string     `json:"prefix"`
	CreatedAt time.Time  `json:"-"`
	RevokedAt *time.Time `json:"-"`
}

// Keys stores subscription keys.
type Keys struct {
	pool  *pgxpool.Pool
	cache *cache.Cache[cachedKey]
	now   func() time.Time // the age of cached keys is read on it (time.Now; tests move it)
}

// cachedKey is a key as the datastore confirmed it, and when.
type cachedKey struct {
	key APIKey
	at  time.Time
}

// keyCacheMaxAge is how long a cached key is trusted before the datastore confirms it again.
// The revocation NOTIFY empties the cache at once, but a listener can be connected and hear
// nothing (PgBouncer in transaction mode, which docs/deploy.md warns against: LISTEN succeeds and
// no NOTIFY comes back; a half-open connection until TCP keepalive notices, about a minute):
// without a bound a key revoked through another instance stayed valid here until a restart. One
// lookup per key every keyCacheMaxAge costs the datastore nothing noticeable.
const keyCacheMaxAge = 5 * time.Second

// NewKeys returns the key store on pool. Authentication reads the database every time until the
// cache (Cache) is registered with a running Invalidations listener, and at least every
// keyCacheMaxAge per key after that.
func NewKeys(pool *pgxpool.Pool) *Keys {
	return &Keys{pool: pool, cache: cache.NewCache[cachedKey](100_000, false), now: time.Now}
}

// RevokedChannel is the LISTEN/NOTIFY channel that announces key revocations to every instance.
const RevokedChannel = "payledger_keys_revoked"

// RevokedKeyChannel announces the id of each key revoked (the payload), so that every instance
// forgets that key where it keeps keys by id (the keys degraded mode may accept).
const RevokedKeyChannel = "payledger_key_revoked"

// Cache is the cache of authenticated keys, to register on RevokedChannel: a revocation in any
// instance empties it in every instance.
func (k *Keys) Cache() *cache.Cache[cachedKey] { return k.cache }

func hashKey(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// MaxLiveKeys is how many keys a merchant may hold unrevoked at once: one per integration is
// plenty, and each is a row every listing of the merchant's keys shows.
const MaxLiveKeys = 50

// ErrTooManyKeys: the merchant holds MaxLiveKeys live keys already.
var ErrTooManyKeys = errors.New("too many live API keys")

// Create makes a key for wallet and returns the secret (shown once) and its record. Errors:
// ErrTooManyKeys.
func (k *Keys) Create(ctx context.Context, wallet, name string, scopes []string) (string, APIKey, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", APIKey{}, fmt.Errorf("generate key: %w", err)
	}
	secret := KeyPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	key := APIKey{ID: uuid.New(), Wallet: wallet, Name: name, Scopes: scopes, Prefix: secret[:len(KeyPrefix)+6]}
	// The count and the insert run under a per-merchant lock held to commit, so concurrent
	// creates cannot each count the others' uncommitted keys as absent.
	created := false
	err := pgx.BeginFunc(ctx, k.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('payledger api keys:' || $1::text, 0))`, wallet); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `INSERT INTO api_keys (id, wallet, name, scopes, key_hash, prefix) SELECT $1,$2,$3,$4,$5,$6
			WHERE (SELECT count(*) FROM api_keys WHERE wallet = $2 AND revoked_at IS NULL) < $7
			RETURNING created_at`, key.ID, wallet, name, scopes, hashKey(secret), key.Prefix, MaxLiveKeys).Scan(&key.CreatedAt)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		created = err == nil
		return err
	})
	if err != nil {
		return "", APIKey{}, fmt.Errorf("store key: %w", err)
	}
	if !created {
		return "", APIKey{}, ErrTooManyKeys
	}
	return secret, key, nil
}

// Authenticate returns the live key whose secret is given, or ErrNotFound.
func (k *Keys) Authenticate(ctx context.Context, secret string) (APIKey, error) {
	return k.AuthenticateWithin(ctx, secret, 0)
}

// AuthenticateWithin is Authenticate with the datastore's part bounded by wait (none when wait is
// 0 or less), as if ctx had that deadline: a key the cache answers arms no timer, which every
// request that presents a key would otherwise arm and disarm.
func (k *Keys) AuthenticateWithin(ctx context.Context, secret string, wait time.Duration) (APIKey, error) {
	want := hashKey(secret)
	cached, gen, ok := k.cache.Get(string(want))
	if ok && k.now().Sub(cached.at) < keyCacheMaxAge {
		return cached.key, nil
	}
	if wait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	at := k.now() // before the read: the entry's age never understates how old its answer is
	lookup := ctx
	if ok {
		var cancel context.CancelFunc
		lookup, cancel = context.WithTimeout(ctx, keyRecheckWait)
		defer cancel()
	}
	key, err := k.authenticate(lookup, want)
	if err == nil {
		k.cache.Put(string(want), cachedKey{key: key, at: at}, gen)
		return key, nil
	}
	if ok && !errors.Is(err, ErrNotFound) && ctx.Err() == nil {
		// The datastore did not answer (a hung server keeps the listener's connection open): the
		// cache, still listening and not emptied since, vouches for the key as it did before the
		// bound, and is asked again after keyCacheMaxAge, so a hang holds up one request per key
		// for at most keyRecheckWait instead of every request until it ends.
		if _, now, still := k.cache.Get(string(want)); still && now == gen {
			k.cache.Put(string(want), cachedKey{key: cached.key, at: at}, gen)
			return cached.key, nil
		}
	}
	return key, err
}

// keyRecheckWait bounds the datastore's confirmation of a key the cache holds (keyCacheMaxAge).
const keyRecheckWait = time.Second

func (k *Keys) authenticate(ctx context.Context, want []byte) (APIKey, error) {
	var stored []byte
	key, err := k.scanOne(ctx, `WHERE key_hash = $1 AND revoked_at IS NULL`, &stored, want)
	if err != nil {
		return APIKey{}, err
	}
	// The index lookup already matched; compare again in constant time so that no code path
	// decides on a variable-time comparison of key material.
	if subtle.ConstantTimeCompare(stored, want) != 1 {
		return APIKey{}, ErrNotFound
	}
	return key, nil
}

// ByID returns the live key with id (a gateway subscription id), or ErrNotFound.
func (k *Keys) ByID(ctx context.Context, id uuid.UUID) (APIKey, error) {
	var stored []byte
	return k.scanOne(ctx, `WHERE id = $1 AND revoked_at IS NULL`, &stored, id)
}

func (k *Keys) scanOne(ctx context.Context, where string, hash *[]byte, arg any) (APIKey, error) {
	var key APIKey
	err := k.pool.QueryRow(ctx, `SELECT id, wallet, name, scopes, prefix, created_at, revoked_at, key_hash FROM api_keys `+where, arg).
		Scan(&key.ID, &key.Wallet, &key.Name, &key.Scopes, &key.Prefix, &key.CreatedAt, &key.RevokedAt, hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return APIKey{}, ErrNotFound
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("look up key: %w", err)
	}
	return key, nil
}

// MaxListedRevokedKeys is how many revoked keys a listing shows besides the live ones: the most
// recently revoked. A create/revoke loop at the per-wallet rate would otherwise grow every
// listing (and the dashboard's settings page) without bound; the rows stay, for the audit.
const MaxListedRevokedKeys = 50

// List returns wallet's live keys and its MaxListedRevokedKeys most recently revoked ones,
// oldest first: at most MaxLiveKeys + MaxListedRevokedKeys keys.
func (k *Keys) List(ctx context.Context, wallet string) ([]APIKey, error) {
	rows, err := k.pool.Query(ctx, `SELECT id, wallet, name, scopes, prefix, created_at, revoked_at FROM (
			SELECT * FROM api_keys WHERE wallet = $1 AND revoked_at IS NULL
			UNION ALL
			(SELECT * FROM api_keys WHERE wallet = $1 AND revoked_at IS NOT NULL ORDER BY revoked_at DESC, id DESC LIMIT $2)
		) k ORDER BY created_at, id`, wallet, MaxListedRevokedKeys)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (APIKey, error) {
		var key APIKey
		err := r.Scan(&key.ID, &key.Wallet, &key.Name, &key.Scopes, &key.Prefix, &key.CreatedAt, &key.RevokedAt)
		return key, err
	})
}

// Revoke revokes wallet's key id at once; another wallet's or an unknown key is ErrNotFound. A key
// revoked already stays revoked (from its first revocation) and is no error.
func (k *Keys) Revoke(ctx context.Context, wallet string, id uuid.UUID) error {
	// Only a key this call revokes is announced: each announcement empties every instance's key
	// cache and has every open stream read its credential again, and any signed-in wallet could
	// otherwise send them at its request limit by naming ids that are not its live keys. The
	// NOTIFYs are delivered at commit, to every instance (this one's included).
	var revoked, found bool
	err := k.pool.QueryRow(ctx, `WITH upd AS (
			UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND wallet = $2 AND revoked_at IS NULL RETURNING id),
		n AS (SELECT pg_notify('`+RevokedChannel+`', '') FROM upd),
		named AS (SELECT pg_notify('`+RevokedKeyChannel+`', id::text) FROM upd)
		SELECT (SELECT count(*) FROM n) + (SELECT count(*) FROM named) > 0,
			EXISTS (SELECT 1 FROM api_keys WHERE id = $1 AND wallet = $2)`, id, wallet).Scan(&revoked, &found)
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	if !found {
		return ErrNotFound
	}
	if revoked {
		k.cache.Forget() // this instance forgets at once, before the notification arrives
	}
	return nil
}
