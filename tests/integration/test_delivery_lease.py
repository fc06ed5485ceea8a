"""The delivery lease on a real Redis: renewal moves a taken delivery's time in the unacked index and never adds a
delivery the broker no longer holds; the lease renews while its block runs and stops with it. (That a batch longer
than the visibility timeout runs once through real workers: tests/integration/faults.)"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator

import pytest
from redis import Redis

from search_platform.config import Settings
from workers.lease import RENEWALS_PER_TIMEOUT, delivery_lease, renew

pytestmark = pytest.mark.integration


@pytest.fixture
def redis(services: Settings) -> Iterator[Redis[bytes]]:
    client: Redis[bytes] = Redis.from_url(services.redis.url, socket_timeout=5, socket_connect_timeout=5)
    yield client
    client.close()


@pytest.fixture
def index_key(redis: Redis[bytes]) -> Iterator[str]:
    key = f"test-unacked-index-{uuid.uuid4().hex[:8]}"  # not the broker's own index: a worker may be running
    yield key
    redis.delete(key)


def test_renew_moves_a_taken_delivery_to_now(redis, index_key):
    redis.zadd(index_key, {"tag-1": 100.0, "tag-2": 100.0})
    assert renew(redis, "tag-1", now=lambda: 5000.0, key=index_key)
    assert redis.zscore(index_key, "tag-1") == 5000.0
    assert redis.zscore(index_key, "tag-2") == 100.0  # only the named delivery


def test_renew_never_adds_back_a_delivery_that_was_acked_or_restored(redis, index_key):
    assert not renew(redis, "gone", now=lambda: 5000.0, key=index_key)
    assert redis.zscore(index_key, "gone") is None


def test_the_lease_renews_while_its_block_runs_and_stops_after(redis, index_key):
    visibility_s = 0.8
    every_s = visibility_s / RENEWALS_PER_TIMEOUT
    taken = time.time() - 100
    redis.zadd(index_key, {"tag": taken})
    with delivery_lease(redis, "tag", visibility_timeout_s=visibility_s, key=index_key):
        time.sleep(every_s * 2.5)
        renewed = redis.zscore(index_key, "tag")
        assert renewed is not None and renewed > taken and time.time() - renewed < every_s * 2  # recently
    time.sleep(every_s * 0.5)  # a renewal under way when the block ended has landed
    after = redis.zscore(index_key, "tag")
    time.sleep(every_s * 3)
    assert redis.zscore(index_key, "tag") == after  # stopped with the block


def test_no_delivery_tag_means_no_lease(redis, index_key):
    with delivery_lease(redis, None, visibility_timeout_s=0.1, key=index_key):
        assert not [thread for thread in threading.enumerate() if thread.name.startswith("lease-")]
        time.sleep(0.1)  # a renewal thread would have written by now
    assert not redis.exists(index_key)
