"""Can a second pass over the fused list move what fusion cannot, without a reranker? Two rules, each applied to the
five recorded document lists of benchmarks/definitions.py (`--runs`) after the default routed weighted RRF:

- lexical agreement pins first place: on the routes named, when document BM25 and passage BM25 (and, in a variant,
  one more list) rank the same document first, that document goes first whatever the other lists say;
- dense pseudo-relevance feedback (Rocchio): the query vector plus beta times the centroid of the fused top m
  documents (each document as the mean of its chunk vectors, or as its lead chunk) searches the chunk vectors
  again; the new best-chunk list replaces the dense one and the lists are fused again.

    .venv/bin/python benchmarks/second_pass.py \\
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \\
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \\
        --runs var/runs-v6.json --out benchmarks/reports/second-pass.md

The feedback searches exact (numpy) best-chunk similarities over the vectors ingestion stored (the passage-vector
cache: nothing is encoded again when the corpus was evaluated before), so its rows compare with the row "default,
dense list exact", not with the recorded HNSW list. Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from definitions import collect, settings_hybrid
from dense_aggregation import cached_embedder, chunk_vectors, unit_query
from lexical_lists import (
    DEPTH,
    Lists,
    Ranker,
    arguments,
    cached_runs,
    category_means,
    command_line,
    ndcg_at_10,
    publish,
    table_header,
    table_row,
)

from search_platform.config import Settings, load_settings
from search_platform.embeddings.base import Embedder
from search_platform.evaluation.session import load_eval_dataset

FEEDBACK_DOCUMENTS = (1, 3)  # m: the fused top documents whose centroid is added to the query
FEEDBACK_BETAS = (0.3, 0.7)  # beta: the centroid's share against the query vector's 1
FEEDBACK_ROUTES = {"semantic": ("semantic",), "semantic+mixed": ("semantic", "mixed")}


@dataclass(frozen=True)
class DenseIndex:
    """One dataset's chunk vectors (unit rows) with their documents, each document's mean and lead vectors, and the
    queries' unit vectors in the dataset's order."""

    chunks: np.ndarray  # chunk -> unit vector
    chunk_document: np.ndarray  # chunk -> row of doc_ids
    doc_ids: Sequence[str]
    centroids: Mapping[str, np.ndarray]  # "mean" | "lead" -> document row -> vector
    rows: Mapping[str, int]  # doc id -> row
    queries: np.ndarray  # query -> unit vector

    def best_chunk(self, vector: np.ndarray) -> list[str]:
        """Documents by their best chunk's cosine with the vector, best first (DEPTH of them)."""
        best = np.full(len(self.doc_ids), -np.inf, dtype=np.float32)
        np.maximum.at(best, self.chunk_document, self.chunks @ vector)
        return [self.doc_ids[row] for row in np.argsort(-best, kind="stable")[:DEPTH]]


def dense_index(path: Path, corpus: Path | None, embedder: Embedder, settings: Settings) -> DenseIndex:
    dataset = load_eval_dataset(path, corpus if path.is_file() else None)[0]
    chunks, vectors = chunk_vectors(dataset, embedder, settings)
    doc_ids = list(dict.fromkeys(chunk.doc_id for chunk in chunks))
    rows = {doc_id: row for row, doc_id in enumerate(doc_ids)}
    owner = np.asarray([rows[chunk.doc_id] for chunk in chunks])
    sums = np.zeros((len(doc_ids), vectors.shape[1]), dtype=np.float32)
    np.add.at(sums, owner, vectors)
    lead = np.zeros_like(sums)
    for row, chunk in enumerate(chunks):
        if chunk.chunk_index == 0:
            lead[rows[chunk.doc_id]] = vectors[row]
    counts = np.bincount(owner, minlength=len(doc_ids)).astype(np.float32)
    queries = np.stack([unit_query(embedder, query.text) for query in dataset.queries])
    print(f"{dataset.name}: {len(chunks)} chunks, {len(queries)} queries", flush=True)
    return DenseIndex(vectors, owner, doc_ids, {"mean": sums / counts[:, None], "lead": lead}, rows, queries)


# (the dataset's dense index, the query's position, its recorded lists, its route) -> a ranking
SecondPass = Callable[[DenseIndex, int, Lists, str], list[str]]


def first_pass(fuse: Ranker) -> SecondPass:
    return lambda _index, _position, lists, route: fuse(lists, route)


def exact_dense(fuse: Ranker) -> SecondPass:
    """The default fusion with the dense list searched exactly over the stored vectors (the feedback's baseline)."""
    def ranking(index: DenseIndex, position: int, lists: Lists, route: str) -> list[str]:
        return fuse({**lists, "dense": index.best_chunk(index.queries[position])}, route)
    return ranking


