"""How far int8 moves each model's passage vectors from fp32, and what it buys, by quantisation scheme.

Schemes, all onnxruntime dynamic int8 with per-channel weights over the platform's fp32 export:
- `int8, every weight MatMul`: what `SP_EMBEDDING__ONNX_QUANTIZE` wrote until the down-projections were kept;
- `int8, down-projections fp32` (the platform's scheme, onnx_export.QUANTIZE_SCHEME): each layer's feed-forward
  output MatMul (weight narrowing 4x hidden -> hidden, fed by the GELU) stays fp32.

A sample of the dataset's chunks is cut by the platform's chunker and encoded as ingestion encodes it (title >
section + text) by fp32 and by each scheme; the table gives the cosine of each vector with its fp32 twin
(min / 5th percentile / mean) and passages per second of the bare encoder (batch 32, warm, one after the other in
one process, so the rates compare within a row group; the load average is beside them).

Usage:
  .venv/bin/python benchmarks/onnx_int8.py --dataset datasets/gnu-info --sample 96 \
      --models all-minilm-l6-v2 all-mpnet-base-v2
Writes benchmarks/reports/onnx-int8.md.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from search_platform.config import ChunkingSettings, EmbeddingModelName, EmbeddingSettings
from search_platform.embeddings.onnx import OnnxEmbedder
from search_platform.embeddings.onnx_export import ensure_onnx_model
from search_platform.embeddings.registry import model_directory
from search_platform.evaluation.session import load_eval_dataset
from search_platform.ingestion.pipeline import chunk_document, embedding_text

REPORT = Path(__file__).parent / "reports" / "onnx-int8.md"
BATCH = 32
Encode = Callable[[Sequence[str]], npt.NDArray[np.float32]]


@dataclass(frozen=True, slots=True)
class Row:
    model: str
    scheme: str
    cos_min: float
    cos_p5: float
    cos_mean: float
    rate: float  # passages per second
    load: float


def session_encoder(onnx_file: Path, model_path: Path, cache_dir: Path) -> Encode:
    """Unit vectors of texts from one ONNX file, through the platform's OnnxEmbedder."""
    embedder = OnnxEmbedder(model_path, cache_dir=cache_dir, batch_size=BATCH, onnx_file=onnx_file)
    return lambda texts: np.array(embedder.embed_documents(texts), dtype=np.float32)


def sample_texts(dataset: Path, corpus: Path | None, model: EmbeddingModelName, sample: int) -> list[str]:
    """sample chunks (seeded) of the dataset's corpus, as ingestion would embed them."""
    from search_platform.embeddings.factory import build_embedder

    _, documents = load_eval_dataset(dataset, corpus)
    counter = build_embedder(EmbeddingSettings(model=model))
    texts = [embedding_text(chunk) for document in documents
             for chunk in chunk_document(document, chunking=ChunkingSettings(), count_tokens=counter.count_tokens)]
    return random.Random(7).sample(texts, min(sample, len(texts)))


def timed(encode: Encode, texts: Sequence[str]) -> tuple[npt.NDArray[np.float32], float]:
    encode(texts[:BATCH])  # warm-up
    started = time.perf_counter()
    vectors = encode(texts)
    return vectors, len(texts) / (time.perf_counter() - started)


def measure(model: EmbeddingModelName, texts: Sequence[str], cache_dir: Path) -> list[Row]:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model_path = model_directory(model, model_path=None, cache_dir=EmbeddingSettings().model_cache_dir)
    fp32_file = ensure_onnx_model(model_path, cache_dir, quantize=False)
    with tempfile.TemporaryDirectory() as tmp:
        every = Path(tmp) / "every-matmul.onnx"
        quantize_dynamic(str(fp32_file), str(every), per_channel=True, weight_type=QuantType.QInt8)
        files = {"fp32": fp32_file, "int8, every weight MatMul": every,
                 "int8, down-projections fp32 (platform)": ensure_onnx_model(model_path, cache_dir, quantize=True)}
        reference: npt.NDArray[np.float32] | None = None
        rows = []
        for scheme, file in files.items():
            vectors, rate = timed(session_encoder(file, model_path, cache_dir), texts)
            reference = vectors if reference is None else reference
            cosines = (vectors * reference).sum(axis=1)
            rows.append(Row(model, scheme, float(cosines.min()), float(np.percentile(cosines, 5)),
                            float(cosines.mean()), rate, os.getloadavg()[0]))
            print(rows[-1], flush=True)
    return rows


def render(rows: Sequence[Row], command: str, dataset: str, sample: int) -> str:
    lines = [
        "# ONNX int8 schemes: vector fidelity and encoder speed",
        "",
        f"Command: `{command}`. {sample} chunks of {dataset}, encoded as ingestion encodes them. Cosine of each "
        "vector with its fp32 twin; passages/s of the bare encoder (batch 32, warm), schemes measured one after "
        "the other in one process on a 2-core machine (compare rates within a model).",
        "",
        "| model | scheme | cosine min | cosine p5 | cosine mean | passages/s | vs fp32 | load avg |",
        "|---|---|---|---|---|---|---|---|",
    ]
    fp32 = {row.model: row.rate for row in rows if row.scheme == "fp32"}
    lines += [f"| {r.model} | {r.scheme} | {r.cos_min:.4f} | {r.cos_p5:.4f} | {r.cos_mean:.4f} | {r.rate:.2f} | "
              f"{r.rate / fp32[r.model]:.2f} | {r.load:.1f} |" for r in rows]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, default=None, help="corpus directory of a golden-set JSON")
    parser.add_argument("--sample", type=int, default=96)
    parser.add_argument("--models", nargs="+", default=["all-minilm-l6-v2", "all-mpnet-base-v2"])
    args = parser.parse_args()
    cache_dir = EmbeddingSettings().onnx_cache_dir
    rows: list[Row] = []
    for model in args.models:
        rows += measure(model, sample_texts(args.dataset, args.corpus, model, args.sample), cache_dir)
    command = ("python benchmarks/onnx_int8.py --dataset " + str(args.dataset) + f" --sample {args.sample} --models "
               + " ".join(args.models))
    REPORT.write_text(render(rows, command, args.dataset.name, args.sample))
    print(f"wrote {REPORT}")


if __name__ == "__main__":
    main()
