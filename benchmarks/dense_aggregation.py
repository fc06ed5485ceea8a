"""How should the dense leg rank documents from their chunks' similarities: by the best chunk (what the platform
does), the first chunk, the mean, the sum of the best n, or the best chunk plus a share of the rest? And does a
second dense list (say, first chunks) fused beside the best-chunk one help?

    .venv/bin/python benchmarks/dense_aggregation.py \
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \
        --runs var/lexical-lists.json --out benchmarks/reports/dense-aggregation.md

The lexical lists (document BM25, passage BM25) and the platform's own dense list come from
benchmarks/lexical_lists.py (`--runs` is shared with it; the platform must be up with a worker when the file does
not exist yet). The chunk vectors are the ones ingestion stored: the same chunker, the same embedding text and the
passage-vector cache, so nothing is re-encoded when the corpus was evaluated before. Similarities are exact
(numpy), per query against every chunk. Each dense variant is fused with the lexical lists by the default routed
weighted RRF (k=10, the route table of the settings) and scored by nDCG@10, macro-averaged over the datasets.
Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from lexical_lists import DEPTH, category_means, collect, ndcg_at_10, table_header, table_row

from search_platform.config import Settings, load_settings
from search_platform.domain.models import Chunk
from search_platform.embeddings.base import Embedder
from search_platform.embeddings.cache import with_passage_cache
from search_platform.embeddings.factory import build_embedder
from search_platform.evaluation.datasets import EvalDataset
from search_platform.evaluation.session import load_eval_dataset
from search_platform.ingestion.pipeline import chunk_document, embed_chunks

Aggregate = Callable[[np.ndarray], float]  # one document's chunk similarities (in chunk order) -> its score


def top_n_sum(n: int) -> Aggregate:
    return lambda sims: float(np.sort(sims)[::-1][:n].sum())


def max_plus_mean(share: float) -> Aggregate:
    return lambda sims: float(sims.max() + share * sims.mean())


def max_plus_first(share: float) -> Aggregate:
    return lambda sims: float(sims.max() + share * sims[0])


AGGREGATES: dict[str, Aggregate] = {
    "max": lambda sims: float(sims.max()),
    "first": lambda sims: float(sims[0]),
    "mean": lambda sims: float(sims.mean()),
    "top2 sum": top_n_sum(2),
    "top3 sum": top_n_sum(3),
    "max + .1 mean": max_plus_mean(0.1),
    "max + .25 mean": max_plus_mean(0.25),
    "max + .25 first": max_plus_first(0.25),
    "max + .5 first": max_plus_first(0.5),
    "max + .75 first": max_plus_first(0.75),
    "max + 1 first": max_plus_first(1.0),
}


DenseLists = dict[str, list[dict[str, list[str]]]]  # dataset -> per query: aggregate -> doc ids, best first


def cached_embedder(settings: Settings) -> Embedder:
    """The configured encoder behind the passage-vector cache ingestion fills, so evaluated corpora are not
    encoded again."""
    return with_passage_cache(build_embedder(settings.embedding), settings.embedding)


def chunk_vectors(dataset: EvalDataset, embedder: Embedder, settings: Settings) -> tuple[list[Chunk], np.ndarray]:
    """The dataset's chunks as ingestion cuts them (chunk order within each document) and their unit vectors,
    one row per chunk."""
    assert dataset.corpus is not None
    chunks = [chunk for document in dataset.corpus
              for chunk in chunk_document(document, chunking=settings.chunking, count_tokens=embedder.count_tokens)]
    vectors = np.asarray(embed_chunks(chunks, embedder), dtype=np.float32)
    return chunks, vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def unit_query(embedder: Embedder, text: str) -> np.ndarray:
    vector = np.asarray(embedder.embed_query(text), dtype=np.float32)
    return vector / np.linalg.norm(vector)


def dense_lists(settings: Settings, datasets: Sequence[Path], corpus: Path | None) -> DenseLists:
    """Per dataset, per query (in the dataset's order), each aggregate's top documents."""
    embedder = cached_embedder(settings)
    out: dict[str, list[dict[str, list[str]]]] = {}
    for path in datasets:
        dataset = load_eval_dataset(path, corpus if path.is_file() else None)[0]
        chunks, vectors = chunk_vectors(dataset, embedder, settings)
        owners: dict[str, list[int]] = defaultdict(list)
        for row, chunk in enumerate(chunks):
            owners[chunk.doc_id].append(row)  # chunks come in chunk order per document
        doc_ids = list(owners)
        per_query = []
        for query in dataset.queries:
            sims = vectors @ unit_query(embedder, query.text)
            lists = {}
            for name, aggregate in AGGREGATES.items():
                scores = np.asarray([aggregate(sims[owners[doc]]) for doc in doc_ids])
                lists[name] = [doc_ids[i] for i in np.argsort(-scores, kind="stable")[:DEPTH]]
            per_query.append(lists)
        out[dataset.name] = per_query
        print(f"{dataset.name}: {len(chunks)} chunks, {len(per_query)} queries", flush=True)
    return out


def fuse(lists: Sequence[tuple[Sequence[str], float]], *, k: int) -> list[str]:
    scores: dict[str, float] = defaultdict(float)
    for ranking, weight in lists:
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] += weight / (k + rank)
    return sorted(scores, key=lambda doc: -scores[doc])


WeightedLists = list[tuple[Sequence[str], float]]
# (the query's lexical_lists lists, its dense_lists lists, the route's dense weight, the route) -> dense lists
Variant = Callable[[Mapping[str, Sequence[str]], Mapping[str, Sequence[str]], float, str], WeightedLists]


def evaluate(runs: Mapping[str, Any], dense: Mapping[str, Any], settings: Settings,
             variant: Variant) -> dict[str, dict[str, float]]:
    """nDCG@10 per dataset and category of routed weighted RRF over the lists the variant picks."""
    table = settings.retrieval.route_weights

    def ranked(query: Mapping[str, Any], extra: Mapping[str, Sequence[str]]) -> list[str]:
        weights = table[query["route"]]
        lexical = [(query["lists"]["doc"], weights.bm25), (query["lists"]["passage"], weights.bm25)]
        return fuse(lexical + variant(query["lists"], extra, weights.dense, query["route"]), k=settings.retrieval.rrf_k)

    return {name: category_means((query["category"], ndcg_at_10(ranked(query, extra), query["relevance"]))
                                 for query, extra in zip(queries, dense[name], strict=True))
            for name, queries in runs.items()}


def platform_dense(lists: Mapping[str, Sequence[str]], _extra: Mapping[str, Sequence[str]], weight: float,
                   _route: str) -> WeightedLists:
    return [(lists["dense"], weight)]


def aggregated(name: str) -> Variant:
    return lambda _lists, extra, weight, _route: [(extra[name], weight)]


def second_list(name: str, share_by_route: Mapping[str, float]) -> Variant:
    """The best-chunk list at the route's dense weight, and `name`'s list at a share of it."""
    return lambda _lists, extra, weight, route: [(extra["max"], weight),
                                                 (extra[name], weight * share_by_route.get(route, 0.0))]


def variants() -> dict[str, Variant]:
    found: dict[str, Variant] = {"platform dense (ES kNN, best chunk)": platform_dense}
    for name in AGGREGATES:
        found[f"dense {name}"] = aggregated(name)
    everywhere = ("lexical", "semantic", "mixed")
    for share in (0.25, 0.5, 1.0):
        found[f"dense max + first as a list (x{share})"] = second_list("first", dict.fromkeys(everywhere, share))
        found[f"dense max + mean as a list (x{share})"] = second_list("mean", dict.fromkeys(everywhere, share))
    by_route = {"semantic .5": {"semantic": 0.5}, "semantic .75": {"semantic": 0.75},
                "semantic 1": {"semantic": 1.0}, "semantic .5 mixed .25": {"semantic": 0.5, "mixed": 0.25},
                "semantic .75 mixed .25": {"semantic": 0.75, "mixed": 0.25},
                "semantic .5 mixed .5": {"semantic": 0.5, "mixed": 0.5}}
    for label, table in by_route.items():
        found[f"dense max + first as a list, {label}"] = second_list("first", table)
    return found


def report(runs: Mapping[str, Any], dense: Mapping[str, Any], settings: Settings, command: str) -> str:
    names = list(runs)
    lines = ["# Dense leg per document: how chunk similarities make a document's score (nDCG@10)", "",
             f"Command: `{command}`  ", "Fusion: routed weighted RRF k="
             f"{settings.retrieval.rrf_k} with document BM25 and passage BM25 (the defaults).  ",
             "Datasets (queries): " + ", ".join(f"{name} ({len(runs[name])})" for name in names), "",
             *table_header(("dense list(s)",), names, "all/concept")]
    lines += [table_row(label, evaluate(runs, dense, settings, variant), details=("conceptual",), digits=4)
              for label, variant in variants().items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, action="append", required=True)
    parser.add_argument("--corpus", type=Path, help="corpus directory of a golden-set file")
    parser.add_argument("--runs", type=Path, required=True,
                        help="JSON of lexical_lists.py's rankings: read if it exists, else collected and written")
    parser.add_argument("--out", type=Path, help="Markdown report (printed too)")
    args = parser.parse_args()
    settings = load_settings()
    if args.runs.exists():
        runs = json.loads(args.runs.read_text())
    else:
        runs = collect(args.dataset, args.corpus)
        args.runs.write_text(json.dumps(runs))
    dense = dense_lists(settings, args.dataset, args.corpus)
    datasets = " ".join(f"--dataset {path}" for path in args.dataset)
    corpus = f" --corpus {args.corpus}" if args.corpus else ""
    out = f" --out {args.out}" if args.out else ""
    text = report(runs, dense, settings,
                  f"python benchmarks/dense_aggregation.py {datasets}{corpus} --runs {args.runs}{out}")
    print(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
