package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisPrefix is the prefix redis_rate puts before our keys: the pair script stores its buckets
// under the same names and in the same form (the theoretical arrival time in seconds since
// 2017-01-01, as redis_rate's GCRA), so a key counted by either is the same bucket.
const redisPrefix = "rate:payledger:rl:"

// pairScript counts one request against every key of KEYS (a /64, its /56 and its /48, and any
// bucket counted with them), KEYS[i] allowed
// ARGV[i+1] requests per ARGV[1] seconds with a burst of as many, in one step: the request is
// counted in every key or, when one has no room, in none. Two redis_rate calls, the /64's first,
// counted a request the /56 refused against its /64 (and a second instance could slip between
// them). It answers {index of the key that decides, allowed, remaining, retry after, reset after};
// the key that decides is the first without room when refused, else the one with the fewest left.
// go-redis runs it by EVALSHA, and sends it whole (EVAL) when the server does not know it.
var pairScript = redis.NewScript(`
redis.replicate_commands()
local t = redis.call("TIME")
local now = (t[1] - 1483228800) + (t[2] / 1000000)
local period = tonumber(ARGV[1])
local next_tat, left = {}, {}
for i = 1, #KEYS do
  local n = tonumber(ARGV[i + 1])
  local interval = period / n
  local tat = math.max(tonumber(redis.call("GET", KEYS[i]) or now), now)
  next_tat[i] = tat + interval
  local diff = now - (next_tat[i] - interval * n)
  if diff < 0 then
    return {i, 0, 0, tostring(-diff), tostring(tat - now)}
  end
  left[i] = diff / interval
end
local decides = 1
for i = 1, #KEYS do
  local reset_after = next_tat[i] - now
  if reset_after > 0 then
    redis.call("SET", KEYS[i], next_tat[i], "EX", math.ceil(reset_after))
  end
  if left[i] < left[decides] then
    decides = i
  end
end
return {decides, 1, left[decides], "-1", tostring(next_tat[decides] - now)}
`)

// allowBuckets counts one request in every bucket (at least two) in one atomic step
// (pairScript).
func (r *Redis) allowBuckets(ctx context.Context, period time.Duration, buckets []Bucket) (Result, error) {
	keys, args := make([]string, len(buckets)), make([]any, 1, len(buckets)+1)
	args[0] = period.Seconds()
	for i, b := range buckets {
		keys[i] = redisPrefix + b.Key
		args = append(args, b.Limit)
	}
	v, err := pairScript.Run(ctx, r.client, keys, args...).Slice()
	if err != nil {
		return Result{}, fmt.Errorf("redis rate limit: %w", err)
	}
	if len(v) != 5 {
		return Result{}, fmt.Errorf("redis rate limit: %d values answered, want 5", len(v))
	}
	decides, _ := v[0].(int64)
	allowed, _ := v[1].(int64)
	remaining, _ := v[2].(int64)
	retryAfter, err1 := seconds(v[3])
	resetAfter, err2 := seconds(v[4])
	if decides < 1 || int(decides) > len(buckets) || err1 != nil || err2 != nil {
		return Result{}, fmt.Errorf("redis rate limit: unexpected answer %v", v)
	}
	b, now := buckets[decides-1], r.now()
	out := Result{Allowed: allowed > 0, Limit: b.Limit, Remaining: int(remaining), ResetAt: now.Add(resetAfter), Key: b.Key}
	if !out.Allowed {
		out.RetryAt = now.Add(retryAfter)
	}
	return out, nil
}

// seconds is a duration the script answers as a decimal string of seconds.
func seconds(v any) (time.Duration, error) {
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("not a string: %v", v)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("parse seconds: %w", err)
	}
	return time.Duration(f * float64(time.Second)), nil
}
