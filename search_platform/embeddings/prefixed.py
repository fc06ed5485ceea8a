"""Instruction prefixes: models trained with "query: " / "passage: " style prefixes see them on every text."""

from __future__ import annotations

from collections.abc import Sequence

from search_platform.embeddings.base import Embedder


class PrefixedEmbedder:
    """An Embedder that prepends the query prefix to queries and the passage prefix to passages; token counts
    (what the chunker sizes chunks by) stay those of the bare text."""

    def __init__(self, inner: Embedder, *, query_prefix: str, passage_prefix: str) -> None:
        self._inner = inner
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix

    @property
    def dims(self) -> int:
        """Dimension of every vector."""
        return self._inner.dims

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed passages, each behind the passage prefix."""
        return self._inner.embed_documents([f"{self.passage_prefix}{text}" for text in texts])

    def embed_query(self, text: str) -> list[float]:
        """Embed one query behind the query prefix."""
        return self._inner.embed_query(f"{self.query_prefix}{text}")

    def count_tokens(self, text: str) -> int:
        """Tokens of the bare text."""
        return self._inner.count_tokens(text)


def with_prefixes(embedder: Embedder, *, query_prefix: str, passage_prefix: str) -> Embedder:
    """The embedder behind its model's prefixes, or itself when the model has none."""
    if not query_prefix and not passage_prefix:
        return embedder
    return PrefixedEmbedder(embedder, query_prefix=query_prefix, passage_prefix=passage_prefix)
