"""A deterministic embedder for unit tests: hashed bag of words, no model."""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections.abc import Sequence

_WORD = re.compile(r"\w+")


class FakeEmbedder:
    """Hashes each word into a bucket; texts sharing words get similar vectors."""

    def __init__(self, dims: int = 32, *, delay_s: float = 0.0) -> None:
        self._dims = dims
        self._delay_s = delay_s  # each embed_documents call sleeps this long: a slow model, for delivery tests

    @property
    def dims(self) -> int:
        """Dimension of every vector."""
        return self._dims

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed passages."""
        if self._delay_s:
            time.sleep(self._delay_s)
        return [self.embed_query(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        """Embed one text as a normalised hashed word histogram."""
        vector = [0.0] * self._dims
        for word in _WORD.findall(text.lower()):
            bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
            vector[bucket % self._dims] += 1.0
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        return [x / norm for x in vector]

    def count_tokens(self, text: str) -> int:
        """Words stand in for tokens."""
        return len(_WORD.findall(text))
