"""Sentence-transformers CrossEncoder backend, loading weights from a local path only."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any


class CrossEncoderReranker:
    """Scores (query, text) pairs with a CrossEncoder loaded offline on the CPU."""

    def __init__(self, model_path: Path, *, max_length: int = 256, batch_size: int = 16) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import CrossEncoder

        self._model: Any = CrossEncoder(str(model_path), device="cpu", max_length=max_length,
                                        local_files_only=True)
        self._batch_size = batch_size

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        """One relevance score per text, in the order of texts."""
        if not texts:
            return []
        scores = self._model.predict([(query, text) for text in texts], batch_size=self._batch_size,
                                     show_progress_bar=False)
        return [float(score) for score in scores]
