"""Dense-only relevance and encoder cost of the registered embedding models, without Elasticsearch.

For each dataset (a BEIR directory, or a golden-set JSON with its corpus directory) the corpus is chunked once by
the platform's own chunker (the default model's tokenizer sizes the chunks, so every model sees the same chunks),
every chunk is encoded as ingestion would encode it (`embedding_text`: title > section + text, behind the model's
passage prefix), and documents are ranked by their best chunk's cosine with the query (numpy brute force): the
per-document dense leg. Prints nDCG@10 overall and per query category, passage throughput (chunks/s on a fresh
sample, never from the cache) and single-query encode latency.

Usage:
  .venv/bin/python benchmarks/embedding_models.py --dataset datasets/golden/python-docs.json \
      --corpus-dir var/demo-corpus --models all-minilm-l6-v2 all-mpnet-base-v2
  .venv/bin/python benchmarks/embedding_models.py --dataset datasets/rust-std --max-docs 300

Corpus vectors go through the passage-vector cache (embedding.passage_cache_dir), so a re-run or a model already
used by an evaluation re-encodes nothing; throughput is always measured on a fresh sample by the bare encoder.
Results accumulate in benchmarks/reports/embedding-models.json and the markdown report is rewritten from all of them.
Numbers are indicative on a shared 2-core CPU: the load average at measurement time is recorded beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from search_platform.config import ChunkingSettings, EmbeddingModelName, EmbeddingSettings
from search_platform.domain.models import Document
from search_platform.embeddings.base import Embedder
from search_platform.embeddings.cache import with_passage_cache
from search_platform.embeddings.factory import build_embedder
from search_platform.embeddings.registry import DEFAULT_MODEL, MODELS
from search_platform.evaluation.datasets import EvalDataset, EvalQuery, load_dataset
from search_platform.evaluation.metrics import ndcg_at_k
from search_platform.ingestion.pipeline import chunk_document, embedding_text

REPORTS = Path(__file__).resolve().parent / "reports"
RESULTS = REPORTS / "embedding-models.json"
REPORT = REPORTS / "embedding-models.md"
K = 10


@dataclass
class ModelResult:
    """One model on one dataset."""

    dataset: str
    model: str
    backend: str
    documents: int
    queries: int
    chunks: int
    ndcg: dict[str, float]  # "all" and each category
    chunks_per_s: float
    query_ms_p50: float
    load_avg: float
    capped: bool


def cap_corpus(dataset: EvalDataset, max_docs: int | None, seed: int = 13) -> tuple[list[Document], bool]:
    """The corpus, or every judged document plus a seeded sample of the others up to max_docs."""
    corpus = list(dataset.corpus or [])
    if max_docs is None or len(corpus) <= max_docs:
        return corpus, False
    judged = {doc for query in dataset.queries for doc, grade in query.relevance.items() if grade > 0}
    keep = [d for d in corpus if d.doc_id in judged]
    others = [d for d in corpus if d.doc_id not in judged]
    random.Random(seed).shuffle(others)
    keep.extend(others[: max(0, max_docs - len(keep))])
    return sorted(keep, key=lambda d: d.doc_id), True


def unit_rows(vectors: Sequence[Sequence[float]]) -> npt.NDArray[np.float32]:
    """Vectors as a float32 matrix of unit rows."""
    matrix = np.asarray(vectors, dtype=np.float32)
    unit: npt.NDArray[np.float32] = matrix / np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
    return unit


def rank_documents(query_vectors: npt.NDArray[np.float32], chunk_vectors: npt.NDArray[np.float32],
                   chunk_docs: Sequence[str], *, k: int = K) -> list[list[str]]:
    """Per query, the top-k document ids by their best chunk's cosine (chunks of a document are contiguous)."""
    starts = [i for i in range(len(chunk_docs)) if i == 0 or chunk_docs[i] != chunk_docs[i - 1]]
    doc_ids = [chunk_docs[i] for i in starts]
    best: npt.NDArray[np.float32] = np.maximum.reduceat(query_vectors @ chunk_vectors.T, starts, axis=1)
    top = np.argsort(-best, axis=1, kind="stable")[:, :k]
    return [[doc_ids[j] for j in row] for row in top]


def ndcg_by_category(queries: Sequence[EvalQuery], rankings: Sequence[list[str]]) -> dict[str, float]:
    """Mean nDCG@10 over all queries ("all") and per category."""
    groups: dict[str, list[float]] = defaultdict(list)
    for query, ranked in zip(queries, rankings, strict=True):
        score = ndcg_at_k(ranked, query.relevance, k=K)
        groups["all"].append(score)
        groups[query.category].append(score)
    return {name: statistics.fmean(values) for name, values in sorted(groups.items())}


def passage_rate(embedder: Embedder, texts: Sequence[str], sample: int) -> float:
    """Chunks per second of the bare encoder on a fixed sample, after a warm-up batch."""
    chosen = list(texts[:sample])
    embedder.embed_documents(chosen[:8])
    started = time.perf_counter()
    embedder.embed_documents(chosen)
    return len(chosen) / (time.perf_counter() - started)


