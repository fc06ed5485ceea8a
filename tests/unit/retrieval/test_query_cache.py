"""The shared query-embedding cache's logic, with an in-memory stand-in for Redis."""

from __future__ import annotations

import asyncio

import numpy as np
from redis.exceptions import ConnectionError as RedisConnectionError

from search_platform.embeddings.fake import FakeEmbedder
from search_platform.retrieval.query_cache import RedisQueryCache, model_fingerprint, normalise_query
from search_platform.retrieval.query_encoder import QueryEncoder


class MemoryRedis:
    """get/set with the ex argument recorded; `down` makes every call fail like an unreachable Redis."""

    def __init__(self) -> None:
        self.values: dict[str, bytes] = {}
        self.ttls: dict[str, int] = {}
        self.down = False

    def get(self, key: str) -> bytes | None:
        if self.down:
            raise RedisConnectionError("unreachable")
        return self.values.get(key)

    def set(self, key: str, value: bytes, ex: int) -> None:
        if self.down:
            raise RedisConnectionError("unreachable")
        self.values[key] = value
        self.ttls[key] = ex


class CountingEmbedder(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def embed_query(self, text: str) -> list[float]:
        self.calls.append(text)
        return super().embed_query(text)


def cache(redis: MemoryRedis, fingerprint: str = "fake-32-abc") -> RedisQueryCache:
    return RedisQueryCache(redis, fingerprint=fingerprint, ttl_s=600)  # type: ignore[arg-type]


def test_normalise_collapses_whitespace_and_composes_unicode_but_keeps_case() -> None:
    assert normalise_query("  caf\u0065\u0301   au\tlait \n") == "caf\u00e9 au lait"
    assert normalise_query("Path") != normalise_query("path")


def test_queries_differing_only_in_spacing_share_a_key_and_fingerprints_separate_models() -> None:
    redis = MemoryRedis()
    assert cache(redis).key("read  a file") == cache(redis).key(" read a file")
    assert cache(redis).key("read a file") != cache(redis, "onnx-384-def").key("read a file")


def test_vector_round_trips_as_float32_bytes_with_the_ttl() -> None:
    redis = MemoryRedis()
    shared = cache(redis)
    shared.put("q", [0.1, 0.2, 0.3])
    key = shared.key("q")
    assert redis.values[key] == np.asarray([0.1, 0.2, 0.3], dtype=np.float32).tobytes()
    assert redis.ttls[key] == 600
    assert shared.get("q") == [float(np.float32(0.1)), float(np.float32(0.2)), float(np.float32(0.3))]


def test_a_second_process_reads_the_vector_instead_of_encoding() -> None:
    redis = MemoryRedis()
    first, second = CountingEmbedder(), CountingEmbedder()
    vector = asyncio.run(QueryEncoder(first, cache_size=0, shared=cache(redis)).encode("parse json"))
    again = asyncio.run(QueryEncoder(second, cache_size=0, shared=cache(redis)).encode("parse  json"))
    assert first.calls == ["parse json"] and second.calls == []
    assert again == vector


def test_an_unreachable_redis_is_a_miss_not_an_error() -> None:
    redis = MemoryRedis()
    redis.down = True
    embedder = CountingEmbedder()
    vector = asyncio.run(QueryEncoder(embedder, cache_size=0, shared=cache(redis)).encode("q"))
    assert embedder.calls == ["q"] and len(vector) == embedder.dims


def test_fingerprint_depends_on_the_model_behaviour() -> None:
    assert model_fingerprint(FakeEmbedder(), backend="fake") == model_fingerprint(FakeEmbedder(), backend="fake")
    assert model_fingerprint(FakeEmbedder(dims=32), backend="fake") != model_fingerprint(FakeEmbedder(dims=64),
                                                                                          backend="fake")


def test_concurrent_encodings_of_one_query_share_one_call_even_without_a_cache() -> None:
    embedder = CountingEmbedder()
    encoder = QueryEncoder(embedder, cache_size=0)

    async def both() -> list[list[float]]:
        return list(await asyncio.gather(encoder.encode("copy a tree"), encoder.encode(" copy a  tree")))

    first, second = asyncio.run(both())
    assert embedder.calls == ["copy a tree"] and first == second
    asyncio.run(encoder.encode("copy a tree"))  # done encodings are forgotten: with no cache, a later call encodes
    assert embedder.calls == ["copy a tree", "copy a tree"]


def test_a_cancelled_waiter_leaves_the_shared_encoding_to_the_others() -> None:
    embedder = CountingEmbedder()
    encoder = QueryEncoder(embedder, cache_size=0)

    async def one_cancelled() -> list[float]:
        cancelled = asyncio.ensure_future(encoder.encode("q"))
        kept = asyncio.ensure_future(encoder.encode("q"))
        await asyncio.sleep(0)
        cancelled.cancel()
        return await kept

    assert len(asyncio.run(one_cancelled())) == embedder.dims
    assert embedder.calls == ["q"]
