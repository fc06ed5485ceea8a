"""Build the configured embedder."""

from __future__ import annotations

from search_platform.config import EmbeddingSettings
from search_platform.embeddings.base import Embedder


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    """The embedder named by settings.backend."""
    if settings.backend == "fake":
        from search_platform.embeddings.fake import FakeEmbedder

        return FakeEmbedder()
    if settings.backend == "onnx":
        from search_platform.embeddings.onnx import OnnxEmbedder

        return OnnxEmbedder(settings.model_path, cache_dir=settings.onnx_cache_dir, quantize=settings.onnx_quantize,
                            batch_size=settings.batch_size, threads=settings.onnx_threads)
    from search_platform.embeddings.sentence_transformers import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(settings.model_path, device=settings.device, batch_size=settings.batch_size)