def query_latency_ms(embedder: Embedder, queries: Sequence[EvalQuery], sample: int) -> float:
    """Median milliseconds to encode one query."""
    embedder.embed_query("warm-up query")
    timings = []
    for query in queries[:sample]:
        started = time.perf_counter()
        embedder.embed_query(query.text)
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def corpus_chunks(corpus: Sequence[Document], model: EmbeddingModelName) -> tuple[list[str], list[str]]:
    """(document id, embedding text) of every chunk, cut by the platform's chunker with model's tokenizer."""
    counter = build_embedder(EmbeddingSettings(model=model))
    chunking = ChunkingSettings()
    chunk_docs: list[str] = []
    texts: list[str] = []
    for document in corpus:
        for chunk in chunk_document(document, chunking=chunking, count_tokens=counter.count_tokens):
            chunk_docs.append(document.doc_id)
            texts.append(embedding_text(chunk))
    return chunk_docs, texts


def measure(dataset: EvalDataset, chunks: tuple[list[str], list[str]], model: EmbeddingModelName,
            args: argparse.Namespace, capped: bool) -> ModelResult:
    """Encode and rank one dataset's chunks with one model."""
    settings = EmbeddingSettings(model=model, backend=args.backend, batch_size=args.batch_size)
    bare = build_embedder(settings)
    cached = with_passage_cache(bare, settings)
    chunk_docs, texts = chunks
    started = time.perf_counter()
    chunk_vectors = unit_rows(cached.embed_documents(texts))
    print(f"  {model}: {len(texts)} chunks encoded (or read from cache) in {time.perf_counter() - started:.0f} s")
    query_vectors = unit_rows([bare.embed_query(query.text) for query in dataset.queries])
    rankings = rank_documents(query_vectors, chunk_vectors, chunk_docs)
    ndcg = ndcg_by_category(dataset.queries, rankings)
    shuffled = texts[:]
    random.Random(7).shuffle(shuffled)
    rate = passage_rate(bare, shuffled, args.rate_sample)
    latency = query_latency_ms(bare, dataset.queries, args.latency_sample)
    return ModelResult(dataset=dataset.name, model=model, backend=args.backend, documents=len(set(chunk_docs)),
                       queries=len(dataset.queries), chunks=len(texts), ndcg=ndcg, chunks_per_s=rate,
                       query_ms_p50=latency, load_avg=os.getloadavg()[0], capped=capped)


def load_results() -> list[dict[str, Any]]:
    """Every stored result."""
    return list(json.loads(RESULTS.read_text())) if RESULTS.is_file() else []


def store(result: ModelResult) -> list[dict[str, Any]]:
    """Add a result, replacing an earlier one of the same dataset, model and backend; return them all."""
    rows = [r for r in load_results()
            if (r["dataset"], r["model"], r["backend"]) != (result.dataset, result.model, result.backend)]
    rows.append(asdict(result))
    rows.sort(key=lambda r: (r["dataset"], r["backend"], r["model"]))
    RESULTS.write_text(json.dumps(rows, indent=1) + "\n")
    return rows


def render(rows: Sequence[dict[str, Any]]) -> str:
    """The markdown tables of all stored results."""
    lines = ["| dataset | model | backend | docs | chunks | queries | nDCG@10 all | exact_match | conceptual | mixed "
             "| chunks/s | query ms p50 | load avg |", "|" + "---|" * 13]
    for r in rows:
        n = r["ndcg"]
        cells = [r["dataset"] + (" (capped)" if r["capped"] else ""), r["model"], r["backend"], r["documents"],
                 r["chunks"], r["queries"], *(f"{n[c]:.3f}" if c in n else "-"
                                              for c in ("all", "exact_match", "conceptual", "mixed")),
                 f"{r['chunks_per_s']:.1f}", f"{r['query_ms_p50']:.1f}", f"{r['load_avg']:.1f}"]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Run the requested models over one dataset and print and store the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", type=Path, required=True, help="BEIR directory or golden-set JSON")
    parser.add_argument("--corpus-dir", type=Path, help="the corpus of a golden-set JSON (e.g. var/demo-corpus)")
    parser.add_argument("--models", nargs="+", default=sorted(MODELS), choices=sorted(MODELS))
    parser.add_argument("--backend", default="sentence-transformers", choices=["sentence-transformers", "onnx"])
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-docs", type=int, help="cap the corpus: every judged document plus a seeded sample")
    parser.add_argument("--chunk-with", default=DEFAULT_MODEL, choices=sorted(MODELS),
                        help="whose tokenizer sizes the chunks (the same chunks for every model)")
    parser.add_argument("--rate-sample", type=int, default=256, help="chunks encoded fresh to measure chunks/s")
    parser.add_argument("--latency-sample", type=int, default=50, help="queries encoded one by one for latency")
    args = parser.parse_args()
    dataset = load_dataset(args.dataset, corpus_dir=args.corpus_dir)
    corpus, capped = cap_corpus(dataset, args.max_docs)
    print(f"{dataset.name}: {len(corpus)} documents{' (capped)' if capped else ''}, {len(dataset.queries)} queries")
    started = time.perf_counter()
    chunks = corpus_chunks(corpus, args.chunk_with)
    print(f"  {len(chunks[1])} chunks ({args.chunk_with} tokenizer) in {time.perf_counter() - started:.0f} s")
    rows: list[dict[str, Any]] = []
    for model in args.models:
        result = measure(dataset, chunks, model, args, capped)
        rows = store(result)
        print(f"  {model}: nDCG@10 " + " ".join(f"{k}={v:.3f}" for k, v in result.ndcg.items())
              + f"; {result.chunks_per_s:.1f} chunks/s; query p50 {result.query_ms_p50:.1f} ms;"
              f" load {result.load_avg:.1f}")
    print(render(rows))


if __name__ == "__main__":
    main()
