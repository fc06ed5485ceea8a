"""A persistent cache of passage vectors, so re-ingesting unchanged text (a re-run, a re-index to a new mapping, an
evaluation of a corpus already seen, the seed peer) never pays for the encoder twice.

Vectors are keyed by the model's fingerprint and the exact passage text, so a different model, quantisation or
prefix never reads another's vectors. One SQLite file per fingerprint (WAL mode: several worker processes may read
and write it at once).
"""

from __future__ import annotations

import fcntl
import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from search_platform.config import EmbeddingSettings
from search_platform.embeddings.base import Embedder

FINGERPRINT_PROBE = "search-platform passage fingerprint: os.path.join joins path components"


def passage_fingerprint(embedder: Embedder) -> str:
    """A short id of how the embedder encodes passages: dims and a hash of a probe passage's rounded vector."""
    probe = np.round(np.asarray(embedder.embed_documents([FINGERPRINT_PROBE])[0], dtype=np.float32), 4)
    return f"{embedder.dims}-{hashlib.sha256(probe.tobytes()).hexdigest()[:16]}"


class VectorStore:
    """Float32 vectors by text key in one SQLite file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=30.0, check_same_thread=False)
        # Switching a new file to WAL needs an exclusive lock that SQLite refuses at once (no busy wait) when
        # another process holds a shared one, so workers starting together set it up one at a time.
        with path.with_name(f"{path.name}.init-lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if self._db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")

    def get_many(self, keys: Sequence[str]) -> dict[str, list[float]]:
        """The stored vectors of the keys that have one."""
        found: dict[str, list[float]] = {}
        for start in range(0, len(keys), 500):
            part = list(keys[start : start + 500])
            marks = ",".join("?" * len(part))
            for key, blob in self._db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", part):
                found[key] = np.frombuffer(blob, dtype=np.float32).astype(float).tolist()
        return found

    def put_many(self, items: dict[str, list[float]]) -> None:
        """Store vectors (float32), replacing any under the same key."""
        rows = [(key, np.asarray(vector, dtype=np.float32).tobytes()) for key, vector in items.items()]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)", rows)

    def close(self) -> None:
        """Close the file."""
        self._db.close()


class CachingEmbedder:
    """An Embedder that serves passage vectors from a VectorStore and encodes only the texts it has not seen;
    queries pass straight through (the query path has its own cache)."""

    def __init__(self, inner: Embedder, store: VectorStore, *, fingerprint: str) -> None:
        self._inner = inner
        self._store = store
        self._fingerprint = fingerprint

    @classmethod
    def in_directory(cls, inner: Embedder, directory: Path) -> CachingEmbedder:
        """The cache of this embedder's fingerprint under directory (one file per fingerprint)."""
        fingerprint = passage_fingerprint(inner)
        return cls(inner, VectorStore(directory / f"passages-{fingerprint}.sqlite3"), fingerprint=fingerprint)

    @property
    def dims(self) -> int:
        """Dimension of every vector."""
        return self._inner.dims

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self._fingerprint}\x1f{text}".encode()).hexdigest()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Stored vectors for texts seen before, fresh ones (then stored) for the rest, in order."""
        keys = [self._key(text) for text in texts]
        found = self._store.get_many(keys)
        missing = list(dict.fromkeys(key for key in keys if key not in found))
        if missing:
            first_text = {key: text for key, text in zip(keys, texts, strict=True)}
            fresh = self._inner.embed_documents([first_text[key] for key in missing])
            new = dict(zip(missing, (list(map(float, v)) for v in fresh), strict=True))
            self._store.put_many(new)
            found.update({key: np.asarray(v, dtype=np.float32).astype(float).tolist() for key, v in new.items()})
        return [found[key] for key in keys]

    def embed_query(self, text: str) -> list[float]:
        """Encode one query (never cached here)."""
        return self._inner.embed_query(text)

    def count_tokens(self, text: str) -> int:
        """Tokens of the inner model's tokenizer."""
        return self._inner.count_tokens(text)


def with_passage_cache(embedder: Embedder, settings: EmbeddingSettings) -> Embedder:
    """The embedder behind the passage-vector cache when embedding.passage_cache_dir is set, else itself."""
    if settings.passage_cache_dir is None:
        return embedder
    return CachingEmbedder.in_directory(embedder, settings.passage_cache_dir)
