"""Sentence-transformers backend (the `torch` extra), loading weights from a local path only."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from search_platform.embeddings.registry import packaged_model_path


class SentenceTransformerEmbedder:
    """Embeds with a SentenceTransformer loaded offline; vectors are L2-normalised."""

    def __init__(self, model_path: Path | None = None, *, device: str = "cpu", batch_size: int = 32) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as error:
            raise RuntimeError("the sentence-transformers backend needs the torch extra: "
                               "uv pip install -e '.[torch]' (or use SP_EMBEDDING__BACKEND=onnx)") from error

        path = model_path or packaged_model_path()
        self._model: Any = SentenceTransformer(str(path), device=device)
        self._batch_size = batch_size
        dimension_of = getattr(self._model, "get_embedding_dimension", None) or (
            self._model.get_sentence_embedding_dimension
        )
        dims = dimension_of()
        if dims is None:
            raise ValueError(f"model at {path} does not report an embedding dimension")
        self._dims = int(dims)

    @property
    def dims(self) -> int:
        """Dimension of every vector."""
        return self._dims

    @property
    def max_tokens(self) -> int:
        """Longest input the model reads; longer texts are truncated by it."""
        return int(self._model.max_seq_length)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed passages in batches."""
        vectors = self._model.encode(
            list(texts), batch_size=self._batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return [[float(x) for x in row] for row in vectors]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        vector = self._model.encode(text, normalize_embeddings=True, show_progress_bar=False)
        return [float(x) for x in vector]

    def count_tokens(self, text: str) -> int:
        """Wordpiece tokens of text, without [CLS]/[SEP]."""
        return len(self._model.tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])
