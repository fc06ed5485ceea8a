"""Per-key rate limiting: a sliding-window log in a Redis sorted set, checked and updated by one atomic script.

Every allowed request adds its timestamp; a request is allowed while fewer than `limit` timestamps fall in the last
`window_s` seconds. Time comes from the Redis server, so every API process shares one clock.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass

from redis import Redis

DEFAULT_PREFIX = "sp:ratelimit"
WINDOW_S = 60

# KEYS[1]: the key's log; ARGV: limit, window in ms, a unique member. Returns {allowed, remaining, retry_after_ms}.
SLIDING_WINDOW_LUA = """
local limit = tonumber(ARGV[1])
local window_ms = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window_ms)
local used = redis.call('ZCARD', KEYS[1])
if used < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window_ms)
  return {1, limit - used - 1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, 0, tonumber(oldest[2]) + window_ms - now}
"""


@dataclass(frozen=True, slots=True)
class RateLimitResult:
    """The verdict on one request: allowed or not, what is left, and when to retry."""

    allowed: bool
    limit: int
    remaining: int
    retry_after_s: int


def retry_after_seconds(retry_after_ms: int) -> int:
    """Whole seconds a client should wait (Retry-After is in seconds, so round up; at least 1)."""
    return max(1, math.ceil(retry_after_ms / 1000))


def to_result(raw: list[int], *, limit: int) -> RateLimitResult:
    """The script's reply -> a RateLimitResult."""
    allowed, remaining, retry_after_ms = (int(value) for value in raw)
    return RateLimitResult(allowed=bool(allowed), limit=limit, remaining=max(0, remaining),
                           retry_after_s=0 if allowed else retry_after_seconds(retry_after_ms))


class RateLimiter:
    """Admits at most `limit` requests per key in any `window_s` seconds."""

    def __init__(self, redis: Redis[bytes], *, window_s: int = WINDOW_S, prefix: str = DEFAULT_PREFIX) -> None:
        self._redis = redis
        self._window_ms = window_s * 1000
        self._prefix = prefix
        self._script = redis.register_script(SLIDING_WINDOW_LUA)

    def hit(self, key_id: str, *, limit: int) -> RateLimitResult:
        """Count one request for key_id unless it is over the limit."""
        raw = self._script(keys=[f"{self._prefix}:{key_id}"], args=[limit, self._window_ms, uuid.uuid4().hex])
        return to_result(raw, limit=limit)

    def reset(self, key_id: str) -> None:
        """Forget a key's recent requests."""
        self._redis.delete(f"{self._prefix}:{key_id}")
