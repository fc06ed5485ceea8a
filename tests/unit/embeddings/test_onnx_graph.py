"""The torch-free ONNX export (onnx_graph) against torch: same token embeddings, same sentence vectors, same token
ids; and the ONNX backend running in a process where torch, transformers and sentence-transformers cannot load."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import pytest

from search_platform.config import EmbeddingSettings
from search_platform.embeddings import onnx_export, onnx_graph
from search_platform.embeddings.onnx import OnnxEmbedder, load_tokenizers
from search_platform.embeddings.onnx_interface import INPUT_NAMES
from search_platform.embeddings.registry import model_directory

LONG = " ".join(f"Section {i}: a context manager's __exit__ runs even when the block raises." for i in range(50))
TEXTS = [
    "How do I read a file line by line in Python?",
    "x",
    "   leading and trailing whitespace   ",
    "Überprüfung der Datei — café, naïve, 東京, emoji 🐍",
    "def add(a: int, b: int) -> int:\n    return a + b",
    "subprocess.run(['ls', '-l'], check=True, capture_output=True)",
    LONG,  # longer than either model's max_seq_length: truncated
    LONG[::-1],
    "\n".join(f"import module_{i}" for i in range(150)),
    "json.loads(s) parses a JSON document; json.dumps(obj, indent=2) pretty-prints it.",
]
MODELS = ["all-minilm-l6-v2", pytest.param("all-mpnet-base-v2", marks=pytest.mark.slow)]


@pytest.fixture(scope="module", params=MODELS)
def model_path(request: pytest.FixtureRequest) -> Path:
    """The model's directory (both models are core dependencies: a missing one fails)."""
    return model_directory(request.param, model_path=None, cache_dir=EmbeddingSettings().model_cache_dir)


@pytest.fixture(scope="module")
def sentence_transformer(model_path: Path) -> Any:
    """The reference: sentence-transformers on torch, one thread."""
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)
    return SentenceTransformer(str(model_path), device="cpu")


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh ONNX cache for this module's exports."""
    return tmp_path_factory.mktemp("onnx-graph-cache")


@pytest.fixture(scope="module")
def graph_session(model_path: Path, onnx_cache: Path) -> ort.InferenceSession:
    """onnxruntime over the torch-free fp32 export, as the cache holds it."""
    path = onnx_export.ensure_onnx_model(model_path, onnx_cache, quantize=False)
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def _feeds(model_path: Path, texts: list[str]) -> dict[str, np.ndarray]:
    batch, _ = load_tokenizers(model_path, onnx_export.max_seq_length(model_path))
    encodings = batch.encode_batch([t.strip() for t in texts])
    return {"input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64)}


def _run(session: ort.InferenceSession, feeds: dict[str, np.ndarray]) -> np.ndarray:
    names = [i.name for i in session.get_inputs()]
    (tokens,) = session.run(None, {name: feeds[name] for name in names})
    return np.asarray(tokens)


def test_graph_model_types_are_the_exporters() -> None:
    """onnx_export routes exactly the model types onnx_graph writes out."""
    assert set(onnx_graph._LAYER_NAMES) == onnx_export.GRAPH_MODEL_TYPES


def test_mpnet_bucket_table_equals_transformers() -> None:
    """Every relative position falls in the bucket transformers' MPNet puts it in (float32 log boundaries too)."""
    import torch
    from transformers.models.mpnet.modeling_mpnet import MPNetEncoder

    relative = torch.arange(-513, 514)
    expected = MPNetEncoder.relative_position_bucket(relative).numpy()
    np.testing.assert_array_equal(onnx_graph.mpnet_bucket_table(514), expected)


def test_token_ids_equal_sentence_transformers(model_path: Path, sentence_transformer: Any) -> None:
    """Same ids, mask and token types as sentence-transformers' own tokenize (padding, truncation included)."""
    feeds = _feeds(model_path, TEXTS)
    tokenize = getattr(sentence_transformer, "preprocess", None) or sentence_transformer.tokenize  # 6.x renamed it
    expected = tokenize([t.strip() for t in TEXTS])
    assert feeds["input_ids"].shape[1] == sentence_transformer.max_seq_length  # the long texts were truncated
    compared = [name for name in INPUT_NAMES if name in expected]
    assert compared[:2] == ["input_ids", "attention_mask"]
    for name in compared:
        np.testing.assert_array_equal(feeds[name], expected[name].numpy(), err_msg=name)


def test_token_embeddings_equal_torch(model_path: Path, graph_session: ort.InferenceSession) -> None:
    """The graph's last hidden state equals transformers' eager model's on every real token (padded batch)."""
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_path), attn_implementation="eager").eval()
    names = [i.name for i in graph_session.get_inputs()]
    for start in range(0, len(TEXTS), 5):
        feeds = _feeds(model_path, TEXTS[start:start + 5])
        with torch.no_grad():
            expected = model(**{n: torch.from_numpy(feeds[n]) for n in names}).last_hidden_state.numpy()
        real = feeds["attention_mask"].astype(bool)
        assert (~real).any()  # the batch is padded
        assert np.abs(_run(graph_session, feeds) - expected)[real].max() <= 1e-4


