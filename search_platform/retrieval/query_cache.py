"""A query-embedding cache in Redis, shared by every API process: key = model fingerprint + normalised query,
value = the vector as float32 bytes, with a TTL. It fails open: a Redis error is a miss, never a failed search."""

from __future__ import annotations

import hashlib
import logging
import unicodedata
from collections.abc import Sequence

import numpy as np
from redis import Redis
from redis.exceptions import RedisError

from search_platform.embeddings.base import Embedder

log = logging.getLogger(__name__)

FINGERPRINT_PROBE = "search platform query embedding fingerprint probe"
FINGERPRINT_DECIMALS = 4


def normalise_query(text: str) -> str:
    """The cache identity of a query: Unicode NFC, whitespace runs collapsed, ends stripped (case is kept)."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def model_fingerprint(embedder: Embedder, *, backend: str) -> str:
    """A short id of the model's behaviour: the backend and a hash of its rounded vector for a fixed probe text,
    so a changed model, quantisation or dimension never reads another model's vectors."""
    probe = np.round(np.asarray(embedder.embed_query(FINGERPRINT_PROBE), dtype=np.float32), FINGERPRINT_DECIMALS)
    digest = hashlib.sha256(probe.tobytes()).hexdigest()[:16]
    return f"{backend}-{embedder.dims}-{digest}"


def to_float32(vector: Sequence[float]) -> list[float]:
    """The vector as Redis stores it, so cached and fresh vectors are the same numbers."""
    return [float(x) for x in np.asarray(vector, dtype=np.float32)]


class RedisQueryCache:
    """Vectors by (fingerprint, normalised query) in Redis; sync calls, meant to run off the event loop."""

    def __init__(self, redis: Redis[bytes], *, fingerprint: str, ttl_s: int, prefix: str = "sp:qvec") -> None:
        self._redis = redis
        self._ttl_s = ttl_s
        self._namespace = f"{prefix}:{fingerprint}"

    def key(self, text: str) -> str:
        """The Redis key of a query."""
        return f"{self._namespace}:{hashlib.sha256(normalise_query(text).encode()).hexdigest()}"

    def get(self, text: str) -> list[float] | None:
        """The cached vector, or None on a miss or when Redis does not answer."""
        try:
            raw = self._redis.get(self.key(text))
        except RedisError as error:
            log.warning("query-embedding cache read failed (%s); encoding instead", error.__class__.__name__)
            return None
        return None if raw is None else [float(x) for x in np.frombuffer(raw, dtype=np.float32)]

    def put(self, text: str, vector: Sequence[float]) -> None:
        """Store a vector with the TTL; a Redis error only costs a later miss."""
        try:
            self._redis.set(self.key(text), np.asarray(vector, dtype=np.float32).tobytes(), ex=self._ttl_s)
        except RedisError as error:
            log.warning("query-embedding cache write failed (%s)", error.__class__.__name__)
