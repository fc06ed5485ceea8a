"""Query embedding off the event loop, with an in-process LRU cache for repeated queries."""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from search_platform.embeddings.base import Embedder


class QueryEncoder:
    """Encodes queries in a worker thread; remembers the last `cache_size` distinct queries."""

    def __init__(self, embedder: Embedder, *, cache_size: int) -> None:
        self._embedder = embedder
        self._cache_size = cache_size
        self._cache: OrderedDict[str, list[float]] = OrderedDict()

    async def encode(self, text: str) -> list[float]:
        """The query's vector, from cache when seen recently."""
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached
        vector = await asyncio.to_thread(self._embedder.embed_query, text)
        if self._cache_size:
            self._cache[text] = vector
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vector