def test_bert_token_embeddings_equal_the_torch_onnx_export(onnx_cache: Path, tmp_path: Path) -> None:
    """For BERT, the torch-free graph and torch.onnx.export's graph give the same token embeddings."""
    path = model_directory("all-minilm-l6-v2", model_path=None, cache_dir=tmp_path)
    graph = ort.InferenceSession(str(onnx_export.ensure_onnx_model(path, onnx_cache, quantize=False)),
                                 providers=["CPUExecutionProvider"])
    onnx_export._torch_export(path, tmp_path / "torch.onnx")
    torch_export = ort.InferenceSession(str(tmp_path / "torch.onnx"), providers=["CPUExecutionProvider"])
    feeds = _feeds(path, TEXTS)
    real = feeds["attention_mask"].astype(bool)
    assert np.abs(_run(graph, feeds) - _run(torch_export, feeds))[real].max() <= 1e-4


def test_sentence_vectors_equal_sentence_transformers(model_path: Path, sentence_transformer: Any,
                                                      onnx_cache: Path) -> None:
    """The ONNX backend over the torch-free export: max abs diff <= 1e-4 and cosine >= 0.99999 per text."""
    embedder = OnnxEmbedder(model_path, cache_dir=onnx_cache, batch_size=4)  # padded batches of mixed lengths
    vectors = np.array(embedder.embed_documents(TEXTS))
    expected = sentence_transformer.encode(TEXTS, batch_size=4, normalize_embeddings=True)
    assert vectors.shape == expected.shape
    assert np.abs(vectors - expected).max() <= 1e-4
    assert (vectors * expected).sum(axis=1).min() >= 0.99999


def test_int8_keeps_the_down_projections_fp32_and_the_vectors_close(model_path: Path, onnx_cache: Path) -> None:
    """int8 quantises every weight MatMul but each layer's feed-forward output; measured against fp32 on these
    texts: MiniLM min 0.987 / mean 0.996, mpnet min 0.986 / mean 0.991 (quantising the down-projections too left
    mpnet at a mean of 0.87)."""
    import onnx

    fp32 = onnx.load(str(onnx_export.ensure_onnx_model(model_path, onnx_cache, quantize=False)))
    layers = json.loads((model_path / "config.json").read_text())["num_hidden_layers"]
    kept = onnx_export.down_projections(fp32)
    assert len(kept) == layers
    int8 = onnx.load(str(onnx_export.ensure_onnx_model(model_path, onnx_cache, quantize=True)))
    float_matmuls = {node.name for node in int8.graph.node if node.op_type == "MatMul"}
    assert set(kept) <= float_matmuls
    assert any(node.op_type in {"MatMulInteger", "DynamicQuantizeMatMul"} for node in int8.graph.node)
    exact = np.array(OnnxEmbedder(model_path, cache_dir=onnx_cache).embed_documents(TEXTS))
    quantised = np.array(OnnxEmbedder(model_path, cache_dir=onnx_cache, quantize=True).embed_documents(TEXTS))
    cosines = (exact * quantised).sum(axis=1)
    assert cosines.min() >= 0.98
    assert cosines.mean() >= 0.99


