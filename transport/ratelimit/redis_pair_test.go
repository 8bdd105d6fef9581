package ratelimit

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"time"
)

// randomKind is a limit kind of the test's own (lower-case letters, as kinds are): a shared Redis
// keeps other runs' keys.
func randomKind() string {
	return strings.Map(func(r rune) rune { return 'a' + r%26 }, rand.Text())
}

// TestRedisCountsARequestTheSlash56RefusesInNeitherBucket: Redis counted the /64 and the /56 in
// two calls, the /64 first, so a request the spent /56 refused had still used one of its /64's
// requests (stored under the /64's key). One script counts both now: a refused request stores
// nothing, and an allowed one is counted in both.
func TestRedisCountsARequestTheSlash56RefusesInNeitherBucket(t *testing.T) {
	r := testRedis(t)
	ctx, kind := context.Background(), randomKind()
	key := func(sub int) string { return fmt.Sprintf("%s:2001:db8:7:%x::/64", kind, sub) }
	client := func(sub int) []Bucket { return at(fmt.Sprintf("2001:db8:7:%x::1", sub)).Buckets(kind, 2) }
	for sub := range WiderMultiple { // spend the /56: WiderMultiple /64s at their limit of 2
		for i := range 2 {
			res, err := r.AllowAll(ctx, time.Minute, client(sub)...)
			if err != nil || !res.Allowed {
				t.Fatalf("/64 %d, request %d: %+v %v", sub, i, res, err)
			}
		}
	}
	for i := range 3 {
		res, err := r.AllowAll(ctx, time.Minute, client(0x42)...)
		if err != nil || res.Allowed || res.Limit != 2*WiderMultiple || res.RetryAt.IsZero() {
			t.Fatalf("a fifth /64, request %d: %+v %v; want refused by the /56's limit", i, res, err)
		}
	}
	n, err := r.client.Exists(ctx, redisPrefix+key(0x42)).Result()
	if err != nil || n != 0 {
		t.Fatalf("the refused /64's bucket is stored (%d, %v): the /56's refusal used its requests", n, err)
	}
	stored, err := r.client.Exists(ctx, redisPrefix+kind+":2001:db8:7::/64", redisPrefix+kind+":2001:db8:7::/56", redisPrefix+kind+":2001:db8:7::/48").Result()
	if err != nil || stored != 3 {
		t.Fatalf("%d of the allowed /64's, the /56's and the /48's buckets stored (%v), want all three", stored, err)
	}
}

// TestRedisPairReportsTheTighterLimit: an allowed request reports the bucket with the fewer
// requests left (as Memory does), and a /64 refused by its own limit reports the /64's.
func TestRedisPairReportsTheTighterLimit(t *testing.T) {
	r := testRedis(t)
	ctx, kind := context.Background(), randomKind()
	k := at("2001:db8:8:1::1").Buckets(kind, 3)
	want := []Result{{Allowed: true, Limit: 3, Remaining: 2}, {Allowed: true, Limit: 3, Remaining: 1},
		{Allowed: true, Limit: 3, Remaining: 0}, {Allowed: false, Limit: 3}}
	for i, w := range want {
		res, err := r.AllowAll(ctx, time.Minute, k...)
		if err != nil || res.Allowed != w.Allowed || res.Limit != w.Limit || res.Remaining != w.Remaining {
			t.Fatalf("request %d: %+v %v, want %+v", i, res, err, w)
		}
		if res.Allowed && (res.ResetAt.Before(time.Now()) || res.ResetAt.After(time.Now().Add(time.Minute+time.Second))) {
			t.Fatalf("request %d: reset at %v, want within the minute", i, res.ResetAt)
		}
	}
	// Another /64 of the /56 has its own 3; the /56 has 12-3 left, so the /64's are fewer.
	if res, err := r.AllowAll(ctx, time.Minute, at("2001:db8:8:2::1").Buckets(kind, 3)...); err != nil || !res.Allowed || res.Remaining != 2 || res.Limit != 3 {
		t.Fatalf("another /64: %+v %v", res, err)
	}
}

// TestRedisPairScriptIsSentAgainWhenTheServerForgotIt: after SCRIPT FLUSH (a restarted or failed
// over Redis) EVALSHA answers NOSCRIPT and the script is sent whole.
func TestRedisPairScriptIsSentAgainWhenTheServerForgotIt(t *testing.T) {
	r := testRedis(t)
	ctx, kind := context.Background(), randomKind()
	if err := r.client.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if res, err := r.AllowAll(ctx, time.Minute, at("2001:db8:9:1::1").Buckets(kind, 2)...); err != nil || !res.Allowed {
		t.Fatalf("after SCRIPT FLUSH: %+v %v", res, err)
	}
}
