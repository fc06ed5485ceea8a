"""Build the configured embedder."""

from __future__ import annotations

from search_platform.config import EmbeddingSettings
from search_platform.embeddings.base import Embedder


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    """The embedder named by settings.backend."""
    if settings.backend == "fake":
        from search_platform.embeddings.fake import FakeEmbedder

        return FakeEmbedder()
    from search_platform.embeddings.sentence_transformers import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(settings.model_path, device=settings.device, batch_size=settings.batch_size)
