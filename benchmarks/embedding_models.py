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
import hashlib
import json
import os
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
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
CHUNK_CACHE = Path.home() / ".cache" / "search-platform" / "benchmark-chunks"


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
    cap: str = ""  # how the run was capped: queries sampled, documents kept, chunks per document
    chunks_per_cpu_s: float = 0.0  # passages per CPU second of this process (2 torch threads)


def cap_queries(dataset: EvalDataset, max_queries: int | None, seed: int = 13) -> EvalDataset:
    """The dataset, or a seeded sample of max_queries queries, the same share from each category."""
    if max_queries is None or len(dataset.queries) <= max_queries:
        return dataset
    by_category: dict[str, list[EvalQuery]] = defaultdict(list)
    for query in dataset.queries:
        by_category[query.category].append(query)
    share = max_queries / len(dataset.queries)
    kept: list[EvalQuery] = []
    for category in sorted(by_category):
        group = by_category[category][:]
        random.Random(f"{seed}:{category}").shuffle(group)
        kept.extend(group[: max(1, round(len(group) * share))])
    kept.sort(key=lambda q: q.query_id)
    return replace(dataset, queries=tuple(kept))


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


def passage_rate(embedder: Embedder, texts: Sequence[str], sample: int) -> tuple[float, float]:
    """Chunks per wall-clock second and per CPU second (all threads of this process) of the bare encoder on a fixed
    sample, after a warm-up batch. On a shared CPU the second is the steadier one to compare models by."""
    chosen = list(texts[:sample])
    embedder.embed_documents(chosen[:8])
    started, cpu_started = time.perf_counter(), time.process_time()
    embedder.embed_documents(chosen)
    return len(chosen) / (time.perf_counter() - started), len(chosen) / (time.process_time() - cpu_started)


def query_latency_ms(embedder: Embedder, queries: Sequence[EvalQuery], sample: int) -> float:
    """Median milliseconds to encode one query."""
    embedder.embed_query("warm-up query")
    timings = []
    for query in queries[:sample]:
        started = time.perf_counter()
        embedder.embed_query(query.text)
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def corpus_chunks(corpus: Sequence[Document], model: EmbeddingModelName, *, per_doc: int | None = None
                  ) -> tuple[list[str], list[str]]:
    """(document id, embedding text) of every chunk (or each document's first per_doc chunks), cut by the
    platform's chunker with model's tokenizer."""
    counter = build_embedder(EmbeddingSettings(model=model))
    chunking = ChunkingSettings()
    chunk_docs: list[str] = []
    texts: list[str] = []
    for document in corpus:
        for chunk in chunk_document(document, chunking=chunking, count_tokens=counter.count_tokens)[:per_doc]:
            chunk_docs.append(document.doc_id)
            texts.append(embedding_text(chunk))
    return chunk_docs, texts


def cached_chunks(dataset: Path, corpus: Sequence[Document], model: EmbeddingModelName, *, per_doc: int | None
                  ) -> tuple[list[str], list[str]]:
    """corpus_chunks, kept in a JSON file keyed by the corpus, the chunking, the tokenizer's model and the cap."""
    digest = hashlib.sha256(json.dumps([str(dataset), model, per_doc, ChunkingSettings().model_dump(),
                                        [(d.doc_id, d.content) for d in corpus]]).encode()).hexdigest()[:16]
    path = CHUNK_CACHE / f"{dataset.name}-{digest}.json"
    if path.is_file():
        docs, texts = json.loads(path.read_text())
        return list(docs), list(texts)
    chunks = corpus_chunks(corpus, model, per_doc=per_doc)
    CHUNK_CACHE.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(chunks))
    return chunks


def measure(dataset: EvalDataset, chunks: tuple[list[str], list[str]], model: EmbeddingModelName,
            args: argparse.Namespace, capped: bool) -> ModelResult:
    """Encode and rank one dataset's chunks with one registered model."""
    settings = EmbeddingSettings(model=model, backend=args.backend, batch_size=args.batch_size)
    bare = build_embedder(settings)
    return measure_embedder(dataset, chunks, model, args.backend, bare, with_passage_cache(bare, settings), args,
                            capped)


def measure_embedder(dataset: EvalDataset, chunks: tuple[list[str], list[str]], model: str, backend: str,
                     bare: Embedder, passages: Embedder, args: argparse.Namespace, capped: bool) -> ModelResult:
    """Encode and rank one dataset's chunks: corpus vectors from passages (which may read a cache), queries, speed
    and latency from the bare encoder."""
    chunk_docs, texts = chunks
    started = time.perf_counter()
    chunk_vectors = unit_rows(passages.embed_documents(texts))
    print(f"  {model}: {len(texts)} chunks encoded (or read from cache) in {time.perf_counter() - started:.0f} s")
    query_vectors = unit_rows([bare.embed_query(query.text) for query in dataset.queries])
    rankings = rank_documents(query_vectors, chunk_vectors, chunk_docs)
    ndcg = ndcg_by_category(dataset.queries, rankings)
    shuffled = texts[:]
    random.Random(7).shuffle(shuffled)
    rate, cpu_rate = passage_rate(bare, shuffled, args.rate_sample)
    latency = query_latency_ms(bare, dataset.queries, args.latency_sample)
    cap = ", ".join(f"{name} {value}" for name, value in (("queries", args.max_queries), ("docs", args.max_docs),
                                                          ("chunks/doc", args.chunks_per_doc)) if value)
    return ModelResult(dataset=dataset.name, model=model, backend=backend, documents=len(set(chunk_docs)),
                       queries=len(dataset.queries), chunks=len(texts), ndcg=ndcg, chunks_per_s=rate,
                       query_ms_p50=latency, load_avg=os.getloadavg()[0], capped=capped, cap=cap,
                       chunks_per_cpu_s=cpu_rate)


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
             "| chunks/s | chunks/CPU-s | query ms p50 | load avg |", "|" + "---|" * 14]
    for r in rows:
        n = r["ndcg"]
        cap = r.get("cap") or ("capped" if r["capped"] else "")
        cells = [r["dataset"] + (f" ({cap})" if cap else ""), r["model"], r["backend"], r["documents"],
                 r["chunks"], r["queries"], *(f"{n[c]:.3f}" if c in n else "-"
                                              for c in ("all", "exact_match", "conceptual", "mixed")),
                 f"{r['chunks_per_s']:.1f}", f"{r.get('chunks_per_cpu_s', 0.0):.1f}" if r.get("chunks_per_cpu_s")
                 else "-", f"{r['query_ms_p50']:.1f}", f"{r['load_avg']:.1f}"]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


