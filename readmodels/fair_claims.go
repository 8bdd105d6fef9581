package readmodels

// The fair claims of the senders' outboxes (receipt notifications, endpoint messages, subscription
// webhooks): claimFair and the receipt workers' share keys.

import (
	"maps"
	"strings"
)

// ShareKey is the key of the workers' share (ClaimShared) of a notification of merchant in
// state: the merchant for pending and retrying ones, the merchant and " marked" for marked ones
// (a wallet has no space). pickShared computes the same key (shareKeySQL).
func ShareKey(merchant, state string) string {
	if state == NoteMarked {
		return merchant + markedShare
	}
	return merchant
}

// ReceiverKey is the key of one receiver's share within its merchant's (ClaimShared): ShareKey,
// " @" and the origin of the notification's URL (scheme://host[:port], as written: a merchant's
// URLs that differ only in path or query, one per order, go to the same receiver).
// pickShared computes the same key (receiverKeySQL).
func ReceiverKey(merchant, state, url string) string {
	return ShareKey(merchant, state) + receiverShare + urlOrigin(url)
}

// ShareKeys are the keys a notification counts against in flight: ShareKey and ReceiverKey.
func ShareKeys(merchant, state, url string) []string {
	return []string{ShareKey(merchant, state), ReceiverKey(merchant, state, url)}
}

// urlOrigin is what the regular expression ^[^:/?#]*://[^/?#]* matches in url (receiverKeySQL's
// substring), or url itself when nothing does.
func urlOrigin(url string) string {
	i := strings.Index(url, "://")
	if i < 0 || strings.ContainsAny(url[:i], ":/?#") {
		return url
	}
	host := url[i+3:]
	if j := strings.IndexAny(host, "/?#"); j >= 0 {
		host = host[:j]
	}
	return url[:i+3] + host
}

const (
	markedShare   = " marked"
	receiverShare = " @"
)

// shareKeySQL is ShareKey in SQL, over webhook_notifications' columns.
const shareKeySQL = `(merchant_wallet || CASE WHEN state = 'marked' THEN '` + markedShare + `' ELSE '' END)`

// receiverKeySQL is ReceiverKey in SQL, over webhook_notifications' columns.
const receiverKeySQL = `(` + shareKeySQL + ` || '` + receiverShare + `' || coalesce(substring(url from '^[^:/?#]*://[^/?#]*'), url))`

// fairWindow is how many candidates a fair claim locks, times its limit.
const fairWindow = 4

// fairRounds bounds the statements of one fair claim.
const fairRounds = 4

// claimFair is a fair claim of up to limit rows, at most share of one key (merchant, endpoint)
// less busy, its rows in flight. Each round is one statement (claim): it locks (FOR UPDATE SKIP
// LOCKED) the oldest due rows of keys not already at their share, a window of fairWindow times
// its limit read from the due index, and takes each key's oldest within the window up to its
// room. Walking every key with due rows and picking without locks cost the whole backlog per
// claim (a third of a second with 20,000 merchants) and let concurrent claims pick the same rows,
// all but one then left with none. When a round comes up short because a key reached its share,
// the window may have held only that key's rows (one merchant's backlog, older than every other
// merchant's): the next round, without that key, reaches the others.
func claimFair[K comparable, T any](limit, share int, busy map[K]int, keyOf func(T) K,
	claim func(limit int, keys []K, counts []int32, capped []K) ([]T, error)) ([]T, error) {
	return claimFairKeys(limit, func(K) int { return share }, busy, func(t T) []K { return []K{keyOf(t)} }, claim)
}

// claimFairKeys is claimFair where a row counts against several keys (keysOf), each with its own
// share (shareOf): a key at its share is capped, and a row is claimed only while all its keys
// have room (claim checks that).
func claimFairKeys[K comparable, T any](limit int, shareOf func(K) int, busy map[K]int, keysOf func(T) []K,
	claim func(limit int, keys []K, counts []int32, capped []K) ([]T, error)) ([]T, error) {
	inFlight := maps.Clone(busy)
	if inFlight == nil {
		inFlight = map[K]int{}
	}
	var out []T
	for range fairRounds {
		keys, counts := make([]K, 0, len(inFlight)), make([]int32, 0, len(inFlight))
		capped := make([]K, 0) // not nil: NOT (x = ANY(NULL)) is never true
		for k, n := range inFlight {
			keys, counts = append(keys, k), append(counts, int32(n))
			if n >= shareOf(k) {
				capped = append(capped, k)
			}
		}
		got, err := claim(limit-len(out), keys, counts, capped)
		out = append(out, got...)
		if err != nil {
			return out, err // what was claimed is leased: the caller sends it
		}
		reached := false
		for _, g := range got {
			for _, k := range keysOf(g) {
				if inFlight[k]++; inFlight[k] == shareOf(k) {
					reached = true
				}
			}
		}
		if len(out) >= limit || !reached {
			break
		}
	}
	return out, nil
}
