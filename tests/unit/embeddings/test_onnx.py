"""The ONNX backend against the sentence-transformers one it replaces: same vectors, same token counts, cached."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from search_platform.config import EmbeddingSettings
from search_platform.embeddings import onnx_export
from search_platform.embeddings.factory import build_embedder
from search_platform.embeddings.onnx import OnnxEmbedder, cls_normalised, mean_pool_normalised

MODEL = "all-minilm-l6-v2"  # the model OnnxEmbedder loads when given no path, so every embedder here agrees
LONG = " ".join(f"Paragraph {i}: the asyncio event loop schedules callbacks, coroutines and tasks." for i in range(60))
TEXTS = [
    "How do I read a file line by line in Python?",
    "asyncio.gather runs awaitables concurrently and returns their results in order.",
    "def add(a: int, b: int) -> int:\n    return a + b",
    "ValueError: invalid literal for int() with base 10: 'abc'",
    "The quick brown fox jumps over the lazy dog.",
    "json.loads(s) parses a JSON document; json.dumps(obj, indent=2) pretty-prints it.",
    "   leading and trailing whitespace   ",
    "Überprüfung der Datei — café, naïve, 東京, emoji 🐍",
    "x",
    "SELECT id, name FROM users WHERE created_at > NOW() - INTERVAL '1 day';",
    "pip install --upgrade 'requests>=2.31,<3'",
    "Context managers: the with statement calls __enter__ and __exit__.",
    "list comprehension vs generator expression memory",
    "subprocess.run(['ls', '-l'], check=True, capture_output=True)",
    "Dataclasses generate __init__, __repr__ and __eq__ from annotated fields.",
    "https://docs.python.org/3/library/pathlib.html#pathlib.Path.rglob",
    "A" * 3000,
    LONG,
    LONG[::-1],
    "\n".join(f"import module_{i}" for i in range(200)),
]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh cache: the module's first ONNX embedder exports into it."""
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="module")
def torch_vectors() -> tuple[np.ndarray, list[int]]:
    """Reference vectors and token counts from the sentence-transformers backend."""
    torch_embedder = build_embedder(EmbeddingSettings(backend="sentence-transformers", model=MODEL))
    return np.array(torch_embedder.embed_documents(TEXTS)), [torch_embedder.count_tokens(t) for t in TEXTS]


@pytest.fixture(scope="module")
def fp32(cache_dir: Path) -> OnnxEmbedder:
    """The fp32 ONNX embedder, built through the factory."""
    embedder = build_embedder(EmbeddingSettings(backend="onnx", model=MODEL, onnx_quantize=False,
                                                onnx_cache_dir=cache_dir, batch_size=8))
    assert isinstance(embedder, OnnxEmbedder)
    return embedder


def _cosines(embedder: OnnxEmbedder, reference: np.ndarray) -> np.ndarray:
    vectors = np.array(embedder.embed_documents(TEXTS))
    cosines: np.ndarray = np.sum(vectors * reference, axis=1)
    return cosines


@pytest.mark.slow
def test_fp32_matches_sentence_transformers(fp32: OnnxEmbedder, torch_vectors) -> None:
    """fp32 vectors point where the torch ones do, long texts truncated at 256 tokens included."""
    assert max(torch_vectors[1]) > 256
    assert _cosines(fp32, torch_vectors[0]).min() >= 0.98


@pytest.mark.slow
def test_int8_stays_close_to_sentence_transformers(cache_dir: Path, torch_vectors) -> None:
    """int8 dynamic quantisation (down-projections kept fp32) keeps every vector close to the torch one."""
    int8 = OnnxEmbedder(cache_dir=cache_dir, quantize=True)
    cosines = _cosines(int8, torch_vectors[0])
    assert cosines.min() >= 0.95
    assert cosines.mean() >= 0.98


@pytest.mark.slow
def test_query_matches_document_encoding(fp32: OnnxEmbedder) -> None:
    """A query alone encodes like the same text inside a padded batch."""
    alone = np.array(fp32.embed_query(TEXTS[0]))
    batched = np.array(fp32.embed_documents(TEXTS)[0])
    assert float(alone @ batched) >= 0.9999
    assert float(np.linalg.norm(alone)) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.slow
def test_token_counts_and_dims_match(fp32: OnnxEmbedder, torch_vectors) -> None:
    """count_tokens agrees with the torch backend and vectors have 384 dimensions."""
    assert [fp32.count_tokens(t) for t in TEXTS] == torch_vectors[1]
    assert fp32.dims == 384
    assert len(fp32.embed_query("dims")) == 384


