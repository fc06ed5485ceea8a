"""Build the configured embedder."""

from __future__ import annotations

from search_platform.config import EmbeddingSettings
from search_platform.embeddings.base import Embedder
from search_platform.embeddings.prefixed import with_prefixes
from search_platform.embeddings.registry import get_model, model_directory


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    """The embedder named by settings.backend, loading settings.model (or the weights at settings.model_path)
    behind the model's query and passage prefixes."""
    if settings.backend == "fake":
        from search_platform.embeddings.fake import FakeEmbedder

        return FakeEmbedder(delay_s=settings.fake_delay_s)
    spec = get_model(settings.model)
    path = model_directory(settings.model, model_path=settings.model_path, cache_dir=settings.model_cache_dir)
    inner: Embedder
    if settings.backend == "onnx":
        from search_platform.embeddings.onnx import OnnxEmbedder

        inner = OnnxEmbedder(path, cache_dir=settings.onnx_cache_dir, quantize=settings.onnx_quantize,
                             batch_size=settings.batch_size, threads=settings.onnx_threads)
    else:
        from search_platform.embeddings.sentence_transformers import SentenceTransformerEmbedder

        inner = SentenceTransformerEmbedder(path, device=settings.device, batch_size=settings.batch_size)
    return with_prefixes(inner, query_prefix=spec.query_prefix, passage_prefix=spec.passage_prefix)
