"""ONNX Runtime backend: the same tokenizer, truncation, mean pooling and L2 normalisation as sentence-transformers.

Needs neither torch nor transformers: the tokenizer is the model's tokenizer.json run by `tokenizers` (the fast
tokenizer transformers itself wraps), the graph comes from onnx_export.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from search_platform.embeddings.onnx_export import ensure_onnx_model, max_seq_length
from search_platform.embeddings.onnx_interface import INPUT_NAMES

if TYPE_CHECKING:
    from tokenizers import Tokenizer


def mean_pool_normalised(token_embeddings: npt.NDArray[np.float32], mask: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """Mean of the token vectors under the attention mask, scaled to unit length."""
    weights = mask[..., None].astype(np.float32)
    summed = (token_embeddings * weights).sum(axis=1)
    pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    normalised: npt.NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
    return normalised


def cls_normalised(token_embeddings: npt.NDArray[np.float32], _mask: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """The first ([CLS]) token's vector scaled to unit length: the pooling BGE models are trained with."""
    first = token_embeddings[:, 0]
    normalised: npt.NDArray[np.float32] = (first / np.clip(np.linalg.norm(first, axis=1, keepdims=True), 1e-12, None)
                                           ).astype(np.float32)
    return normalised


Pooling = Literal["mean", "cls"]
_POOLERS = {"mean": mean_pool_normalised, "cls": cls_normalised}


def load_tokenizers(model_path: Path, max_length: int) -> tuple[Tokenizer, Tokenizer]:
    """The model's tokenizer.json twice: for batches (padded to the longest text, truncated at max_length, as
    sentence-transformers calls it) and bare (no padding, no truncation) for counting tokens."""
    from tokenizers import Tokenizer

    batch = Tokenizer.from_file(str(model_path / "tokenizer.json"))
    pad = batch.padding or {"pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}  # the file's fixed 128 is replaced
    batch.enable_padding(pad_id=pad["pad_id"], pad_type_id=pad["pad_type_id"], pad_token=pad["pad_token"])
    batch.enable_truncation(max_length=max_length)
    bare = Tokenizer.from_file(str(model_path / "tokenizer.json"))
    bare.no_padding()
    bare.no_truncation()
    return batch, bare


class OnnxEmbedder:
    """Embeds with an ONNX export of the model, run by onnxruntime on the CPU."""

    def __init__(self, model_path: Path | None = None, *, cache_dir: Path, quantize: bool = False,
                 batch_size: int = 32, threads: int | None = None, onnx_file: Path | None = None,
                 pooling: Pooling = "mean") -> None:
        """onnx_file: a graph of the model to run as it is (benchmarks compare quantisation schemes, or measure a
        model shipped as ONNX only); None: the cache's export of model_path, made first if missing. pooling: how
        token vectors become one vector, as the model was trained (sentence-transformers models: mean)."""
        import onnxruntime as ort

        from search_platform.embeddings.registry import packaged_model_path

        path = model_path or packaged_model_path()
        self.onnx_path = onnx_file or ensure_onnx_model(path, cache_dir, quantize=quantize)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        self._session: Any = ort.InferenceSession(str(self.onnx_path), options, providers=["CPUExecutionProvider"])
        self._inputs = [i.name for i in self._session.get_inputs() if i.name in INPUT_NAMES]
        self._max_length = max_seq_length(path)
        self._tokenizer, self._counter = load_tokenizers(path, self._max_length)
        self._batch_size = batch_size
        self._pool = _POOLERS[pooling]
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
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def _encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Unit vectors of one batch."""
        stripped = [text.strip() for text in texts]  # sentence-transformers strips too
        encodings = self._tokenizer.encode_batch(stripped)
        arrays = {"input_ids": [e.ids for e in encodings], "attention_mask": [e.attention_mask for e in encodings],
                  "token_type_ids": [e.type_ids for e in encodings]}
        feeds = {name: np.array(arrays[name], dtype=np.int64) for name in self._inputs}
        (token_embeddings,) = self._session.run(None, feeds)
        return self._pool(token_embeddings, np.array(arrays["attention_mask"]))
