"""The Embedder protocol every backend implements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Embedder(Protocol):
    """Turns texts into unit-length vectors of a fixed dimension."""

    @property
    def dims(self) -> int:
        """Dimension of every vector."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed passages for indexing."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens the model's tokenizer produces for text, without special tokens."""
        ...