BEGIN, END = "<!-- results:begin (benchmarks/embedding_models.py rewrites this table) -->", "<!-- results:end -->"


def write_report(rows: Sequence[dict[str, Any]]) -> None:
    """Rewrite the results table inside the markdown report, keeping the prose around it."""
    text = REPORT.read_text() if REPORT.is_file() else f"# Embedding models\n\n{BEGIN}\n{END}\n"
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    REPORT.write_text(f"{head}{BEGIN}\n{render(rows)}{END}{tail}")


def rates_only(texts: Sequence[str], queries: Sequence[EvalQuery], args: argparse.Namespace) -> None:
    """Print each model's encoder cost on the same sample, back to back (no ranking, nothing stored)."""
    shuffled = list(texts)
    random.Random(7).shuffle(shuffled)
    for model in args.models:
        bare = build_embedder(EmbeddingSettings(model=model, backend=args.backend, batch_size=args.batch_size))
        rate, cpu_rate = passage_rate(bare, shuffled, args.rate_sample)
        latency = query_latency_ms(bare, queries, args.latency_sample)
        print(f"  {model} ({args.backend}): {rate:.1f} chunks/s, {cpu_rate:.1f} chunks/CPU-s on "
              f"{min(len(shuffled), args.rate_sample)} chunks; query p50 {latency:.1f} ms;"
              f" load {os.getloadavg()[0]:.1f}")


def add_dataset_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that choose the dataset, its caps, the chunking and the speed samples."""
    parser.add_argument("--dataset", type=Path, required=True, help="BEIR directory or golden-set JSON")
    parser.add_argument("--corpus-dir", type=Path, help="the corpus of a golden-set JSON (e.g. var/demo-corpus)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-queries", type=int, help="cap the queries: a seeded sample, stratified by category")
    parser.add_argument("--max-docs", type=int, help="cap the corpus: every judged document plus a seeded sample")
    parser.add_argument("--chunks-per-doc", type=int, help="cap the chunks: each document's first N only")
    parser.add_argument("--chunk-with", default=DEFAULT_MODEL, choices=sorted(MODELS),
                        help="whose tokenizer sizes the chunks (the same chunks for every model)")
    parser.add_argument("--rate-sample", type=int, default=128, help="chunks encoded fresh to measure chunks/s")
    parser.add_argument("--latency-sample", type=int, default=30, help="queries encoded one by one for latency")


def prepare(args: argparse.Namespace) -> tuple[EvalDataset, tuple[list[str], list[str]], bool]:
    """The (capped) dataset, its chunks (document ids, embedding texts) and whether anything was capped."""
    full = load_dataset(args.dataset, corpus_dir=args.corpus_dir)
    dataset = cap_queries(full, args.max_queries)
    corpus, capped = cap_corpus(dataset, args.max_docs)
    capped = capped or len(dataset.queries) < len(full.queries)
    print(f"{dataset.name}: {len(corpus)} documents{' (capped)' if capped else ''}, {len(dataset.queries)} queries")
    started = time.perf_counter()
    chunks = cached_chunks(args.dataset, corpus, args.chunk_with, per_doc=args.chunks_per_doc)
    print(f"  {len(chunks[1])} chunks ({args.chunk_with} tokenizer) in {time.perf_counter() - started:.0f} s")
    return dataset, chunks, capped or args.chunks_per_doc is not None


def report(result: ModelResult) -> list[dict[str, Any]]:
    """Store one result and print it; every stored result."""
    rows = store(result)
    print(f"  {result.model}: nDCG@10 " + " ".join(f"{k}={v:.3f}" for k, v in result.ndcg.items())
          + f"; {result.chunks_per_s:.1f} chunks/s ({result.chunks_per_cpu_s:.1f}/CPU-s);"
          f" query p50 {result.query_ms_p50:.1f} ms;"
          f" load {result.load_avg:.1f}")
    return rows


def main() -> None:
    """Run the requested models over one dataset and print and store the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_dataset_arguments(parser)
    parser.add_argument("--models", nargs="+", default=sorted(MODELS), choices=sorted(MODELS))
    parser.add_argument("--backend", default="sentence-transformers", choices=["sentence-transformers", "onnx"])
    parser.add_argument("--rates-only", action="store_true", help="only the encoder cost of each model, no nDCG")
    args = parser.parse_args()
    dataset, chunks, capped = prepare(args)
    if args.rates_only:
        rates_only(chunks[1], dataset.queries, args)
        return
    rows: list[dict[str, Any]] = []
    for model in args.models:
        rows = report(measure(dataset, chunks, model, args, capped))
    write_report(rows)
    print(render(rows))


if __name__ == "__main__":
    main()
