"""Query embedding off the event loop, with an in-process LRU cache for repeated queries and, optionally, a
Redis cache shared by every API process."""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from search_platform.embeddings.base import Embedder
from search_platform.retrieval.query_cache import RedisQueryCache, normalise_query, to_float32


class QueryEncoder:
    """Encodes queries in a worker thread; remembers the last `cache_size` distinct queries, and reads and fills
    the shared Redis cache when one is given (its vectors are float32, so fresh ones are rounded the same way).
    Concurrent requests for the same query (the dense legs of one search) share one encoding."""

    def __init__(self, embedder: Embedder, *, cache_size: int, shared: RedisQueryCache | None = None) -> None:
        self._embedder = embedder
        self._cache_size = cache_size
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._shared = shared
        self._in_flight: dict[str, asyncio.Future[list[float]]] = {}

    async def encode(self, text: str) -> list[float]:
        """The query's vector, from a cache when seen recently, or from an encoding already under way."""
        key = normalise_query(text)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        pending = self._in_flight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        pending = asyncio.ensure_future(asyncio.to_thread(self._encode_uncached, text))
        self._in_flight[key] = pending
        # a cancelled caller leaves the encoding running for whoever else waits on it
        pending.add_done_callback(lambda done: self._forget(key, done))
        vector = await asyncio.shield(pending)
        if self._cache_size:
            self._cache[key] = vector
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vector

    def _forget(self, key: str, done: asyncio.Future[list[float]]) -> None:
        if self._in_flight.get(key) is done:
            del self._in_flight[key]

    def _encode_uncached(self, text: str) -> list[float]:
        if self._shared is None:
            return self._embedder.embed_query(text)
        vector = self._shared.get(text)
        if vector is None:
            vector = to_float32(self._embedder.embed_query(text))
            self._shared.put(text, vector)
        return vector
