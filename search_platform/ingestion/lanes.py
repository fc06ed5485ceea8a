"""Per-tenant lanes in front of the shared ingest queue, so one tenant's large job cannot hold the workers.

A job's batches wait in their tenant's lane (a Redis list); at most `limit` batches of one tenant are in the
broker's queue or running at once (a sorted set of in-flight batches, scored by when they were sent). Each batch
that settles frees its slot and sends the lane's next batch, so a small job of tenant A waits behind at most
`limit` batches of tenant B, never behind all of B's job. A slot whose batch never settles (its sender died
between taking and sending it) is reclaimed after `stale_after_s`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from redis import Redis

from search_platform.domain.ids import scoped

Enqueue = Callable[[str, int], None]

# KEYS[1]: the lane, KEYS[2]: its in-flight set; ARGV: limit, now, stale-before, ttl. Returns the batches to send.
PUMP_LUA = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
local taken = {}
while redis.call('ZCARD', KEYS[2]) < tonumber(ARGV[1]) do
  local ref = redis.call('LPOP', KEYS[1])
  if not ref then break end
  redis.call('ZADD', KEYS[2], ARGV[2], ref)
  table.insert(taken, ref)
end
redis.call('EXPIRE', KEYS[2], ARGV[4])
return taken
"""


def _ref(job_id: str, number: int) -> str:
    return f"{job_id}:{number}"


class TenantLanes:
    """Admits at most `limit` in-flight batches per tenant to the queue; the rest wait in the tenant's lane."""

    def __init__(self, redis: Redis[bytes], *, limit: int, stale_after_s: float, ttl_s: int,
                 prefix: str = "sp:lane") -> None:
        self._redis = redis
        self._limit = limit
        self._stale_after_s = stale_after_s
        self._ttl_s = ttl_s
        self._prefix = prefix
        self._pump = redis.register_script(PUMP_LUA)

    def _keys(self, tenant: str | None) -> list[str]:
        lane = f"{self._prefix}:{scoped(tenant)}"
        return [lane, f"{lane}:inflight"]

    def add(self, tenant: str | None, job_id: str, numbers: Sequence[int], enqueue: Enqueue) -> None:
        """Put a job's batches at the back of the tenant's lane, then send what the tenant's slots allow."""
        if not numbers:
            return
        lane, _ = self._keys(tenant)
        pipe = self._redis.pipeline()
        pipe.rpush(lane, *(_ref(job_id, n) for n in numbers))
        pipe.expire(lane, self._ttl_s)
        pipe.execute()
        self.pump(tenant, enqueue)

    def release(self, tenant: str | None, job_id: str, number: int, enqueue: Enqueue) -> None:
        """A batch settled (done or given up): free its slot and send the lane's next batches; idempotent."""
        self._redis.zrem(self._keys(tenant)[1], _ref(job_id, number))
        self.pump(tenant, enqueue)

    def pump(self, tenant: str | None, enqueue: Enqueue) -> int:
        """Send batches from the tenant's lane while it has free slots; returns how many were sent."""
        keys = self._keys(tenant)
        now = time.time()
        taken = self._pump(keys=keys, args=[self._limit, now, now - self._stale_after_s, self._ttl_s])
        refs = [raw.decode() if isinstance(raw, bytes) else str(raw) for raw in taken]
        for position, ref in enumerate(refs):
            job_id, _, number = ref.rpartition(":")
            try:
                enqueue(job_id, int(number))
            except Exception:  # not sent: back to the front of the lane, slots freed
                unsent = refs[position:]
                self._redis.zrem(keys[1], *unsent)
                self._redis.lpush(keys[0], *reversed(unsent))
                raise
        return len(refs)

    def waiting(self, tenant: str | None) -> int:
        """Batches of the tenant waiting in its lane (not yet sent)."""
        return int(self._redis.llen(self._keys(tenant)[0]))
