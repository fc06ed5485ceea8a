"""The shared query-embedding cache against the real Redis the platform runs on."""

from __future__ import annotations

import asyncio
import uuid

import numpy as np
from redis import Redis

from search_platform.config import Settings
from search_platform.embeddings.fake import FakeEmbedder
from search_platform.retrieval.query_cache import RedisQueryCache
from search_platform.retrieval.query_encoder import QueryEncoder
from search_platform.service.resources import build_query_cache


class CountingEmbedder(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def embed_query(self, text: str) -> list[float]:
        self.calls += 1
        return super().embed_query(text)


def test_vectors_are_shared_through_redis_with_a_ttl(services: Settings) -> None:
    settings = services.model_copy(update={"embedding": services.embedding.model_copy(
        update={"query_cache_redis": True, "query_cache_ttl_s": 120})})
    first, second = CountingEmbedder(), CountingEmbedder()
    shared = build_query_cache(settings, first)
    assert shared is not None
    query = f"how do I parse json {uuid.uuid4().hex}"
    vector = asyncio.run(QueryEncoder(first, cache_size=8, shared=shared).encode(query))
    calls_before = first.calls
    redis: Redis[bytes] = Redis.from_url(settings.redis.url)
    try:
        key = shared.key(query)
        raw = redis.get(key)
        assert raw is not None and len(raw) == 4 * first.dims
        assert list(np.frombuffer(raw, dtype=np.float32)) == vector
        assert 0 < redis.ttl(key) <= 120
        other_process = QueryEncoder(second, cache_size=8, shared=build_query_cache(settings, second))
        assert asyncio.run(other_process.encode(f"  {query} ")) == vector
        assert second.calls == 1  # only its fingerprint probe: the query itself came from Redis
        redis.delete(key)
        fresh = QueryEncoder(first, cache_size=8, shared=shared)
        assert asyncio.run(fresh.encode(query)) == vector and first.calls == calls_before + 1
    finally:
        redis.delete(shared.key(query))
        redis.close()


def test_an_unreachable_redis_only_costs_an_encoding(services: Settings) -> None:
    dead = Redis.from_url("redis://127.0.0.1:1/0", socket_timeout=0.2, socket_connect_timeout=0.2)
    embedder = CountingEmbedder()
    encoder = QueryEncoder(embedder, cache_size=0, shared=RedisQueryCache(dead, fingerprint="f", ttl_s=60))
    assert len(asyncio.run(encoder.encode("still answered"))) == embedder.dims
    assert embedder.calls == 1
