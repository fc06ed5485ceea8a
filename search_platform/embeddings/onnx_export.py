"""Export the embedding model to ONNX once, cached by content hash, written atomically.

BERT and MPNet models are written out by onnx_graph from their safetensors, without torch; any other architecture
(a model_path of another kind) falls back to torch.onnx.export, which needs the `torch` extra.
Run `python -m search_platform.embeddings.onnx_export` at set-up to pre-build the fp32 and int8 models.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from search_platform.embeddings.onnx_interface import INPUT_NAMES, OPSET, OUTPUT_NAME

GRAPH_MODEL_TYPES = frozenset({"bert", "mpnet"})  # written out by onnx_graph (no torch); others use torch.onnx
_EXPORT_FORMAT = 2  # bump when the export code changes what it writes (2: onnx_graph, no torch, for BERT and MPNet)
# what `quantize` writes, in the cache key: a change of scheme gets a new file
QUANTIZE_SCHEME = "dynamic int8 per channel; down-projections fp32"


def max_seq_length(model_path: Path) -> int:
    """The model's max_seq_length from sentence_bert_config.json (sentence-transformers' truncation length)."""
    config = json.loads((model_path / "sentence_bert_config.json").read_text())
    return int(config["max_seq_length"])


def model_type(model_path: Path) -> str:
    """The `model_type` of the model's config.json (e.g. bert, mpnet); empty if it has none."""
    config = model_path / "config.json"
    return str(json.loads(config.read_text()).get("model_type", "")) if config.is_file() else ""


def cache_key(model_path: Path, *, quantize: bool) -> str:
    """Hash of every model file and of the export settings: a new model or exporter gets a new file."""
    digest = hashlib.sha256()
    settings: dict[str, object] = {
        "format": _EXPORT_FORMAT, "opset": OPSET, "quantize": QUANTIZE_SCHEME if quantize else False,
        "inputs": INPUT_NAMES,
        "onnxruntime": version("onnxruntime"), "onnx": version("onnx"), "exporter": _exporter(model_path)}
    if settings["exporter"] == "torch":
        settings["torch"] = _installed_version("torch")
    digest.update(json.dumps(settings, sort_keys=True).encode())
    for file in sorted(p for p in model_path.rglob("*") if p.is_file()):
        digest.update(f"{file.relative_to(model_path).as_posix()}\x1f".encode())
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:24]


def onnx_model_path(model_path: Path, cache_dir: Path, *, quantize: bool) -> Path:
    """Where the cached ONNX model for these settings lives (it may not exist yet)."""
    suffix = "int8" if quantize else "fp32"
    return cache_dir / f"{model_path.name}-{cache_key(model_path, quantize=quantize)}-{suffix}.onnx"


def ensure_onnx_model(model_path: Path, cache_dir: Path, *, quantize: bool) -> Path:
    """The cached ONNX model, exported (and quantised) first if it is missing."""
    target = onnx_model_path(model_path, cache_dir, quantize=quantize)
    if target.is_file():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    if quantize:
        source = ensure_onnx_model(model_path, cache_dir, quantize=False)
        _write_atomically(target, lambda tmp: _quantize(source, tmp))
    else:
        _write_atomically(target, lambda tmp: _export(model_path, tmp))
    return target


def _write_atomically(target: Path, write: Callable[[Path], None]) -> None:
    """Write to a private temporary file beside target, then rename it into place."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _installed_version(name: str) -> str | None:
    """The installed version of a distribution, None if it is not installed."""
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def _exporter(model_path: Path) -> str:
    """"graph" (onnx_graph, no torch) for the model types it writes out, else "torch"."""
    return "graph" if model_type(model_path) in GRAPH_MODEL_TYPES else "torch"


def _export(model_path: Path, out: Path) -> None:
    """The fp32 ONNX model of model_path's encoder, written to out."""
    if _exporter(model_path) == "graph":
        import onnx

        from search_platform.embeddings.onnx_graph import build_encoder

        onnx.save(build_encoder(model_path), str(out))
    else:
        _torch_export(model_path, out)


def _token_embedding_module(model_path: Path) -> Any:
    """The eval-mode transformer, returning its last hidden state (pooling happens outside the graph)."""
    import torch
    from transformers import AutoModel

    class TokenEmbeddings(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    model = AutoModel.from_pretrained(str(model_path), attn_implementation="eager")
    return TokenEmbeddings(model).eval()


def _torch_export(model_path: Path, out: Path) -> None:
    """torch.onnx.export of the transformer with dynamic batch and sequence axes (needs the `torch` extra)."""
    try:
        import torch
        from transformers import AutoTokenizer
    except ImportError as error:
        raise RuntimeError(f"{model_path}: only {sorted(GRAPH_MODEL_TYPES)} models export to ONNX without torch; "
                           "this one needs the torch extra: uv pip install -e '.[torch]'") from error

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    tokenizer = AutoTokenizer.from_pretrained(str(model_path))
    sample = tokenizer(["an example passage", "another, longer example passage"], padding=True,
                       return_tensors="pt")
    args = tuple(sample[name] for name in INPUT_NAMES)
    axes = {name: {0: "batch", 1: "sequence"} for name in (*INPUT_NAMES, OUTPUT_NAME)}
    with torch.no_grad():
        torch.onnx.export(
            _token_embedding_module(model_path), args, str(out), input_names=list(INPUT_NAMES),
            output_names=[OUTPUT_NAME], dynamic_axes=axes, opset_version=OPSET, do_constant_folding=True,
            dynamo=False,
        )


def down_projections(model: Any) -> list[str]:
    """Names of the MatMul nodes whose weight narrows its input (e.g. 3072 -> 768: each layer's feed-forward
    output). Their input is the GELU output, whose few very large activations dynamic int8 rounds badly: on
    all-mpnet-base-v2, quantising them brings the vectors to a mean cosine of 0.87 with fp32's, keeping them fp32
    0.993 (benchmarks/reports/onnx-int8.md)."""
    shapes = {weight.name: tuple(weight.dims) for weight in model.graph.initializer}
    narrowing = []
    for node in model.graph.node:
        shape = shapes.get(node.input[1]) if node.op_type == "MatMul" and len(node.input) > 1 else None
        if shape is not None and len(shape) == 2 and shape[0] > shape[1]:
            narrowing.append(node.name)
    return narrowing


def _quantize(source: Path, out: Path) -> None:
    """int8 dynamic quantisation of the weights, per channel, except the down-projections (QUANTIZE_SCHEME)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    kept = down_projections(onnx.load(str(source), load_external_data=False))
    quantize_dynamic(str(source), str(out), per_channel=True, weight_type=QuantType.QInt8, nodes_to_exclude=kept)


def main() -> None:
    """Pre-build the fp32 and int8 ONNX models for the configured embedding settings."""
    from search_platform.config import get_settings
    from search_platform.embeddings.registry import model_directory

    settings = get_settings().embedding
    model_path = model_directory(settings.model, model_path=settings.model_path, cache_dir=settings.model_cache_dir)
    for quantize in (False, True):
        print(ensure_onnx_model(model_path, settings.onnx_cache_dir, quantize=quantize))


if __name__ == "__main__":
    main()