@pytest.mark.slow
def test_second_construction_reuses_the_cache(fp32: OnnxEmbedder, cache_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A second embedder loads the cached file: no export, file untouched."""
    mtime = fp32.onnx_path.stat().st_mtime_ns

    def no_export(*_: object) -> None:
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_export, "_export", no_export)
    again = OnnxEmbedder(cache_dir=cache_dir, batch_size=8)
    assert again.onnx_path == fp32.onnx_path
    assert again.onnx_path.stat().st_mtime_ns == mtime
    assert not list(cache_dir.glob("*.tmp"))


@pytest.mark.slow
def test_cls_pooling_embedder_returns_the_first_token_vector(fp32: OnnxEmbedder, cache_dir: Path) -> None:
    """pooling="cls" runs the same graph and keeps the [CLS] position's vector, which is not the mean."""
    cls = OnnxEmbedder(cache_dir=cache_dir, onnx_file=fp32.onnx_path, pooling="cls")
    encoding = cls._tokenizer.encode(TEXTS[1])
    (tokens,) = cls._session.run(None, {"input_ids": np.array([encoding.ids]),
                                        "attention_mask": np.array([encoding.attention_mask]),
                                        "token_type_ids": np.array([encoding.type_ids])})
    expected = tokens[0, 0] / np.linalg.norm(tokens[0, 0])
    np.testing.assert_allclose(cls.embed_query(TEXTS[1]), expected, atol=1e-5)
    assert float(np.array(fp32.embed_query(TEXTS[1])) @ expected) < 0.99


def test_mean_pooling_ignores_padding_and_normalises() -> None:
    """Padded positions do not move the mean; the result has unit length."""
    tokens = np.array([[[3.0, 0.0], [1.0, 0.0], [100.0, 100.0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0]])
    np.testing.assert_allclose(mean_pool_normalised(tokens, mask), [[1.0, 0.0]])


def test_cls_pooling_takes_the_first_token_and_normalises() -> None:
    """Only the first token counts, whatever the others or the mask; the result has unit length."""
    tokens = np.array([[[3.0, 4.0], [100.0, 0.0]], [[0.0, 2.0], [0.0, 0.0]]], dtype=np.float32)
    mask = np.array([[1, 1], [1, 0]])
    np.testing.assert_allclose(cls_normalised(tokens, mask), [[0.6, 0.8], [0.0, 1.0]])


def _fake_model(tmp_path: Path, weights: bytes) -> Path:
    model = tmp_path / "model"
    model.mkdir(exist_ok=True)
    (model / "model.safetensors").write_bytes(weights)
    return model


def test_cache_key_follows_model_files_and_settings(tmp_path: Path) -> None:
    """Other weights or other export settings give another cache file."""
    model = _fake_model(tmp_path, b"weights-1")
    first = onnx_export.cache_key(model, quantize=False)
    assert onnx_export.cache_key(model, quantize=False) == first
    assert onnx_export.cache_key(model, quantize=True) != first
    _fake_model(tmp_path, b"weights-2")
    assert onnx_export.cache_key(model, quantize=False) != first


def test_export_is_written_atomically_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The export lands under its final name via a temporary file, and runs once for two calls."""
    calls: list[Path] = []

    def fake_export(_: Path, out: Path) -> None:
        assert out.name.endswith(".tmp")
        calls.append(out)
        out.write_bytes(b"onnx")

    monkeypatch.setattr(onnx_export, "_export", fake_export)
    model, cache = _fake_model(tmp_path, b"weights"), tmp_path / "cache"
    first = onnx_export.ensure_onnx_model(model, cache, quantize=False)
    second = onnx_export.ensure_onnx_model(model, cache, quantize=False)
    assert first == second and first.read_bytes() == b"onnx"
    assert len(calls) == 1
    assert [p.name for p in cache.iterdir()] == [first.name]


def test_failed_export_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash mid-export leaves neither a final file nor a temporary one."""

    def broken_export(_: Path, out: Path) -> None:
        out.write_bytes(b"half")
        raise RuntimeError("boom")

    monkeypatch.setattr(onnx_export, "_export", broken_export)
    cache = tmp_path / "cache"
    with pytest.raises(RuntimeError):
        onnx_export.ensure_onnx_model(_fake_model(tmp_path, b"w"), cache, quantize=False)
    assert list(cache.iterdir()) == []
