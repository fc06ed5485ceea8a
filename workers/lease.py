"""A running batch keeps its delivery. Kombu's Redis transport gives a late-acked message to another worker once it
has sat unacknowledged for the visibility timeout, whether its task is still running or its worker is dead: a batch
that outlasts the timeout would run twice. While a task runs, a thread sets the message's time in the transport's
unacked index to now, several times per timeout, so only a batch whose worker died (and stopped renewing) expires.

The index is kombu's own bookkeeping (a sorted set of delivery tags scored by the time they were taken; its sweep
restores tags older than the timeout); its key is named in the transport options (ingestion/queue.py), so both
sides use one name. Renewal uses ZADD XX: a tag already acked or restored is never added back."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from redis import Redis, RedisError

from search_platform.ingestion.queue import UNACKED_INDEX_KEY

log = logging.getLogger(__name__)

RENEWALS_PER_TIMEOUT = 4  # a renewal delayed by a slow Redis answer still lands well before the timeout
STOP_WAIT_S = 5.0


def renew(redis: Redis[bytes], delivery_tag: str, *, now: Callable[[], float] = time.time,
          key: str = UNACKED_INDEX_KEY) -> bool:
    """Mark the delivery as taken now; False when the broker no longer holds it unacked (acked or restored)."""
    return bool(redis.zadd(key, {delivery_tag: now()}, xx=True, ch=True))


@contextmanager
def delivery_lease(redis: Redis[bytes], delivery_tag: str | None, *, visibility_timeout_s: float,
                   key: str = UNACKED_INDEX_KEY) -> Iterator[None]:
    """Renew the delivery's lease every visibility_timeout_s / RENEWALS_PER_TIMEOUT while the block runs. No tag (a
    task run eagerly, or not from a Redis broker) means nothing to renew. A failed renewal is logged and tried again
    at the next turn: a Redis that stays away past the timeout restores the batch, as without the lease."""
    if delivery_tag is None:
        yield
        return
    stop = threading.Event()
    every_s = visibility_timeout_s / RENEWALS_PER_TIMEOUT

    def keep() -> None:
        while not stop.wait(every_s):
            try:
                renew(redis, delivery_tag, key=key)
            except RedisError as exc:
                log.warning("could not renew the lease of delivery %s: %s", delivery_tag, exc)

    thread = threading.Thread(target=keep, name=f"lease-{delivery_tag}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(STOP_WAIT_S)