def test_down_projections_are_the_matmuls_whose_weight_narrows() -> None:
    from onnx import TensorProto, helper

    def weight(name: str, rows: int, cols: int) -> Any:
        return helper.make_tensor(name, TensorProto.FLOAT, [rows, cols], [0.0] * rows * cols)

    nodes = [helper.make_node("MatMul", ["x", "up"], ["h"], name="widen"),
             helper.make_node("MatMul", ["h", "down"], ["y"], name="narrow"),
             helper.make_node("MatMul", ["y", "y_t"], ["scores"], name="no_weight"),
             helper.make_node("MatMul", ["y", "square"], ["z"], name="square")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 4])],
                              initializer=[weight("up", 4, 16), weight("down", 16, 4), weight("square", 4, 4)])
    assert onnx_export.down_projections(helper.make_model(graph)) == ["narrow"]


def test_cache_key_ignores_torch_for_graph_exports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A BERT export's cache file does not depend on torch's version; a torch export's does."""
    bert, other = tmp_path / "bert", tmp_path / "other"
    for path, kind in ((bert, "bert"), (other, "distilbert")):
        path.mkdir()
        (path / "config.json").write_text(json.dumps({"model_type": kind}))
    keys: dict[str, list[str]] = {"bert": [], "other": []}
    for torch_version in ("2.6.0", "2.9.1"):
        monkeypatch.setattr(onnx_export, "version", lambda name, v=torch_version: v if name == "torch" else "1")
        keys["bert"].append(onnx_export.cache_key(bert, quantize=False))
        keys["other"].append(onnx_export.cache_key(other, quantize=False))
    assert keys["bert"][0] == keys["bert"][1]
    assert keys["other"][0] != keys["other"][1]


_NO_TORCH = textwrap.dedent("""
    import json, sys
    from pathlib import Path

    BLOCKED = {"torch", "transformers", "sentence_transformers"}

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"blocked: {name}", name=name)
            return None

    sys.meta_path.insert(0, Block())

    from pydantic import ValidationError
    from search_platform.config import EmbeddingSettings, Settings
    from search_platform.embeddings.factory import build_embedder

    cache = Path(sys.argv[1])
    fp32 = build_embedder(EmbeddingSettings(backend="onnx", model="all-minilm-l6-v2", onnx_quantize=False,
                                            onnx_cache_dir=cache))
    int8 = build_embedder(EmbeddingSettings(backend="onnx", model="all-minilm-l6-v2", onnx_cache_dir=cache,
                                            onnx_quantize=True))
    try:
        Settings(elasticsearch={"password": "x"}, embedding={"backend": "sentence-transformers"})
        refused = ""
    except ValidationError as error:
        refused = str(error)
    print(json.dumps({"fp32": fp32.embed_query(sys.argv[2]), "int8": int8.embed_query(sys.argv[2]),
                      "loaded": sorted(m for m in sys.modules if m.partition(".")[0] in BLOCKED),
                      "refused": refused}))
""")


@pytest.mark.slow
def test_onnx_backend_runs_without_torch(tmp_path: Path) -> None:
    """With torch, transformers and sentence-transformers unimportable, the ONNX backend exports (fp32 and int8)
    and embeds like sentence-transformers; asking for the torch backend fails at start-up, naming the extra."""
    from sentence_transformers import SentenceTransformer

    query = "how do I read a file line by line"
    done = subprocess.run([sys.executable, "-c", _NO_TORCH, str(tmp_path), query], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["loaded"] == []
    assert "uv pip install -e '.[torch]'" in result["refused"]
    expected = SentenceTransformer(str(model_directory("all-minilm-l6-v2", model_path=None, cache_dir=tmp_path)),
                                   device="cpu").encode(query, normalize_embeddings=True)
    assert float(np.dot(result["fp32"], expected)) >= 0.99999
    assert float(np.dot(result["int8"], expected)) >= 0.95
    assert sorted(p.suffix for p in tmp_path.glob("*.onnx")) == [".onnx", ".onnx"]
