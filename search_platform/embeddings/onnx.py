"""ONNX Runtime backend: the same tokenizer, truncation, mean pooling and L2 normalisation as sentence-transformers."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from search_platform.embeddings.onnx_export import INPUT_NAMES, ensure_onnx_model, max_seq_length


def mean_pool_normalised(token_embeddings: npt.NDArray[np.float32], mask: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """Mean of the token vectors under the attention mask, scaled to unit length."""
    weights = mask[..., None].astype(np.float32)
    summed = (token_embeddings * weights).sum(axis=1)
    pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    normalised: npt.NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
    return normalised


class OnnxEmbedder:
    """Embeds with an ONNX export of the model, run by onnxruntime on the CPU."""

    def __init__(self, model_path: Path | None = None, *, cache_dir: Path, quantize: bool = False,
                 batch_size: int = 32, threads: int | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import onnxruntime as ort
        from transformers import AutoTokenizer

        from search_platform.embeddings.sentence_transformers import packaged_model_path

        path = model_path or packaged_model_path()
        self.onnx_path = ensure_onnx_model(path, cache_dir, quantize=quantize)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        self._session: Any = ort.InferenceSession(str(self.onnx_path), options, providers=["CPUExecutionProvider"])
        self._inputs = [i.name for i in self._session.get_inputs() if i.name in INPUT_NAMES]
        self._tokenizer: Any = AutoTokenizer.from_pretrained(str(path))
        self._max_length = max_seq_length(path)
        self._batch_size = batch_size
        self._dims = int(self._session.get_outputs()[0].shape[-1])

    @property
    def dims(self) -> int:
        """Dimension of every vector."""
        return self._dims

    @property
    def max_tokens(self) -> int:
        """Longest input the model reads; longer texts are truncated."""
        return self._max_length

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed passages in batches of similar length (as sentence-transformers does), in input order."""
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vectors: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self._batch_size):
            batch = order[start:start + self._batch_size]
            for i, row in zip(batch, self._encode([texts[i] for i in batch]), strict=True):
                vectors[i] = [float(x) for x in row]
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return [float(x) for x in self._encode([text])[0]]

    def count_tokens(self, text: str) -> int:
        """Wordpiece tokens of text, without [CLS]/[SEP]."""
        return len(self._tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])

    def _encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Unit vectors of one batch."""
        stripped = [text.strip() for text in texts]  # sentence-transformers strips too
        encoded = self._tokenizer(stripped, padding=True, truncation=True, max_length=self._max_length,
                                  return_tensors="np")
        feeds = {name: encoded[name].astype(np.int64) for name in self._inputs}
        (token_embeddings,) = self._session.run(None, feeds)
        return mean_pool_normalised(token_embeddings, encoded["attention_mask"])