def agreement_pins_first(fuse: Ranker, agreeing: Sequence[str], routes: Sequence[str]) -> SecondPass:
    def ranking(_index: DenseIndex, _position: int, lists: Lists, route: str) -> list[str]:
        fused = fuse(lists, route)
        if route not in routes or not all(lists[name] for name in agreeing):
            return fused
        first = lists[agreeing[0]][0]
        if any(lists[name][0] != first for name in agreeing):
            return fused
        return [first, *(doc for doc in fused if doc != first)]
    return ranking


def dense_feedback(fuse: Ranker, *, documents: int, beta: float, centroid: str,
                   routes: Sequence[str]) -> SecondPass:
    """Off the routes named, the same fusion as exact_dense (the feedback's baseline)."""
    baseline = exact_dense(fuse)

    def ranking(index: DenseIndex, position: int, lists: Lists, route: str) -> list[str]:
        if route not in routes:
            return baseline(index, position, lists, route)
        query = index.queries[position]
        top = fuse(lists, route)[:documents]
        feedback = np.mean([index.centroids[centroid][index.rows[doc]] for doc in top], axis=0)
        moved = query + beta * feedback
        return fuse({**lists, "dense": index.best_chunk(moved / np.linalg.norm(moved))}, route)
    return ranking


def passes(settings: Settings) -> dict[str, SecondPass]:
    fuse = settings_hybrid(settings)
    found: dict[str, SecondPass] = {
        "default (recorded lists)": first_pass(fuse),
        "lexical route: document and passage BM25 agree on the first": agreement_pins_first(
            fuse, ("doc", "passage"), ("lexical",)),
        "lexical route: document and passage BM25 and definitions agree": agreement_pins_first(
            fuse, ("doc", "passage", "definitions"), ("lexical",)),
        "lexical route: document and passage BM25 and dense agree": agreement_pins_first(
            fuse, ("doc", "passage", "dense"), ("lexical",)),
        "lexical and mixed routes: document and passage BM25 agree": agreement_pins_first(
            fuse, ("doc", "passage"), ("lexical", "mixed")),
        "lexical route: document BM25 and definitions agree": agreement_pins_first(
            fuse, ("doc", "definitions"), ("lexical",)),
        "lexical and mixed routes: document BM25 and definitions agree": agreement_pins_first(
            fuse, ("doc", "definitions"), ("lexical", "mixed")),
        "default, dense list exact (numpy): the feedback's baseline": exact_dense(fuse),
    }
    for label, routes in FEEDBACK_ROUTES.items():
        for centroid in ("mean", "lead"):
            for documents in FEEDBACK_DOCUMENTS:
                for beta in FEEDBACK_BETAS:
                    found[f"dense feedback on {label}: {centroid} of top {documents}, beta {beta}"] = dense_feedback(
                        fuse, documents=documents, beta=beta, centroid=centroid, routes=routes)
    return found


def score(runs: Mapping[str, Any], indexes: Mapping[str, DenseIndex],
          second_pass: SecondPass) -> dict[str, dict[str, float]]:
    return {name: category_means(
                (query["category"], ndcg_at_10(second_pass(indexes[name], position, query["lists"], query["route"]),
                                               query["relevance"]))
                for position, query in enumerate(queries))
            for name, queries in runs.items()}


def report(runs: Mapping[str, Any], indexes: Mapping[str, DenseIndex], settings: Settings, command: str) -> str:
    names = list(runs)
    lines = ["# A second pass over the fused list: lexical agreement and dense feedback (nDCG@10)", "",
             f"Command: `{command}`  ", f"Fusion: the settings' routed weighted RRF, k={settings.retrieval.rrf_k}, "
             "over the five recorded lists.  ",
             "Datasets (queries): " + ", ".join(f"{name} ({len(runs[name])})" for name in names), "",
             *table_header(("second pass",), names, "all/exact/concept")]
    lines += [table_row(label, score(runs, indexes, second_pass), details=("exact_match", "conceptual"), digits=4)
              for label, second_pass in passes(settings).items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0])
    settings = load_settings()
    runs = cached_runs(args.runs, lambda: collect(args.dataset, args.corpus, settings))
    embedder = cached_embedder(settings)
    indexes = {name: dense_index(path, args.corpus, embedder, settings)
               for name, path in zip(runs, args.dataset, strict=True)}
    publish(report(runs, indexes, settings, command_line("second_pass.py", args)), args.out)


if __name__ == "__main__":
    main()
